#!/bin/sh
# bench/wlog_scale.sh --- the write-log check at the scale of a real
# campaign (issue 29): record one long log of a deterministic workload
# through the FUSE logger (scripts/mkwlog, bench/wlogwork.c: appends with
# fsync or fdatasync, overwrites, creates, renames, unlinks, fallocate +
# O_DIRECT writes, a sync every 256 operations; data=ordered, 512 MiB),
# then time `e4replay --write-log=LOG --check-order --json BASE` on its
# prefixes and print entries, points, CPU seconds (user + sys, from
# /usr/bin/time -v: the machine is shared, wall time is not the figure),
# points per CPU second, peak RSS and the per-entry cost against the
# smallest prefix's.  The state-by-state method (tests/wlog/oracle) runs
# on the smallest prefix (or ORACLE_N entries) and tests/wlog/compare
# checks that both give the same verdict at every point.
#
# Usage: bench/wlog_scale.sh record        # as root: bench/out/scale.*
#        bench/wlog_scale.sh [check]       # the prefixes
#   OPS=205000            workload operations (~4.9 entries each: about
#                         10^6 entries, ~6.5 GiB of log, ~25 min here)
#   SIZES="10000 100000 1000000"   prefix lengths (entries)
#   ORACLE_N=N            prefix for the oracle (default the smallest
#                         size; 0: no oracle)
#   E4REPLAY=path         another build; E4ARGS extra options (--jobs 2)
#   OLD=path              also run that build and diff the JSON of each
#                         prefix against this one's (point for point)
#   BENCH_DIR=bench/out   where the recording and the prefixes live
#
# Measured: see bench/README ("wlog_scale.sh").
set -e
TOP=$(cd "$(dirname "$0")/.." && pwd)
E4REPLAY=${E4REPLAY:-$TOP/misc/e4replay}
BENCH_DIR=${BENCH_DIR:-$TOP/bench/out}
SIZES=${SIZES:-"10000 100000 1000000"}
OPS=${OPS:-205000}
mkdir -p "$BENCH_DIR"
log=$BENCH_DIR/scale.log base=$BENCH_DIR/scale.base.img

if [ "${1:-check}" = record ]; then
	cc -O2 -Wall -o "$BENCH_DIR/wlogwork" "$TOP/bench/wlogwork.c"
	/usr/bin/time -v "$TOP/scripts/mkwlog" -s 512M -k -o "$BENCH_DIR" \
		-d "bench/wlogwork.c, $OPS operations" \
		-w "$BENCH_DIR/wlogwork . $OPS" scale 2>"$BENCH_DIR/rec.time"
	grep -E 'Elapsed|Maximum resident' "$BENCH_DIR/rec.time"
	exit 0
fi
[ -f "$log" ] && [ -f "$base" ] ||
	{ echo "no $log: run bench/wlog_scale.sh record first" >&2; exit 1; }

# prefix N OUT: the first N entries of the log (header count rewritten,
# the file cut after entry N-1; a hard copy, the log is not mmap'able
# in pieces).
prefix() {
	python3 - "$log" "$1" "$2" <<'PY'
import struct, sys
src, n, dst = sys.argv[1], int(sys.argv[2]), sys.argv[3]
f = open(src, "rb")
hdr = f.read(28)
magic, ver, nr, ss = struct.unpack("<QQQI", hdr)
n = min(n, nr)
pos = ss
for i in range(n):
    f.seek(pos)
    sec, ns, fl, dl = struct.unpack("<QQQQ", f.read(32))
    pos += ss
    if ns and not fl & 4:
        pos += ns * ss
f.seek(0)
o = open(dst, "wb")
o.write(struct.pack("<QQQI", magic, ver, n, ss))
f.seek(28)
left = pos - 28
while left:
    b = f.read(min(left, 1 << 24))
    o.write(b)
    left -= len(b)
PY
}

# run BIN LOG OUT: "cpu_secs kbytes wall" of one check; JSON to OUT.
run() {
	# shellcheck disable=SC2086
	/usr/bin/time -v "$1" --write-log="$2" --check-order --json \
		${E4ARGS:-} "$base" >"$3" 2>"$BENCH_DIR/time.txt" || :
	awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, t, ":");
			s = 0; for (i = 1; i <= n; i++) s = s * 60 + t[i] }
		/Maximum resident/ { r = $2 }
		/User time|System time/ { c += $2 }
		END { printf "%.2f %d %.2f\n", c, r, s }' "$BENCH_DIR/time.txt"
}

npoints() {
	python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))
print(len(r["points"]))' "$1"
}

printf "%9s %7s %8s %8s %9s %10s %12s %6s\n" entries points "cpu s" \
	"wall s" "points/s" "RSS MiB" "ms/entry" ratio
first=""
for n in $SIZES; do
	p=$BENCH_DIR/scale-$n.log
	[ -f "$p" ] || prefix "$n" "$p"
	r=$(run "$E4REPLAY" "$p" "$BENCH_DIR/scale-$n.json")
	cpu=${r%% *} rest=${r#* } rss=${rest%% *} wall=${rest#* }
	pts=$(npoints "$BENCH_DIR/scale-$n.json")
	per=$(awk -v c="$cpu" -v n="$n" 'BEGIN { printf "%.4f", 1000 * c / n }')
	[ -n "$first" ] || first=$per
	awk -v n="$n" -v p="$pts" -v c="$cpu" -v w="$wall" -v r="$rss" \
	    -v e="$per" -v f="$first" 'BEGIN {
		printf("%9d %7d %8.2f %8.2f %9.0f %10.1f %12.4f %6.2f\n",
		       n, p, c, w, c > 0 ? p / c : 0, r / 1024, e,
		       f > 0 ? e / f : 0) }'
	if [ -n "${OLD:-}" ]; then
		E4ARGS="" run "$OLD" "$p" "$BENCH_DIR/scale-$n.old.json" \
			>"$BENCH_DIR/old.txt"
		if cmp -s "$BENCH_DIR/scale-$n.json" \
		    "$BENCH_DIR/scale-$n.old.json"; then
			echo "  $n: JSON identical to $OLD's" \
				"($(cut -d' ' -f1 "$BENCH_DIR/old.txt") s cpu)"
		else
			echo "  $n: JSON DIFFERS from $OLD's"
		fi
	fi
done
on=${ORACLE_N:-${SIZES%% *}}
if [ "$on" != 0 ]; then
	p=$BENCH_DIR/scale-$on.log
	[ -f "$p" ] || prefix "$on" "$p"
	run "$E4REPLAY" "$p" "$BENCH_DIR/scale-$on.json" >/dev/null
	/usr/bin/time -v python3 "$TOP/tests/wlog/oracle" "$base" "$p" \
		>"$BENCH_DIR/scale-$on.oracle.json" 2>"$BENCH_DIR/time.txt"
	c=$(awk -F': ' '/User time|System time/ { c += $2 }
		END { printf "%.1f", c }' "$BENCH_DIR/time.txt")
	pts=$(npoints "$BENCH_DIR/scale-$on.oracle.json")
	echo "state by state (tests/wlog/oracle), $on entries: $pts points," \
		"$c s cpu (python + e2fsck + debugfs children)," \
		"$(awk -v p="$pts" -v c="$c" 'BEGIN { printf "%.1f", (c > 0 ? p / c : 0) }') points/s"
	python3 "$TOP/tests/wlog/compare" "$BENCH_DIR/scale-$on.json" \
		"$BENCH_DIR/scale-$on.oracle.json" | tail -n 1
fi
