#!/bin/sh
# bench/durable.sh --- time `e4replay --write-log --check-durability`
# (every promise mark) against `--check-order` (every persistence point)
# on the same log, median of RUNS runs each, with peak RSS.  Target
# (issue 27): checking every mark costs no more than the ordering check.
#
# Usage: bench/durable.sh [LOG BASE]
#   Without operands it records one with scripts/mkwlog (root, FUSE,
#   loop devices): WRITERS writers (default 4) appending 4 KiB APPENDS
#   times (default 100), fsync or fdatasync and a promise mark after each,
#   on a SIZE device (default 64M; 4 writers x 6000 appends, about
#   100,000 entries, need SIZE=256M).  RUNS=5, BENCH_DIR=bench/out.
#   Prints each mode's median wall seconds, CPU seconds (user + sys) and
#   peak RSS.
#
# Measured: see bench/README ("durable.sh").
set -e
TOP=$(cd "$(dirname "$0")/.." && pwd)
E4REPLAY=${E4REPLAY:-$TOP/misc/e4replay}
BENCH_DIR=${BENCH_DIR:-$TOP/bench/out}
RUNS=${RUNS:-5} WRITERS=${WRITERS:-4} APPENDS=${APPENDS:-100}
SIZE=${SIZE:-64M}
mkdir -p "$BENCH_DIR"
BENCH_DIR=$(cd "$BENCH_DIR" && pwd)
if [ $# = 2 ]; then
	log=$1 base=$2
else
	rm -f "$BENCH_DIR/durable.log" "$BENCH_DIR/durable.base.img"
	TMPDIR=$BENCH_DIR "$TOP/scripts/mkwlog" -s "$SIZE" -k -o "$BENCH_DIR" -w "
mkdir d
for w in \$(seq 1 $WRITERS); do
	(for i in \$(seq 1 $APPENDS); do gen d/w\$w 4096
		if [ \$((w % 2)) = 0 ]; then fsync_mark d/w\$w
		else fdatasync_mark d/w\$w; fi; done) &
done
wait; sync_mark" durable
	log=$BENCH_DIR/durable.log base=$BENCH_DIR/durable.base.img
fi

median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

# secs_rss CMD...: "secs kbytes cpu" (wall clock, peak RSS, user + sys
# seconds) of CMD.
secs_rss() {
	/usr/bin/time -v "$@" >"$BENCH_DIR/out.txt" 2>"$BENCH_DIR/time.txt" || :
	awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, t, ":");
			s = 0; for (i = 1; i <= n; i++) s = s * 60 + t[i] }
		/Maximum resident/ { r = $2 }
		/User time \(seconds\)|System time \(seconds\)/ { c += $2 }
		END { printf "%.3f %d %.2f\n", s, r, c }' "$BENCH_DIR/time.txt"
}

"$E4REPLAY" --write-log="$log" --list --json "$base" | python3 -c '
import json, sys
d = json.load(sys.stdin)
print("%d entries, %d persistence points, %d marks" % (
    d["log"]["nr_entries"], len(d["points"]), d["log"]["marks"]))'
for mode in check-order check-durability; do
	: >"$BENCH_DIR/$mode.txt"
	run=1
	while [ "$run" -le "$RUNS" ]; do
		secs_rss "$E4REPLAY" --write-log="$log" --"$mode" "$base" \
			>>"$BENCH_DIR/$mode.txt"
		run=$((run + 1))
	done
	printf "%s: %s" "--$mode" "$(tail -n 1 "$BENCH_DIR/out.txt")"
	printf "; median of %d: %s s wall, %s s CPU, %s KiB peak RSS\n" \
		"$RUNS" "$(cut -d' ' -f1 "$BENCH_DIR/$mode.txt" | median)" \
		"$(cut -d' ' -f3 "$BENCH_DIR/$mode.txt" | median)" \
		"$(cut -d' ' -f2 "$BENCH_DIR/$mode.txt" | median)"
done
