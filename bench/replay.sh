#!/bin/sh
# bench/replay.sh --- time e4replay against e2fsck -E journal_only -y on
# the same large kernel crash image, side by side, several runs; print the
# medians, the ratio and peak RSS (/usr/bin/time -v).  Needs root and
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

median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

# secs_rss CMD...: run CMD under /usr/bin/time -v; print "secs kbytes
# cpu_secs" (wall clock, peak RSS, user + system time).
secs_rss() {
	/usr/bin/time -v "$@" >/dev/null 2>"$BENCH_DIR/time.txt" || :
	awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, t, ":");
			s = 0; for (i = 1; i <= n; i++) s = s * 60 + t[i] }
		/Maximum resident/ { r = $2 }
		/User time|System time/ { c += $2 }
		END { printf "%.3f %d %.2f\n", s, r, c }' "$BENCH_DIR/time.txt"
}

: >"$BENCH_DIR/e4.txt"
: >"$BENCH_DIR/fsck.txt"
: >"$BENCH_DIR/dbg.txt"
run=1
while [ $run -le "$RUNS" ]; do
	cp --sparse=always "$crash" "$BENCH_DIR/a.img"
	cp --sparse=always "$crash" "$BENCH_DIR/b.img"
	cat "$BENCH_DIR/a.img" "$BENCH_DIR/b.img" >/dev/null	# warm cache
	secs_rss "$E4REPLAY" "$BENCH_DIR/a.img" >>"$BENCH_DIR/e4.txt"
	secs_rss e2fsck -E journal_only -y "$BENCH_DIR/b.img" \
		>>"$BENCH_DIR/fsck.txt"
	if [ -n "$DEBUGFS" ]; then
		cp --sparse=always "$crash" "$BENCH_DIR/c.img"
		cat "$BENCH_DIR/c.img" >/dev/null
		secs_rss debugfs -w -R journal_run "$BENCH_DIR/c.img" \
			>>"$BENCH_DIR/dbg.txt"
		rm -f "$BENCH_DIR/c.img"
	fi
	echo "run $run: e4replay $(tail -n 1 "$BENCH_DIR/e4.txt")," \
		"e2fsck $(tail -n 1 "$BENCH_DIR/fsck.txt")" \
		"${DEBUGFS:+debugfs $(tail -n 1 "$BENCH_DIR/dbg.txt")} (s, KiB, cpu s)"
	run=$((run + 1))
done
# Same result (less s_wtime, s_kbytes_written, s_checksum).
. "$TOP/tests/test_lib.sh"
zero_sb_times "$BENCH_DIR/a.img"
zero_sb_times "$BENCH_DIR/b.img"
if cmp -s "$BENCH_DIR/a.img" "$BENCH_DIR/b.img"; then same=yes; else same=NO; fi
rm -f "$BENCH_DIR/a.img" "$BENCH_DIR/b.img"
e4=$(cut -d' ' -f1 "$BENCH_DIR/e4.txt" | median)
fk=$(cut -d' ' -f1 "$BENCH_DIR/fsck.txt" | median)
e4r=$(cut -d' ' -f2 "$BENCH_DIR/e4.txt" | median)
fkr=$(cut -d' ' -f2 "$BENCH_DIR/fsck.txt" | median)
e4c=$(cut -d' ' -f3 "$BENCH_DIR/e4.txt" | median)
fkc=$(cut -d' ' -f3 "$BENCH_DIR/fsck.txt" | median)
echo "median of $RUNS: e4replay $e4 s ($e4r KiB peak RSS)," \
	"e2fsck -E journal_only $fk s ($fkr KiB); ratio" \
	"$(awk -v a="$fk" -v b="$e4" 'BEGIN { printf "%.2f", (b > 0) ? a / b : 0 }')x;" \
	"${DEBUGFS:+debugfs journal_run $(cut -d' ' -f1 "$BENCH_DIR/dbg.txt" | median) s;}" \
	"cpu e4replay $e4c s, e2fsck $fkc s;" \
	"identical results: $same"
