# itable.sh --- shell helpers of the i_* (lazy inode table) tests; loaded
# by tests/test_lib.sh.  Oracles: dumpe2fs, debugfs, e2fsck, the
# kernel (loop mount).

# d2_groups IMG: one line per group from dumpe2fs: "G FLAGS START END
# UNUSED", FLAGS as e4tune -v prints them (comma-joined, or -).
d2_groups() {
	dumpe2fs "$1" 2>/dev/null | awk '
	function out() { if (g != "") print g, f, s, e, u }
	/^Group [0-9]+:/ { out(); g = $2; sub(":", "", g); f = "-"
		if (match($0, /\[.*\]/)) {
			f = substr($0, RSTART + 1, RLENGTH - 2); gsub(/ /, "", f)
		}
		s = e = u = "" }
	/Inode table at/ { split($4, r, "-"); s = r[1]; e = r[2] }
	/unused inodes/ { for (i = 1; i <= NF; i++)
		if ($i == "unused") u = $(i - 1) }
	END { out() }'
}

# e4_groups IMG: the same five columns from e4tune -v's table.
e4_groups() {
	"$E4TUNE" -l -v "$1" 2>/dev/null | awk '
	/^ *Group Flags/ { t = 1; next }
	t && NF == 7 { split($3, r, "-"); print $1, $2, r[1], r[2], $4 }'
}

# hdr IMG LABEL: a dumpe2fs -h field.
hdr() { dumpe2fs -h "$1" 2>/dev/null | sed -n "s/^$2: *//p" | head -n 1; }

# keep_blocks FLAGS UNUSED IPG IPB: inode table blocks the kernel keeps
# (fs/ext4/ialloc.c ext4_init_inode_table(): 0 with INODE_UNINIT, else
# DIV_ROUND_UP(inodes_per_group - itable_unused, inodes_per_block)).
keep_blocks() {
	case $1 in
	*INODE_UNINIT*) echo 0 ;;
	*) echo $((($3 - $2 + $4 - 1) / $4)) ;;
	esac
}

# nonzero_bytes IMG BS START COUNT: non-zero bytes in fs blocks
# [START, START+COUNT).
nonzero_bytes() {
	[ "$4" -gt 0 ] || { echo 0; return; }
	dd if="$1" bs="$2" skip="$3" count="$4" 2>/dev/null |
		tr -d '\000' | wc -c
}

# range_sha IMG BS START COUNT
range_sha() {
	dd if="$1" bs="$2" skip="$3" count="$4" 2>/dev/null | sha256sum |
		cut -d' ' -f1
}

# list_paths IMG: "TYPE PATH" for every path in the fs, TYPE d
# (directory), f (regular file) or o (other); from debugfs ls -p, breadth
# first.
list_paths() {
	echo / >queue.txt
	while [ -s queue.txt ]; do
		dir=$(head -n 1 queue.txt)
		sed -i 1d queue.txt
		debugfs -R "ls -p $dir" "$1" 2>/dev/null </dev/null |
		while IFS=/ read -r _ ino mode uid gid name size _; do
			[ -n "$name" ] || continue
			case $name in .|..) continue ;; esac
			p="${dir%/}/$name"
			case $mode in
			04*) echo "d $p"; echo "$p" >>queue.txt ;;
			10*) echo "f $p" ;;
			*) echo "o $p" ;;
			esac
		done
	done
}

# stat_all IMG PATHSFILE OUT: debugfs stat of every path, one run.
stat_all() {
	sed 's/^. /stat /' "$2" >stat.cmd
	debugfs -f stat.cmd "$1" >"$3" 2>/dev/null </dev/null
	[ -s "$3" ] || fail "debugfs stat of $1 printed nothing"
}

# file_shas IMG PATHSFILE OUT: "sha path" of every regular file, read
# through debugfs dump (one debugfs run).
file_shas() {
	rm -rf dumpdir
	mkdir dumpdir
	grep '^f ' "$2" | cut -c3- | awk '{ print "dump " $0 " dumpdir/" NR }' \
		>dump.cmd
	debugfs -f dump.cmd "$1" >/dev/null 2>&1 </dev/null
	grep '^f ' "$2" | cut -c3- | awk '{ print NR, $0 }' |
	while read -r n p; do
		[ -f "dumpdir/$n" ] || fail "debugfs could not dump $p"
		echo "$(sha "dumpdir/$n") $p"
	done >"$3"
	rm -rf dumpdir
}

