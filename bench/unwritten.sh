#!/bin/sh
# unwritten.sh --- benchmark: e4tune's fs-wide unwritten-extent listing
# against e2fsck -fn (which walks the same inodes and extent trees) on the
# same image, side by side.  Builds (once) an image with N files (default
# 100000) made by the kernel through a loop mount, each fallocated to
# BLOCKS blocks (default 8); with STRIDE 0 (default) every other file then
# gets an O_DIRECT write in the middle (3 extents, 2 unwritten), with
# STRIDE s every file gets one at every s-th block (depth-1 trees: try
# 5000 512 16).  Needs root and loop mounts.
# Usage: bench/unwritten.sh [N [BLOCKS [STRIDE [IMAGE]]]]  (after make;
# the image is kept in /tmp for reruns)
set -e
TOP=$(cd "$(dirname "$0")/.." && pwd)
N=${1:-100000}
BLOCKS=${2:-8}
STRIDE=${3:-0}
IMG=${4:-/tmp/e4bench-unwritten-$N-$BLOCKS-$STRIDE.img}
E4TUNE=$TOP/misc/e4tune
RUNS=3

if [ ! -f "$IMG" ]; then
	echo "building $IMG with $N files..."
	cc -O2 -o /tmp/e4bench-mkfiles "$TOP/bench/mkfiles.c"
	truncate -s $(( (N * BLOCKS / 200000 + 8) ))G "$IMG.tmp"
	mkfs.ext4 -q -F -b 4096 -E nodiscard -N $((N + 20000)) "$IMG.tmp"
	mnt=$(mktemp -d)
	mount -o loop "$IMG.tmp" "$mnt"
	trap 'umount "$mnt" 2>/dev/null; rmdir "$mnt"' EXIT
	/tmp/e4bench-mkfiles "$mnt" "$N" "$BLOCKS" 4096 "$STRIDE"
	umount "$mnt"
	rmdir "$mnt"
	trap - EXIT
	mv "$IMG.tmp" "$IMG"
fi

# measure CMD...: "WALL CPU RSS" of the best of $RUNS runs (GNU time):
# least wall-clock seconds, least user+sys CPU seconds, largest peak RSS
# KiB; one untimed run first so that both tools find the page cache warm.
# On a shared machine CPU seconds are the steadier figure.
measure() {
	"$@" >/dev/null 2>&1 || :
	r=0
	while [ $r -lt $RUNS ]; do
		/usr/bin/time -o time.out -f "%e %U %S %M" "$@" >/dev/null \
			2>&1 || :
		tail -n 1 time.out
		r=$((r + 1))
	done | awk 'NR == 1 || $1 < w { w = $1 }
		NR == 1 || $2 + $3 < c { c = $2 + $3 }
		$4 > m { m = $4 }
		END { printf "%.3f %.3f %d\n", w, c, m }'
	rm -f time.out
}

[ -x /usr/bin/time ] || { echo "needs GNU time (apt-get install time)"; exit 1; }
cd "$(mktemp -d)"
"$E4TUNE" --list-unwritten "$IMG" | tail -n 6
set -- $(measure "$E4TUNE" --list-unwritten "$IMG")
ew=$1 ec=$2 em=$3
set -- $(measure e2fsck -fn "$IMG")
fw=$1 fc=$2 fm=$3
echo "$N files x $BLOCKS blocks, stride $STRIDE; best of $RUNS runs"
printf '%-26s %10s %10s %12s\n' "" "wall s" "CPU s" "peak RSS KiB"
printf '%-26s %10s %10s %12s\n' "e4tune --list-unwritten" "$ew" "$ec" "$em"
printf '%-26s %10s %10s %12s\n' "e2fsck -fn" "$fw" "$fc" "$fm"
awk -v a="$ew" -v b="$fw" -v c="$ec" -v d="$fc" 'BEGIN {
	printf "e4tune / e2fsck: wall %.2f, CPU %.2f\n", a / b, (d ? c / d : 0) }'
