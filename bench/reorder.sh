#!/bin/sh
# bench/reorder.sh --- the cost of `e4replay --write-log --check-order
# --reorder` (every crash state a volatile write cache can leave, decided
# per epoch) against the prefix check (`--check-order`, every
# persistence point) on the same log, and against the exhaustive method
# (tests/wlog/reorder_oracle: every subset of every epoch of at most
# MAX writes materialized, replayed with e2fsck -E journal_only, read
# with debugfs) on the same log.  CPU seconds (user + sys, the machine
# may be loaded: wall is printed too), peak RSS, the --reorder/prefix
# ratio (issue 26: at most 2x), and the states per second of each method
# (the analytic check counts the crash states its epochs hold).
#
# Usage: bench/reorder.sh [NAME...]  (NAMEs of tests/wlog/logs, default
#        sample w-writeback w-ordered; RUNS=3 runs each, medians; MAX=8
#        the exhaustive method's epoch bound, ORACLE=0 to skip it;
#        BENCH_DIR=bench/out)
#        bench/reorder.sh --log LOG BASE   (any log, e.g. a long one)
#
# Measured: see bench/README ("reorder.sh").
set -e
TOP=$(cd "$(dirname "$0")/.." && pwd)
E4REPLAY=${E4REPLAY:-$TOP/misc/e4replay}
BENCH_DIR=${BENCH_DIR:-$TOP/bench/out}
RUNS=${RUNS:-3}
MAX=${MAX:-8}
ORACLE=${ORACLE:-1}
mkdir -p "$BENCH_DIR"

median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

# cpu_rss CMD...: "cpu_s wall_s kbytes" of CMD (GNU time); stdout to
# $BENCH_DIR/out.txt.
cpu_rss() {
	/usr/bin/time -f '%U %S %e %M' -o "$BENCH_DIR/time.txt" "$@" \
		>"$BENCH_DIR/out.txt" 2>/dev/null || :
	# (GNU time puts "Command exited with non-zero status N" first)
	tail -n 1 "$BENCH_DIR/time.txt" |
		awk '{ printf "%.2f %.2f %d\n", $1 + $2, $3, $4 }'
}

# bench_one NAME LOG BASE
bench_one() {
	name=$1 log=$2 base=$3
	entries=$("$E4REPLAY" --write-log="$log" --list --json "$base" |
		python3 -c 'import json, sys; print(json.load(sys.stdin)["log"]["nr_entries"])')
	for mode in prefix reorder; do
		: >"$BENCH_DIR/rb-$mode.txt"
		flag=
		[ $mode = reorder ] && flag=--reorder
		i=1
		while [ $i -le "$RUNS" ]; do
			cpu_rss "$E4REPLAY" --write-log="$log" --check-order \
				$flag --json "$base" >>"$BENCH_DIR/rb-$mode.txt"
			i=$((i + 1))
		done
		cp "$BENCH_DIR/out.txt" "$BENCH_DIR/rb-$mode.json"
	done
	pc=$(cut -d' ' -f1 "$BENCH_DIR/rb-prefix.txt" | median)
	pw=$(cut -d' ' -f2 "$BENCH_DIR/rb-prefix.txt" | median)
	pr=$(cut -d' ' -f3 "$BENCH_DIR/rb-prefix.txt" | median)
	rc=$(cut -d' ' -f1 "$BENCH_DIR/rb-reorder.txt" | median)
	rw=$(cut -d' ' -f2 "$BENCH_DIR/rb-reorder.txt" | median)
	rr=$(cut -d' ' -f3 "$BENCH_DIR/rb-reorder.txt" | median)
	python3 - "$name" "$entries" "$pc" "$pw" "$pr" "$rc" "$rw" "$rr" \
		"$BENCH_DIR/rb-prefix.json" "$BENCH_DIR/rb-reorder.json" <<'PY'
import json, sys
name, n, pc, pw, pr, rc, rw, rr, pj, rj = sys.argv[1:]
p = json.load(open(pj)); r = json.load(open(rj))
ro = r.get("reorder", {})
st = ro.get("crash_states")
print("%s: %s entries, %d points, %d epochs, %s crash states, %d blocks judged"
      % (name, n, len(p["points"]) if isinstance(p["points"], list) else p["points"],
         ro.get("epochs_count", 0), "more than 2^64" if st is None else st,
         ro.get("blocks_judged", 0)))
print("  --check-order            %6.2f s cpu %6.2f s wall %7.1f MiB"
      % (float(pc), float(pw), int(pr) / 1024.0))
print("  --check-order --reorder  %6.2f s cpu %6.2f s wall %7.1f MiB   %.2fx the prefix check (cpu)"
      % (float(rc), float(rw), int(rr) / 1024.0,
         float(rc) / float(pc) if float(pc) > 0 else 0.0))
print("  verdicts: prefix exit %s, %s violation(s); reorder exit %s, %s violation(s), %s witness state(s)"
      % (p["exit"], p["violations"], r["exit"], r["violations"],
         ro.get("witness_states", 0)))
PY
	if [ "$ORACLE" = 1 ]; then
		cpu_rss python3 "$TOP/tests/wlog/reorder_oracle" --max "$MAX" \
			--jobs 1 "$base" "$log" >"$BENCH_DIR/rb-oracle.txt"
		cp "$BENCH_DIR/out.txt" "$BENCH_DIR/rb-oracle.json"
		python3 - "$BENCH_DIR/rb-oracle.txt" "$BENCH_DIR/rb-oracle.json" \
			"$rc" "$MAX" <<'PY'
import json, sys
t = open(sys.argv[1]).read().split()
t = [float(t[0]), float(t[1])]
o = json.load(open(sys.argv[2]))
en = sum(e["states"] for e in o["epochs"] if e.get("enumerated"))
ne = sum(1 for e in o["epochs"] if e.get("enumerated"))
cpu = t[0]
print("  exhaustive (epochs <= %s writes: %d of %d, %d states): %.2f s cpu "
      "with its e2fsck and debugfs runs (%.2f s wall), %.1f states per cpu s"
      % (sys.argv[4], ne, len(o["epochs"]), en, cpu, float(t[1]),
         en / cpu if cpu > 0 else 0.0))
PY
	fi
}

if [ "$1" = --log ]; then
	bench_one "$(basename "$2")" "$2" "$3"
	exit 0
fi
[ $# -gt 0 ] || set -- sample w-writeback w-ordered
for name in "$@"; do
	log=$BENCH_DIR/$name.log base=$BENCH_DIR/$name.base.img
	gzip -dc "$TOP/tests/wlog/logs/$name.log.gz" >"$log"
	gzip -dc "$TOP/tests/wlog/logs/$name.base.img.gz" >"$base"
	bench_one "$name" "$log" "$base"
done
