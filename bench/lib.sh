# bench/lib.sh --- what the benchmark scripts share: timing one command
# under /usr/bin/time -v, medians and ranges of the runs, the replayed
# image compared with e2fsck's.  Sourced by replay.sh and check-order.sh
# (with TOP and BENCH_DIR set).

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

median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

# col FILE N: "median (min-max)" of column N of FILE.
col() {
	cut -d' ' -f"$2" "$1" | sort -n | awk '{ a[NR] = $1 }
		END { printf "%s (%s-%s)", a[int((NR + 1) / 2)], a[1], a[NR] }'
}

# med FILE N: the median of column N of FILE.
med() { cut -d' ' -f"$2" "$1" | median; }

# ratio A B: A / B to two places.
ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b > 0) ? a / b : 0 }'
}

# same_image A B: "yes" when images A and B are byte-identical less the
# superblock bookkeeping (s_wtime, s_kbytes_written, s_checksum), else
# "NO".  Zeroes those fields in both.
same_image() {
	. "$TOP/tests/test_lib.sh"
	zero_sb_times "$1"
	zero_sb_times "$2"
	if cmp -s "$1" "$2"; then echo yes; else echo NO; fi
}
