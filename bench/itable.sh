#!/bin/sh
# itable.sh --- benchmark e4tune -E lazy_itable_init=0 (finish lazy inode
# table init offline) against e2fsprogs: mke2fs -E lazy_itable_init=0 on the
# same geometry, side by side.  Measures wall time, peak RSS
# (/usr/bin/time -v) and host allocation (du) of a sparse image.
# Targets (issue 6): no slower than mke2fs's zeroing, peak RSS < 32 MiB,
# du grows < 64 MiB.
#
# Usage: bench/itable.sh [SIZE [DIR]]   (defaults: 1T, /work/bench-itable)
# Needs about 20 GiB free in DIR for the mke2fs reference image (its
# ZERO_RANGE allocates every inode table block) unless SKIP_REF=1.
set -e
SIZE=${1:-1T}
DIR=${2:-/work/bench-itable}
TOP=$(cd "$(dirname "$0")/.." && pwd)
E4TUNE=$TOP/misc/e4tune
MKFS="mke2fs -q -F -t ext4 -b 4096"
[ -x "$E4TUNE" ] || { echo "build first: ./configure && make" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "needs /usr/bin/time (Debian: time)" >&2; exit 1; }
mkdir -p "$DIR"
avail=$(df -k --output=avail "$DIR" | tail -n 1)
echo "free in $DIR: $((avail / 1024 / 1024)) GiB"
if [ -z "$SKIP_REF" ] && [ "$avail" -lt $((24 * 1024 * 1024)) ]; then
	echo "less than 24 GiB free: rerun with SKIP_REF=1" >&2
	exit 1
fi
img=$DIR/lazy.img
ref=$DIR/ref.img
trap 'rm -f "$img" "$ref" "$DIR"/*.time "$DIR"/*.out "$DIR"/geo.*' EXIT

du_k() { du -k "$1" | cut -f1; }
# timed NAME CMD...: run under /usr/bin/time -v; prints "secs rss_kib".
timed() {
	n=$1; shift
	/usr/bin/time -v -o "$DIR/$n.time" "$@" >"$DIR/$n.out"
	s=$(sed -n 's/.*Elapsed (wall clock) time.*: //p' "$DIR/$n.time" |
		awk -F: '{ t = 0; for (i = 1; i <= NF; i++) t = t * 60 + $i; print t }')
	r=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$DIR/$n.time")
	echo "$s $r"
}

rm -f "$img" "$ref"
truncate -s "$SIZE" "$img"
set -- $(timed mkfs_lazy $MKFS -E lazy_itable_init=1,nodiscard "$img")
t_mkfs=$1 r_mkfs=$2
du0=$(du_k "$img")
sum=$("$E4TUNE" -l "$img" | sed -n 's/^Lazy inode table init: *//p')
echo "lazy mkfs: $sum"
set -- $(timed finish "$E4TUNE" -E lazy_itable_init=0 "$img")
t_fin=$1 r_fin=$2
du1=$(du_k "$img")
left=$("$E4TUNE" -l "$img" | sed -n 's/^Lazy inode table init: *//p')
cat "$DIR/finish.out"
echo "after e4tune: $left"
if [ -n "$CHECK" ]; then
	e2fsck -fn "$img" >/dev/null && echo "e2fsck -fn: clean"
fi
geo() {
	dumpe2fs -h "$1" 2>/dev/null | grep -E '^(Block count|Inode count|Inodes per group|Flex block group size|Inode size):'
}
geo "$img" >"$DIR/geo.lazy"

if [ -z "$SKIP_REF" ]; then
	truncate -s "$SIZE" "$ref"
	set -- $(timed mkfs_zero $MKFS -E lazy_itable_init=0,nodiscard "$ref")
	t_ref=$1 r_ref=$2
	du2=$(du_k "$ref")
	geo "$ref" >"$DIR/geo.ref"
	cmp -s "$DIR/geo.lazy" "$DIR/geo.ref" || {
		echo "geometry differs:" >&2; diff "$DIR/geo.lazy" "$DIR/geo.ref" >&2
	}
fi

echo
echo "image: $SIZE sparse, 4 KiB blocks, ext4 defaults, on $(findmnt -n -o FSTYPE -T "$DIR")"
printf '%-44s %10s %12s %14s\n' "step" "wall s" "peak RSS KiB" "du after KiB"
printf '%-44s %10s %12s %14s\n' "mke2fs -E lazy_itable_init=1,nodiscard" \
	"$t_mkfs" "$r_mkfs" "$du0"
printf '%-44s %10s %12s %14s\n' "e4tune -E lazy_itable_init=0" \
	"$t_fin" "$r_fin" "$du1 (+$(((du1 - du0) / 1024)) MiB)"
[ -n "$SKIP_REF" ] ||
printf '%-44s %10s %12s %14s\n' "mke2fs -E lazy_itable_init=0,nodiscard" \
	"$t_ref" "$r_ref" "$du2"
