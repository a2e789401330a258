#!/bin/sh
# bench/wlog.sh --- time `e4replay --write-log --check-order` over every
# persistence point of a dm-log-writes log against the state-by-state
# method on the same log, in one run: for each point copy the state (BASE
# + entries 0..P), `e2fsck -E journal_only -y`, list every initialized
# extent of every regular file with debugfs (tests/wlog/oracle, which
# does exactly that).  Prints wall seconds, points per second, peak RSS
# (/usr/bin/time -v), the speed-up, and checks that both give the same
# verdict at every point (tests/wlog/compare).  Target (issue 18): all
# points of a ~600-entry log of a 64 MiB device in under 4 s, at least 50
# points per second; memory bounded by the log's index and the metadata
# touched, not the device size.
#
# Usage: bench/wlog.sh [NAME]   (NAME of tests/wlog/logs, default sample:
#        612 entries, 172 points, 64 MiB; RUNS=5 runs of e4replay, the
#        state-by-state method once; BENCH_DIR=bench/out)
#
# Measured: see bench/README ("wlog.sh").
set -e
TOP=$(cd "$(dirname "$0")/.." && pwd)
E4REPLAY=${E4REPLAY:-$TOP/misc/e4replay}
BENCH_DIR=${BENCH_DIR:-$TOP/bench/out}
RUNS=${RUNS:-5}
name=${1:-sample}
mkdir -p "$BENCH_DIR"
log=$BENCH_DIR/$name.log base=$BENCH_DIR/$name.base.img
gzip -dc "$TOP/tests/wlog/logs/$name.log.gz" >"$log"
gzip -dc "$TOP/tests/wlog/logs/$name.base.img.gz" >"$base"

median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

# secs_rss CMD...: "secs kbytes" (wall clock, peak RSS) of CMD; its
# stdout goes to $BENCH_DIR/out.txt.
secs_rss() {
	/usr/bin/time -v "$@" >"$BENCH_DIR/out.txt" 2>"$BENCH_DIR/time.txt" || :
	awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, t, ":");
			s = 0; for (i = 1; i <= n; i++) s = s * 60 + t[i] }
		/Maximum resident/ { r = $2 }
		END { printf "%.3f %d\n", s, r }' "$BENCH_DIR/time.txt"
}

points=$("$E4REPLAY" --write-log="$log" --list --json "$base" |
	python3 -c 'import json, sys; print(len(json.load(sys.stdin)["points"]))')
entries=$("$E4REPLAY" --write-log="$log" --list --json "$base" |
	python3 -c 'import json, sys; print(json.load(sys.stdin)["log"]["nr_entries"])')
echo "$name: $entries entries, $points persistence points," \
	"$(($(stat -c %s "$base") >> 20)) MiB device"
: >"$BENCH_DIR/wl-chk.txt"
run=1
while [ "$run" -le "$RUNS" ]; do
	secs_rss "$E4REPLAY" --write-log="$log" --check-order --json \
		"$base" >>"$BENCH_DIR/wl-chk.txt"
	run=$((run + 1))
done
cp "$BENCH_DIR/out.txt" "$BENCH_DIR/wl-check.json"
ref=$(secs_rss python3 "$TOP/tests/wlog/oracle" "$base" "$log")
cp "$BENCH_DIR/out.txt" "$BENCH_DIR/wl-oracle.json"
python3 "$TOP/tests/wlog/compare" "$BENCH_DIR/wl-check.json" \
	"$BENCH_DIR/wl-oracle.json" | tail -n 1
c=$(cut -d' ' -f1 "$BENCH_DIR/wl-chk.txt" | median)
crss=$(cut -d' ' -f2 "$BENCH_DIR/wl-chk.txt" | median)
r=${ref% *} rrss=${ref#* }
awk -v c="$c" -v crss="$crss" -v r="$r" -v rrss="$rrss" -v p="$points" \
    -v n="$RUNS" 'BEGIN {
	cps = c > 0 ? p / c : 0
	rps = r > 0 ? p / r : 0
	printf("e4replay --write-log --check-order (median of %d): %.3f s, " \
		"%.0f points/s, %d KiB peak RSS\n", n, c, cps, crss)
	printf("state by state (copy, e2fsck -E journal_only, debugfs): " \
		"%.3f s, %.1f points/s, %.3f s/point, %d KiB peak RSS (python)\n",
		r, rps, p ? r / p : 0, rrss)
	printf("speed-up: %.0fx; target < 4 s and >= 50 points/s: %s\n",
		c > 0 ? r / c : 0, (c < 4 && cps >= 50) ? "met" : "MISSED")
}'
rm -f "$log" "$base"
