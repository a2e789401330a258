#!/bin/sh
# bench/check-order.sh --- time `e4replay --check-order` against the plain
# in-place replay (`e4replay IMAGE` on a copy) and e2fsck -E journal_only
# on the same large kernel crash image, in one interleaved run (check,
# replay, e2fsck, check, replay, ...); print medians, ranges, ratios, CPU
# time and peak RSS (/usr/bin/time -v), and check every run's replayed
# copy against e2fsck's, block for block (superblock bookkeeping aside).
# Target (issue 14): the check at most 2x the in-place replay; its memory
# is bounded by the inodes the transactions touch and the log (the S_k
# map), not by the fs size.
#
# The image is bench/replay.sh's (2176 MiB ext4, 1 GiB journal, data=journal,
# hundreds of fsync'ed batches, shut down without a log flush): give it as
# CRASH=path, or it is made by bench/replay.sh in $BENCH_DIR (root, loop
# mounts).  --outside=no leaves out the read of every initialized block
# after the window (outside the speed target); DEFAULT=1 also times the
# check with the default options.
#
# Usage: bench/check-order.sh   (BENCH_DIR=bench/out RUNS=5 [CRASH=img])
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
. "$TOP/bench/lib.sh"

"$E4REPLAY" --check-order --outside=no "$crash" | tail -n 1
for f in chk out rep fsck; do : >"$BENCH_DIR/co-$f.txt"; done
same=yes
run=1
while [ $run -le "$RUNS" ]; do
	cp --sparse=always "$crash" "$BENCH_DIR/co-a.img"
	cp --sparse=always "$crash" "$BENCH_DIR/co-b.img"
	cat "$crash" "$BENCH_DIR/co-a.img" "$BENCH_DIR/co-b.img" >/dev/null
	secs_rss "$E4REPLAY" --check-order --outside=no "$crash" \
		>>"$BENCH_DIR/co-chk.txt"
	[ -z "$DEFAULT" ] || secs_rss "$E4REPLAY" --check-order "$crash" \
		>>"$BENCH_DIR/co-out.txt"
	secs_rss "$E4REPLAY" "$BENCH_DIR/co-a.img" >>"$BENCH_DIR/co-rep.txt"
	secs_rss e2fsck -E journal_only -y "$BENCH_DIR/co-b.img" \
		>>"$BENCH_DIR/co-fsck.txt"
	s=$(same_image "$BENCH_DIR/co-a.img" "$BENCH_DIR/co-b.img")
	[ "$s" = yes ] || same=NO
	rm -f "$BENCH_DIR/co-a.img" "$BENCH_DIR/co-b.img"
	echo "run $run: check $(tail -n 1 "$BENCH_DIR/co-chk.txt")," \
		"${DEFAULT:+check default $(tail -n 1 "$BENCH_DIR/co-out.txt"),}" \
		"replay $(tail -n 1 "$BENCH_DIR/co-rep.txt")," \
		"e2fsck $(tail -n 1 "$BENCH_DIR/co-fsck.txt") (s, KiB, cpu s);" \
		"identical: $s"
	run=$((run + 1))
done
[ "$RUNS" -gt 0 ] || exit 0
c=$BENCH_DIR/co-chk.txt
r=$BENCH_DIR/co-rep.txt
f=$BENCH_DIR/co-fsck.txt
echo "median (min-max) of $RUNS interleaved runs:"
echo "  check --outside=no     wall $(col "$c" 1) s, cpu $(col "$c" 3) s," \
	"peak RSS $(col "$c" 2) KiB"
[ -z "$DEFAULT" ] || echo "  check (defaults)       wall" \
	"$(col "$BENCH_DIR/co-out.txt" 1) s, cpu $(col "$BENCH_DIR/co-out.txt" 3) s"
echo "  replay in place        wall $(col "$r" 1) s, cpu $(col "$r" 3) s," \
	"peak RSS $(col "$r" 2) KiB"
echo "  e2fsck -E journal_only wall $(col "$f" 1) s, cpu $(col "$f" 3) s"
echo "  check / replay: wall $(ratio "$(med "$c" 1)" "$(med "$r" 1)")x," \
	"cpu $(ratio "$(med "$c" 3)" "$(med "$r" 3)")x;" \
	"e2fsck / replay: wall $(ratio "$(med "$f" 1)" "$(med "$r" 1)")x," \
	"cpu $(ratio "$(med "$f" 3)" "$(med "$r" 3)")x;" \
	"replay identical to e2fsck's in every run: $same"
