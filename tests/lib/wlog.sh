# wlog.sh --- shell helpers of the write-log tests (w_*): the recorded
# logs of tests/wlog/logs, the state-by-state oracle, recording.
WLOGS="$TOP/tests/wlog/logs"
WLOG_ORACLE="$TOP/tests/wlog/oracle"
WLOG_COMPARE="$TOP/tests/wlog/compare"

# wlog NAME: unpack tests/wlog/logs/NAME.{log,base.img}.gz into the test
# directory; sets LOG and BASE to their paths.
wlog() {
	LOG="$T/$1.log" BASE="$T/$1.base.img"
	[ -f "$LOG" ] || gzip -dc "$WLOGS/$1.log.gz" >"$LOG"
	[ -f "$BASE" ] || gzip -dc "$WLOGS/$1.base.img.gz" >"$BASE"
}

# wlog_info NAME KEY: a value of tests/wlog/logs/NAME.info.
wlog_info() {
	sed -n "s/^$2=//p" "$WLOGS/$1.info"
}

# oracle_vs_check [ORACLE_OPTS] -- [CHECK_OPTS]: run the state-by-state
# oracle and e4replay --write-log --check-order --json on $LOG/$BASE and
# compare their verdicts point by point (tests/wlog/compare); leaves
# check.json (exit status in $CHECK_RC) and oracle.json; fails on any
# difference, and if LOG or BASE changed.
oracle_vs_check() {
	oopts="" copts=""
	while [ $# -gt 0 ] && [ "$1" != -- ]; do oopts="$oopts $1"; shift; done
	[ $# = 0 ] || shift
	copts="$*"
	lsum=$(sha "$LOG") bsum=$(sha "$BASE")
	set +e
	# shellcheck disable=SC2086
	"$E4REPLAY" --write-log="$LOG" --check-order --json $copts "$BASE" \
		>check.json
	CHECK_RC=$?
	set -e
	# shellcheck disable=SC2086
	python3 "$WLOG_ORACLE" $oopts "$BASE" "$LOG" >oracle.json
	python3 "$WLOG_COMPARE" check.json oracle.json ||
		fail "check and oracle disagree"
	assert_eq "log unchanged" "$lsum" "$(sha "$LOG")"
	assert_eq "base unchanged" "$bsum" "$(sha "$BASE")"
}

# can_record: 0 when scripts/mkwlog can run here (else prints why).
can_record() {
	[ "$(id -u)" = 0 ] || { echo "not root"; return 1; }
	[ -x "$TOP/tests/wlog/e4wlogd" ] || { echo "no tests/wlog/e4wlogd \
(libfuse3-dev missing at build time)"; return 1; }
	[ -c /dev/fuse ] || { echo "no /dev/fuse"; return 1; }
	command -v fusermount3 >/dev/null || { echo "no fusermount3"; return 1; }
	[ -e /dev/loop-control ] || { echo "no loop devices"; return 1; }
	return 0
}

# wlog_device P OUT: OUT is BASE with entries 0..P of LOG applied (writes
# their data, DISCARDs zeros), by a log reader of the test's own (as the
# oracle's), for the kernel to mount.
wlog_device() {
	python3 - "$BASE" "$LOG" "$1" "$2" <<'PY'
import shutil, struct, sys
base, logp, upto, out = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
shutil.copyfile(base, out)
log = open(logp, "rb")
magic, ver, nr, ss = struct.unpack("<QQQI", log.read(28))
assert magic == 0x6a736677736872 and ver == 1 and upto < nr
pos = ss
with open(out, "r+b") as dev:
    for i in range(upto + 1):
        log.seek(pos)
        sec, ns, fl, dl = struct.unpack("<QQQQ", log.read(32))
        pos += ss
        dev.seek(sec * ss)
        if fl & 4:
            dev.write(bytes(ns * ss))
        elif ns:
            log.seek(pos)
            dev.write(log.read(ns * ss))
            pos += ns * ss
PY
}

# kernel_blocks IMAGE FILE...: the initialized data blocks of FILEs (paths
# in IMAGE) as "ino pblk" lines, from debugfs ex (leaf extents, not the
# unwritten ones).
kernel_blocks() {
	_img=$1; shift
	for _f in "$@"; do echo "ex $_f"; done |
		debugfs -f - "$_img" 2>/dev/null | python3 -c '
import re, sys
name = None
for line in sys.stdin:
    m = re.match(r"^debugfs: ex (\S+)$", line)
    if m:
        name = m.group(1)
        continue
    m = re.match(r"^\s*(\d+)/\s*(\d+)\s+\d+/\s*\d+\s+\d+\s*-\s*\d+\s+"
                 r"(\d+)\s*-\s*(\d+)\s+\d+\s*(.*)$", line)
    if m and name and m.group(1) == m.group(2) and "Uninit" not in m.group(5):
        for p in range(int(m.group(3)), int(m.group(4)) + 1):
            print(name, p)
'
}
