# fc.sh --- helpers for the fast-commit tests (r_fc_*, o_fc, u_replayed):
# the kernel's recovery of a crash image as the oracle, and listings of a
# recovered file system to compare with it.  Mounts go through
# common.sh's mount_img/cleanup_mounts (loop devices allocated by mount
# -o loop, freed at umount).

# fc_images: the bundled crash images made with -O fast_commit.
fc_images() {
	for n in $(all_images); do
		case " $(info "$n" fs_features) " in
		*" fast_commit "*) echo "$n" ;;
		esac
	done
}

# kernel_recover IMAGE OUT: OUT is a copy of IMAGE recovered by the
# kernel: loop-mounted -o noinit_itable (journal recovery, fast commits
# included), unmounted at once.  Returns 1 when the kernel refuses to
# mount it (its message in kmount.err).
kernel_recover() {
	cp "$1" "$2"
	mkdir -p kmnt
	if ! mount -o loop,noinit_itable "$2" kmnt 2>kmount.err; then
		dmesg 2>/dev/null | tail -n 5 >>kmount.err
		return 1
	fi
	E4_MOUNTS="kmnt $E4_MOUNTS"
	umount kmnt
	E4_MOUNTS=""
}

# tree IMAGE OUT: what a user sees in IMAGE, mounted read-only: one line
# per name (type, mode, size, link count, path; symlink targets), then
# the sha256 of every regular file's data.
tree() {
	mount_img "$1" tmnt ro,noload || return 1
	(cd tmnt && find . -printf '%y %m %s %n %p %l\n' | LC_ALL=C sort) >"$2"
	(cd tmnt && find . -type f -exec sha256sum {} + | LC_ALL=C sort -k2) \
		>>"$2"
	cleanup_mounts
}

# extents IMAGE OUT: every leaf extent of every inode (lblk, pblk, len,
# unwritten), as e4tune -v --list-unwritten lists a clean image.
extents() {
	"$E4TUNE" -v --list-unwritten "$1" | grep '^ *[0-9]' >"$2"
}

# fsck_rc IMAGE: the exit status of e2fsck -fn on IMAGE (output in
# fsck.out).
fsck_rc() {
	set +e
	e2fsck -fn "$1" >fsck.out 2>&1
	echo $?
	set -e
}

# same WHAT A B: fail with a diff unless files A and B are equal.
same() {
	if ! cmp -s "$2" "$3"; then
		diff "$2" "$3" | head -n 20
		fail "$1"
	fi
	echo "ok: $1"
}
