.\" e4tune-itable.8.frag --- e4tune(8) text for the lazy inode table
.\" options (issue 6); to be merged into misc/e4tune.8 by its owner:
.\" the -E items go under EXTENDED OPTIONS, the rest as its own section.
.TP
.BR lazy_itable_init= { 0 | 1 }
.B 0
finishes lazy inode table initialisation now, offline: for every block
group without
.B ITABLE_ZEROED
zero the part of its inode table that the kernel's ext4lazyinit thread
would zero (ext4_init_inode_table(), fs/ext4/ialloc.c: everything past the
first DIV_ROUND_UP(inodes_per_group \- bg_itable_unused, inodes_per_block)
blocks, or the whole table when
.B INODE_UNINIT
is set), then set
.B ITABLE_ZEROED
and the group descriptor checksum.
On an image file the blocks are punched out (fallocate PUNCH_HOLE, the
image stays sparse); on a block device they are zeroed with
io_channel_zeroout.
.B 1
clears
.B ITABLE_ZEROED
(for tests: the file system then looks freshly made by
.BR "mke2fs \-E lazy_itable_init=1" ).
The names follow mke2fs: 1 = lazy, 0 = zeroed.
.TP
.BI groups= list
With
.BR lazy_itable_init=1 :
only these groups;
.I list
is group numbers and ranges
.IR N \- M
separated by colons, e.g.
.BR groups=0:2\-5 .
.TP
.B garbage
With
.BR lazy_itable_init=1 :
also fill the part of each chosen inode table that finishing would zero
with non-zero bytes ("E4LAZYGB" and the block number every 16 bytes).
.SH LAZY INODE TABLE INIT
.B \-l
prints one more line,
.BR "Lazy inode table init:" ,
with the groups that have
.B ITABLE_ZEROED
and the groups and blocks still to zero, or "not applicable" when the
file system has neither
.B uninit_bg
nor
.BR metadata_csum .
With
.B \-v
a table follows, one line per group: the group flags
(INODE_UNINIT, BLOCK_UNINIT, ITABLE_ZEROED, as dumpe2fs names them),
the inode table's blocks, bg_itable_unused, the blocks kept, the blocks
still to zero, and whether the group descriptor checksum verifies.
.B \-\-json
adds an
.B itable
object with the same summary and a
.B group
array.
.PP
Finishing or undoing refuses, writing nothing: a file system without
.B uninit_bg
or
.BR metadata_csum ;
a journal that needs recovery (unless
.BR \-f );
any group descriptor whose checksum fails or whose inode table or
bg_itable_unused is out of range (the group is named); a mounted file
system.
.B \-n
reports what would be done.
.B \-z
.I undo_file
works: the undo file holds a copy of every zeroed block, about
(blocks to zero) \(mu (block size) bytes.
On a terminal libext2fs's progress meter is shown.
.SH EXAMPLES (LAZY INODE TABLE INIT)
.nf
e4tune \-l \-v disk.img
e4tune \-E lazy_itable_init=0 disk.img
e4tune \-E lazy_itable_init=1,groups=0:3\-4,garbage disk.img
.fi
