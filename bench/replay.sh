#!/bin/sh
# bench/replay.sh --- time e4replay against e2fsck -E journal_only -y on
# the same large kernel crash image, side by side, several runs; print the
# medians, ranges, the ratios and peak RSS (/usr/bin/time -v) of one
# interleaved run, and check each run's result against e2fsck's.  Needs root and
# loop mounts to make the image (kept in $BENCH_DIR for later runs).
#
# The image: a 2176 MiB ext4 with a 1 GiB journal (mke2fs refuses a
# journal of half the fs), mounted data=journal, then BATCHES fsync'ed
# writes of BATCH_MB each (hundreds of committed transactions, data
# blocks in the log), then shut down without a log flush (xfs_io
# shutdown) and copied while still mounted.
#
# Usage: bench/replay.sh            (BENCH_DIR=bench/out RUNS=5)
#        DEBUGFS=1 bench/replay.sh  (also time debugfs -w -R journal_run)
#        BENCH_DIR=/dev/shm/e4b bench/replay.sh   (image on tmpfs)
#        E4ARGS=--replay-anyway bench/replay.sh   (options for e4replay)
set -e
TOP=$(cd "$(dirname "$0")/.." && pwd)
E4REPLAY=${E4REPLAY:-$TOP/misc/e4replay}
BENCH_DIR=${BENCH_DIR:-$TOP/bench/out}
RUNS=${RUNS:-5}
BATCHES=${BATCHES:-300}
BATCH_MB=${BATCH_MB:-2}
mkdir -p "$BENCH_DIR"
crash=$BENCH_DIR/big-crash.img
mnt=$BENCH_DIR/mnt

make_image() {
	img=$BENCH_DIR/big.img
	rm -f "$img"
	truncate -s 2176M "$img"
	mkfs.ext4 -q -F -b 4096 -J size=1024 -E nodiscard "$img"
	mkdir -p "$mnt"
	mount -o loop,data=journal "$img" "$mnt"
	trap 'umount "$mnt" 2>/dev/null || :' EXIT
	head -c $((BATCH_MB << 20)) /dev/urandom >"$BENCH_DIR/batch"
	i=0
	while [ $i -lt "$BATCHES" ]; do
		dd if="$BENCH_DIR/batch" of="$mnt/f$i" bs=1M conv=fsync \
			status=none
		i=$((i + 1))
	done
	xfs_io -x -c shutdown "$mnt"
	cp --sparse=always "$img" "$crash"
	umount "$mnt"
	trap - EXIT
	rm -f "$img" "$BENCH_DIR/batch"
}

[ -f "$crash" ] || make_image
"$E4REPLAY" -n "$crash" | tail -n 2

. "$TOP/bench/lib.sh"

# One interleaved run: A B A B ... (e4replay, e2fsck on fresh copies of
# the image, page cache warm); every run compares the two results.
: >"$BENCH_DIR/e4.txt"
: >"$BENCH_DIR/fsck.txt"
: >"$BENCH_DIR/dbg.txt"
same=yes
run=1
while [ $run -le "$RUNS" ]; do
	cp --sparse=always "$crash" "$BENCH_DIR/a.img"
	cp --sparse=always "$crash" "$BENCH_DIR/b.img"
	cat "$BENCH_DIR/a.img" "$BENCH_DIR/b.img" >/dev/null	# warm cache
	# shellcheck disable=SC2086 # E4ARGS: options, split on purpose
	secs_rss "$E4REPLAY" $E4ARGS "$BENCH_DIR/a.img" >>"$BENCH_DIR/e4.txt"
	secs_rss e2fsck -E journal_only -y "$BENCH_DIR/b.img" \
		>>"$BENCH_DIR/fsck.txt"
	if [ -n "$DEBUGFS" ]; then
		cp --sparse=always "$crash" "$BENCH_DIR/c.img"
		cat "$BENCH_DIR/c.img" >/dev/null
		secs_rss debugfs -w -R journal_run "$BENCH_DIR/c.img" \
			>>"$BENCH_DIR/dbg.txt"
		rm -f "$BENCH_DIR/c.img"
	fi
	# Same result (less s_wtime, s_kbytes_written, s_checksum).
	s=$(same_image "$BENCH_DIR/a.img" "$BENCH_DIR/b.img")
	[ "$s" = yes ] || same=NO
	echo "run $run: e4replay $(tail -n 1 "$BENCH_DIR/e4.txt")," \
		"e2fsck $(tail -n 1 "$BENCH_DIR/fsck.txt")" \
		"${DEBUGFS:+debugfs $(tail -n 1 "$BENCH_DIR/dbg.txt")} (s, KiB, cpu s);" \
		"identical: $s"
	run=$((run + 1))
done
rm -f "$BENCH_DIR/a.img" "$BENCH_DIR/b.img"
[ "$RUNS" -gt 0 ] || exit 0
e4=$BENCH_DIR/e4.txt
fk=$BENCH_DIR/fsck.txt
echo "median (min-max) of $RUNS interleaved runs:"
printf '  %-22s ' "e4replay${E4ARGS:+ $E4ARGS}"
echo "wall $(col "$e4" 1) s, cpu $(col "$e4" 3) s," \
	"peak RSS $(col "$e4" 2) KiB"
echo "  e2fsck -E journal_only wall $(col "$fk" 1) s, cpu $(col "$fk" 3) s," \
	"peak RSS $(col "$fk" 2) KiB"
[ -z "$DEBUGFS" ] || echo "  debugfs journal_run    wall" \
	"$(col "$BENCH_DIR/dbg.txt" 1) s, cpu $(col "$BENCH_DIR/dbg.txt" 3) s"
echo "  e2fsck / e4replay: wall $(ratio "$(med "$fk" 1)" "$(med "$e4" 1)")x," \
	"cpu $(ratio "$(med "$fk" 3)" "$(med "$e4" 3)")x;" \
	"identical results in every run: $same"
