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

# best_of CMD...: the fastest of $RUNS wall-clock runs, in seconds, with
# the page cache warm for both tools (one untimed run first).
best_of() {
	"$@" >/dev/null 2>&1 || :
	best=""
	r=0
	while [ $r -lt $RUNS ]; do
		s=$(date +%s.%N)
		"$@" >/dev/null 2>&1 || :
		e=$(date +%s.%N)
		t=$(echo "$e - $s" | bc)
		if [ -z "$best" ] || [ "$(echo "$t < $best" | bc)" = 1 ]; then
			best=$t
		fi
		r=$((r + 1))
	done
	echo "$best"
}

# peak RSS in KiB, when GNU time is there
rss() {
	if [ -x /usr/bin/time ]; then
		/usr/bin/time -f %M "$@" 2>&1 >/dev/null | tail -n 1
	else
		echo "n/a"
	fi
}

"$E4TUNE" --list-unwritten "$IMG" | tail -n 6
e4=$(best_of "$E4TUNE" --list-unwritten "$IMG")
fsck=$(best_of e2fsck -fn "$IMG")
printf '%-40s %10s %12s\n' "$N files x $BLOCKS blocks, stride $STRIDE" \
	"best of $RUNS s"
printf '%-40s %10s %12s\n' "" "seconds" "peak RSS KiB"
printf '%-40s %10.3f %12s\n' "e4tune --list-unwritten" "$e4" \
	"$(rss "$E4TUNE" --list-unwritten "$IMG")"
printf '%-40s %10.3f %12s\n' "e2fsck -fn" "$fsck" "$(rss e2fsck -fn "$IMG")"
echo "ratio e4tune / e2fsck: $(echo "scale=3; $e4 / $fsck" | bc)"