# check_listing IMG: e4tune -v's per-group flags, table and itable_unused
# equal dumpe2fs's, and its summary counts follow from them.
check_listing() {
	d2_groups "$1" >d2.txt
	e4_groups "$1" >e4.txt
	[ -s d2.txt ] || fail "dumpe2fs listed no groups"
	cmp -s d2.txt e4.txt || { diff d2.txt e4.txt; fail "per-group listing differs from dumpe2fs"; }
	echo "ok: per-group listing = dumpe2fs ($(wc -l <d2.txt) groups)"
	ipg=$(hdr "$1" "Inodes per group")
	bs=$(hdr "$1" "Block size")
	ipb=$((bs / $(hdr "$1" "Inode size")))
	want=$(while read -r g f s e u; do
		case $f in *ITABLE_ZEROED*) continue ;; esac
		echo $((e - s + 1 - $(keep_blocks "$f" "$u" "$ipg" "$ipb")))
	done <d2.txt | awk '{ n++; b += $1 } END { printf "%d groups, %d blocks", n, b }')
	got=$("$E4TUNE" -l "$1" | sed -n 's/^Lazy inode table init: .*; //p' |
		sed 's/ to zero$//')
	assert_eq "summary" "$want" "$got"
	# --json carries the same per-group values and counts.
	"$E4TUNE" -l --json "$1" >j.json || fail "--json"
	assert_eq "json itable_unused" "$(awk '{ print $5 }' d2.txt | tr '\n' ' ')" \
		"$(sed -n 's/.*"itable_unused": \([0-9]*\).*/\1/p' j.json | tr '\n' ' ')"
	jg=$(sed -n 's/.*"to_zero_groups": \([0-9]*\).*/\1/p' j.json)
	jb=$(sed -n 's/.*"to_zero_blocks": \([0-9]*\).*/\1/p' j.json)
	assert_eq "json summary" "$want" "$jg groups, $jb blocks"
}

# check_finish IMG [MOUNT]: finish lazy init on IMG and check it against
# the oracles; with MOUNT=1 also read every file through a loop mount.
check_finish() {
	i=$1
	check_listing "$i"
	cp d2.txt before.txt
	list_paths "$i" >paths.txt
	stat_all "$i" paths.txt stat.before
	file_shas "$i" paths.txt shas.before
	echo "ok: $(wc -l <paths.txt) paths, $(wc -l <shas.before) files"
	# The kept part of each table, before.
	while read -r g f s e u; do
		k=$(keep_blocks "$f" "$u" "$ipg" "$ipb")
		echo "$g $(range_sha "$i" "$bs" "$s" "$k")"
	done <before.txt >keep.before
	du0=$(du -k "$i" | cut -f1)

	h=$(sha "$i")
	"$E4TUNE" -n -E lazy_itable_init=0 "$i" >n.out
	assert_eq "-n: sha256 unchanged" "$h" "$(sha "$i")"
	grep -q "would zero the inode tables of $(echo "$want" |
		sed 's/ groups, / groups (/')" n.out ||
		fail "-n output: $(cat n.out)"

	"$E4TUNE" -E lazy_itable_init=0 "$i" >fin.out || fail "finish failed"
	cat fin.out

	d2_groups "$i" >after.txt
	awk '$2 !~ /ITABLE_ZEROED/ { print "group " $1 " lacks ITABLE_ZEROED"; bad = 1 }
		END { exit bad }' after.txt || fail "dumpe2fs: ITABLE_ZEROED missing"
	echo "ok: dumpe2fs shows ITABLE_ZEROED on every group"
	sed 's/,ITABLE_ZEROED//; s/ ITABLE_ZEROED / - /' after.txt >a.txt
	sed 's/,ITABLE_ZEROED//; s/ ITABLE_ZEROED / - /' before.txt >b.txt
	cmp -s a.txt b.txt || { diff b.txt a.txt; fail "other group fields changed"; }
	while read -r g f s e u; do
		k=$(keep_blocks "$f" "$u" "$ipg" "$ipb")
		nz=$(nonzero_bytes "$i" "$bs" $((s + k)) $((e - s + 1 - k)))
		[ "$nz" = 0 ] || fail "group $g: $nz non-zero bytes in zeroed part"
		echo "$g $(range_sha "$i" "$bs" "$s" "$k")"
	done <before.txt >keep.after
	echo "ok: unused parts of every inode table read as zeroes"
	cmp -s keep.before keep.after || fail "kept inode table blocks changed"
	echo "ok: kept inode table blocks unchanged"
	stat_all "$i" paths.txt stat.after
	cmp -s stat.before stat.after || { diff stat.before stat.after | head; fail "debugfs stat changed"; }
	echo "ok: debugfs stat of every path unchanged"
	expect_rc 0 e2fsck -fn "$i"
	echo "ok: e2fsck -fn clean"
	du1=$(du -k "$i" | cut -f1)
	[ "$du1" -le "$du0" ] || fail "image grew on disk: ${du0}k -> ${du1}k"
	echo "ok: du ${du0}k -> ${du1}k"
	check_listing "$i"
	h=$(sha "$i")
	"$E4TUNE" -E lazy_itable_init=0 "$i" >fin2.out
	grep -q "inode tables of 0 groups" fin2.out || fail "$(cat fin2.out)"
	assert_eq "second finish writes nothing" "$h" "$(sha "$i")"

	[ "${2:-0}" = 1 ] || return 0
	if ! can_mount; then
		skip_part "loop mount impossible here; kernel read skipped"
		return 0
	fi
	mount_img "$i" mnt ro || fail "kernel refused to mount $i"
	while read -r s p; do
		[ "$s" = "$(sha "mnt$p")" ] || fail "kernel read of $p differs"
	done <shas.before
	echo "ok: kernel mounted it and read all $(wc -l <shas.before) files"
	cleanup_mounts
}

# stamp FILE SIZE: a file of SIZE (dd units) filled with 0xA5, so that
# blocks nobody writes are visibly not zero.
stamp() {
	dd if=/dev/zero bs=1M count="$2" 2>/dev/null | tr '\000' '\245' >"$1"
}
