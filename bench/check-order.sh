#!/bin/sh
# bench/check-order.sh --- time `e4replay --check-order` against plain
# replay (`e4replay -o`) and e2fsck -E journal_only on the same large
# kernel crash image, side by side, several runs; print medians, ratios and
# peak RSS (/usr/bin/time -v).  Target (issue 4): the check takes at most
# 3x plain replay; its memory is bounded by the inodes the transactions
# touch, not by the fs size.
#
# The image is bench/replay.sh's (2176 MiB ext4, 1 GiB journal, data=journal,
# hundreds of fsync'ed batches, shut down without a log flush): give it as
# CRASH=path, or it is made by bench/replay.sh in $BENCH_DIR (root, loop
# mounts).  --outside=no leaves out the read of every initialized block
# after the window (outside the speed target); it is timed separately.
#
# Usage: bench/check-order.sh   (BENCH_DIR=bench/out RUNS=5 [CRASH=img])
#
# Measured 2026-11-30 (2 vCPUs, load average ~8 from other jobs; the image:
# 300 x 2 MiB data=journal batches, 301 committed transactions, ~154k log
# blocks, not stamped): median of 3: check 6.61 s (42.8 MiB peak RSS),
# replay -o 3.96 s (30.9 MiB, includes the sparse copy), e2fsck -E
# journal_only 6.58 s (2.9 MiB); check / replay -o = 1.67x (target <= 3x).
# The check's memory is the S_k map (one entry per logged fs block, two
# live states), the touched inodes' mappings and the new mappings seen; it
# does not grow with the fs size.
set -e
TOP=$(cd "$(dirname "$0")/.." && pwd)
E4REPLAY=${E4REPLAY:-$TOP/misc/e4replay}
BENCH_DIR=${BENCH_DIR:-$TOP/bench/out}
RUNS=${RUNS:-5}
mkdir -p "$BENCH_DIR"
crash=${CRASH:-$BENCH_DIR/big-crash.img}
if [ ! -f "$crash" ]; then
	RUNS=0 BENCH_DIR=$BENCH_DIR sh "$TOP/bench/replay.sh" >/dev/null
fi

median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

# secs_rss CMD...: "secs kbytes" (wall clock, peak RSS) of CMD.
secs_rss() {
	/usr/bin/time -v "$@" >/dev/null 2>"$BENCH_DIR/time.txt" || :
	awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, t, ":");
			s = 0; for (i = 1; i <= n; i++) s = s * 60 + t[i] }
		/Maximum resident/ { r = $2 }
		END { printf "%.3f %d\n", s, r }' "$BENCH_DIR/time.txt"
}

"$E4REPLAY" --check-order --outside=no "$crash" | tail -n 2
for f in chk out rep fsck; do : >"$BENCH_DIR/co-$f.txt"; done
run=1
while [ $run -le "$RUNS" ]; do
	cat "$crash" >/dev/null	# warm cache, as for replay
	secs_rss "$E4REPLAY" --check-order --outside=no "$crash" \
		>>"$BENCH_DIR/co-chk.txt"
	secs_rss "$E4REPLAY" --check-order "$crash" >>"$BENCH_DIR/co-out.txt"
	rm -f "$BENCH_DIR/co-a.img"
	secs_rss "$E4REPLAY" -o "$BENCH_DIR/co-a.img" "$crash" \
		>>"$BENCH_DIR/co-rep.txt"
	cp --sparse=always "$crash" "$BENCH_DIR/co-b.img"
	secs_rss e2fsck -E journal_only -y "$BENCH_DIR/co-b.img" \
		>>"$BENCH_DIR/co-fsck.txt"
	rm -f "$BENCH_DIR/co-a.img" "$BENCH_DIR/co-b.img"
	echo "run $run: check $(tail -n 1 "$BENCH_DIR/co-chk.txt")," \
		"check default $(tail -n 1 "$BENCH_DIR/co-out.txt")," \
		"replay -o $(tail -n 1 "$BENCH_DIR/co-rep.txt")," \
		"e2fsck $(tail -n 1 "$BENCH_DIR/co-fsck.txt") (s, KiB)"
	run=$((run + 1))
done
m() { cut -d' ' -f"$2" "$BENCH_DIR/co-$1.txt" | median; }
echo "median of $RUNS: check $(m chk 1) s ($(m chk 2) KiB)," \
	"check, default options $(m out 1) s ($(m out 2) KiB)," \
	"replay -o $(m rep 1) s ($(m rep 2) KiB)," \
	"e2fsck $(m fsck 1) s ($(m fsck 2) KiB);" \
	"check / replay -o: $(awk -v a="$(m chk 1)" -v b="$(m rep 1)" \
		'BEGIN { printf "%.2f", (b > 0) ? a / b : 0 }')x"
