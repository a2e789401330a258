# unwritten.sh --- helpers of the unwritten-extent tests (tests/u_*): turn
# the extent listings of debugfs, e4tune and filefrag into one format and
# model what a mark should do.  Loaded by tests/test_lib.sh.
#
# Run format, one extent per line: "LBLK PBLK LEN U" or "LBLK PBLK LEN W".

# dfs_runs IMG FILE: leaf extents of FILE from `debugfs -R "ex FILE"`.
dfs_runs() {
	debugfs -c -R "ex $2" "$1" 2>/dev/null | sed 's#/# / #g' |
		awk '$1 ~ /^[0-9]+$/ && $1 == $3 && NF >= 13 {
			print $7, $10, $13, ($14 == "Uninit" ? "U" : "W") }'
}

# dfs_depth IMG FILE: the extent tree depth debugfs shows for FILE.
dfs_depth() {
	debugfs -c -R "ex $2" "$1" 2>/dev/null | sed 's#/# / #g' |
		awk '$1 ~ /^[0-9]+$/ { print $3; exit }'
}

# e4_runs IMG FILE: leaf extents of FILE from e4tune -v --list-unwritten.
e4_runs() {
	"$E4TUNE" -v --list-unwritten "$1" "$2" |
		awk '$1 ~ /^[0-9]+$/ { print $2, $5, $8, ($9 == "unwritten" ? "U" : "W") }'
}

# e4_uw_runs IMG [FILE...]: unwritten extents only, "INO LBLK PBLK LEN".
e4_uw_runs() {
	img=$1; shift
	"$E4TUNE" --list-unwritten "$img" "$@" |
		awk '$1 ~ /^[0-9]+$/ { print $1, $2, $5, $8 }'
}

# ff_runs MOUNTED_FILE: extents from filefrag -v (fs-block units).
ff_runs() {
	filefrag -v "$1" | sed 's/\.\./ /g; s/:/ /g' |
		awk '$1 ~ /^[0-9]+$/ && NF >= 6 {
			print $2, $4, $6, (/unwritten/ ? "U" : "W") }'
}

# canon: merge neighbouring runs that continue each other (lblk and pblk)
# with the same flag, ignoring maximum lengths: two listings that map every
# block the same way have the same canon.
canon() {
	sort -n -k1,1 | awk '
	function flush() { if (n) print l, p, len, f }
	{ if (n && $1 == l + len && $2 == p + len && $4 == f) { len += $3; next }
	  flush(); l = $1; p = $2; len = $3; f = $4; n = 1 }
	END { flush() }'
}

# model LBLK LEN U|W: runs on stdin with [LBLK, LBLK+LEN) set to the flag,
# canonical.
model() {
	awk -v a="$1" -v b="$(($1 + $2))" -v g="$3" '
	{ s = $1; e = $1 + $3
	  if (e <= a || s >= b) { print; next }
	  if (s < a) print s, $2, a - s, $4
	  lo = s > a ? s : a; hi = e < b ? e : b
	  print lo, $2 + lo - s, hi - lo, g
	  if (e > b) print b, $2 + b - s, e - b, $4 }' | canon
}

# check_maxlen RUNS_FILE: every unwritten extent <= 32767 blocks, every
# written one <= 32768 (kernel ext4_extents.h EXT_UNWRITTEN_MAX_LEN,
# EXT_INIT_MAX_LEN).
check_maxlen() {
	bad=$(awk '($4 == "U" && $3 > 32767) || ($4 == "W" && $3 > 32768)' "$1")
	[ -z "$bad" ] || fail "extent over the maximum length: $bad"
}

# fsck_clean IMG: e2fsck -fn finds nothing.
fsck_clean() {
	e2fsck -fn "$1" >fsck.out 2>&1 || {
		cat fsck.out; fail "e2fsck -fn $1 is not clean"; }
	echo "ok: e2fsck -fn clean"
}

# mark_check IMG FILE LBLK LEN U|W [e4tune options]: run the mark, then
# check that debugfs's listing equals the model of the one before, that
# e4tune's listing equals debugfs's, the maximum lengths, and e2fsck.
mark_check() {
	mi=$1 mf=$2 ml=$3 mn=$4 mg=$5
	shift 5
	dfs_runs "$mi" "$mf" >before.runs
	if [ "$mg" = U ]; then opt=--mark-unwritten; else opt=--mark-written; fi
	"$E4TUNE" "$@" $opt "$mf:$ml:$mn" "$mi" ||
		fail "e4tune $* $opt $mf:$ml:$mn failed"
	model "$ml" "$mn" "$mg" <before.runs >want.runs
	dfs_runs "$mi" "$mf" >after.runs
	canon <after.runs >got.runs
	cmp -s want.runs got.runs || {
		diff want.runs got.runs; fail "$mf $ml+$mn $mg: map differs"; }
	e4_runs "$mi" "$mf" >e4.runs
	cmp -s after.runs e4.runs || {
		diff after.runs e4.runs; fail "$mf: e4tune listing != debugfs"; }
	check_maxlen after.runs
	fsck_clean "$mi"
	echo "ok: $mf $ml+$mn -> $mg ($(wc -l <after.runs) extents)"
}

# dump_file IMG FILE OUT: read FILE through libext2fs (debugfs dump zero
# fills unwritten extents, as the kernel reads them).
dump_file() {
	rm -f "$3"
	debugfs -c -R "dump $2 $3" "$1" >/dev/null 2>&1
	[ -f "$3" ] || fail "debugfs could not dump $2"
}

# blocks_of SRC LBLK LEN BS: LEN blocks of SRC from LBLK.
blocks_of() {
	dd if="$1" bs="$4" skip="$2" count="$3" 2>/dev/null
}

# expect_bytes FILE WANT_FILE WHAT: compare, failing with WHAT.
expect_bytes() {
	cmp -s "$1" "$2" || fail "$3: contents differ"
	echo "ok: $3"
}

# zeros N BS: N zero blocks.
zeros() {
	dd if=/dev/zero bs="$2" count="$1" 2>/dev/null
}

# kernel_read IMG FILE OUT: read FILE as the kernel does (mount -o ro);
# returns 1 when mounting is impossible.
kernel_read() {
	can_mount || return 1
	mount_img "$1" "$T/mnt" ro,noload || return 1
	cat "$T/mnt/$2" >"$3"
	cleanup_mounts
	return 0
}
