# common.sh --- the shell helpers every image test uses (loaded by
# tests/test_lib.sh): failing and skipping, assertions, private copies of
# the bundled images, loop mounts, journal block surgery, field readers.
# Each script runs in its own empty directory $T with set -e.

fail() { echo "FAIL: $*"; exit 1; }

# One EXIT trap for every helper, whichever of them a test uses (a helper
# that set its own trap replaced the one before: in_tmpfs's directory was
# left in /dev/shm by a test that then mounted): e4_exit unmounts what
# mount_img mounted, runs what the test registered with at_exit (newest
# first: a loop device is detached after the mount that used it), then
# removes in_tmpfs's directory.  A test adds to it, never sets its own.
# The script's exit status is in $E4_RC while they run.  E4_OUTDIR is
# the test's own directory (run-tests' tests/out/NAME, kept when the test
# fails), whatever in_tmpfs makes $T.
E4_ATEXIT="" E4_TMPFS="" E4_RC=0 E4_OUTDIR=${T:-$PWD}
at_exit() { E4_ATEXIT="$1${E4_ATEXIT:+; $E4_ATEXIT}"; }
e4_exit() {
	E4_RC=$?
	set +e
	cleanup_mounts
	eval "$E4_ATEXIT"
	[ -z "$E4_TMPFS" ] || rm -rf "$E4_TMPFS"
}
trap e4_exit EXIT
skip() { echo "SKIP: $*"; exit 77; }
# skip_part REASON: a part of the test cannot run here; the rest goes on
# and the runner reports the test as partly skipped (not as a full pass).
skip_part() { echo "SKIP-PART: $*"; }

# img NAME: unpack tests/images/NAME.img.gz to ./NAME.img, print the path.
img() {
	[ -f "$T/$1.img" ] || gzip -dc "$IMAGES/$1.img.gz" >"$T/$1.img"
	echo "$T/$1.img"
}

# all_images: names of the bundled crash images.
all_images() {
	for f in "$IMAGES"/*.img.gz; do basename "$f" .img.gz; done
}

sha() { sha256sum "$1" | cut -d' ' -f1; }

# noise FILE BYTES [SEED]: BYTES of pseudo-random data, the same on every
# run for one SEED (default 1).  Use it, not /dev/urandom, for a file
# whose content a tool inspects for signatures (libblkid finds a RAID
# member in about one random 4 MiB file in 10^5; a seeded file either
# always has one or never).
noise() {
	python3 -c 'import random, sys
r = random.Random(int(sys.argv[3]))
n = int(sys.argv[2])
with open(sys.argv[1], "wb") as f:
    while n > 0:
        k = min(n, 1 << 20)
        f.write(r.randbytes(k))
        n -= k' "$1" "$2" "${3:-1}"
}

# assert_eq WHAT EXPECTED ACTUAL
assert_eq() {
	[ "$2" = "$3" ] || fail "$1: expected '$2', got '$3'"
	echo "ok: $1 = '$3'"
}

# expect_rc EXPECTED CMD...: run CMD, check its exit status.
expect_rc() {
	want=$1; shift
	set +e
	"$@"
	got=$?
	set -e
	[ "$got" = "$want" ] || fail "'$*' exited $got, expected $want"
}

# field FILE LABEL: the value after "LABEL:" in dumpe2fs-style output.
field() {
	sed -n "s/^$2: *//p" "$1" | head -n 1
}

# can_mount: 0 when loop mounting works here (root, loop module, ext4).
can_mount() {
	[ "$(id -u)" = 0 ] || return 1
	command -v losetup >/dev/null || return 1
	grep -qw ext4 /proc/filesystems 2>/dev/null ||
		modprobe ext4 2>/dev/null || return 1
	[ -e /dev/loop-control ] || return 1
	return 0
}

# mount_img IMAGE DIR [OPTS]: loop mount, registering cleanup.
E4_MOUNTS=""
mount_img() {
	mkdir -p "$2"
	mount -o loop${3:+,$3} "$1" "$2" || return 1
	E4_MOUNTS="$2 $E4_MOUNTS"
}

cleanup_mounts() {
	for m in $E4_MOUNTS; do
		umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null
	done
	E4_MOUNTS=""
}

# zero_sb_times IMAGE: zero the primary superblock's s_wtime, s_wtime_hi,
# s_kbytes_written and s_checksum (fields every writer changes), so two
# replays of the same image can be compared byte for byte.
zero_sb_times() {
	perl -e 'open(F, "+<", $ARGV[0]) or die "$ARGV[0]: $!";
		for ([48, 4], [628, 1], [376, 8], [1020, 4]) {
			seek(F, 1024 + $_->[0], 0); print F "\0" x $_->[1];
		}
		close(F) or die;' "$1"
}

# cmp_but_sb_times A B: A and B equal but for the fields zero_sb_times
# zeroes (the kernel's failed mount updates them too); neither changed.
cmp_but_sb_times() {
	cp --sparse=always "$1" "$1.cmp-a"
	cp --sparse=always "$2" "$2.cmp-b"
	zero_sb_times "$1.cmp-a"
	zero_sb_times "$2.cmp-b"
	if cmp -s "$1.cmp-a" "$2.cmp-b"; then _r=0; else _r=1; fi
	rm -f "$1.cmp-a" "$2.cmp-b"
	return $_r
}

# zero_log IMAGE: zero the log area of IMAGE's internal journal (every
# journal block but the superblock, jblock 0), for comparing two images
# whose logs are empty (s_start 0) but were written by different
# processes: logged superblock copies differ in s_kbytes_written.
zero_log() {
	_bs=$(dumpe2fs -h "$1" 2>/dev/null | sed -n 's/^Block size: *//p')
	debugfs -R 'ex <8>' "$1" 2>/dev/null | awk 'NR > 1 && NF >= 11 && $1 + 0 == $2 + 0 {
		print $5, $8, $11 }' | while read -r l p n; do
		if [ "$l" = 0 ]; then p=$((p + 1)) n=$((n - 1)); fi
		[ "${n:-0}" -gt 0 ] || continue
		dd if=/dev/zero of="$1" bs="$_bs" seek="$p" count="$n" \
			conv=notrunc 2>/dev/null
	done
}

# unchanged WHAT FILE COPY: assert FILE still equals COPY, byte for byte.
unchanged() {
	cmp -s "$2" "$3" || fail "$1: input changed"
	echo "ok: $1: input unchanged"
}

# json_num FILE KEY: the first numeric value of "KEY" in a JSON file.
json_num() {
	sed -n "s/.*\"$2\": \([0-9]*\).*/\1/p" "$1" | head -n 1
}

# json_error_doc FILE EXIT: FILE holds exactly one --json document of a
# failed run: "exit" EXIT, an "error" with a message, and no report (only
# the members every document has: doc/e4tools.schema.json's head and
# tail).
json_error_doc() {
	python3 - "$1" "$2" <<'PY' || fail "$1: not one error document (exit $2)"
import json, sys
t = open(sys.argv[1]).read()
d, end = json.JSONDecoder().raw_decode(t, len(t) - len(t.lstrip()))
assert not t[end:].strip(), "more than one document"
assert d["exit"] == int(sys.argv[2]) and d["error"]["message"], d
extra = set(d) - {"schema_version", "tool", "version", "mode", "image",
                  "image_raw", "image_size", "image_sha512", "exit",
                  "error", "stderr"}
assert not extra, ("a report", sorted(extra))
PY
}

# jpblk IMAGE JBLK: the fs block holding journal block JBLK of the
# internal journal (debugfs bmap of inode 8).
jpblk() {
	debugfs -c -R "bmap <8> $2" "$1" 2>/dev/null
}

# jflip IMAGE JBLK OFFSET: invert the byte at OFFSET of journal block JBLK.
jflip() {
	_bs=$(dumpe2fs -h "$1" 2>/dev/null | sed -n 's/^Block size: *//p')
	_o=$(($(jpblk "$1" "$2") * _bs + $3))
	_v=$(od -An -tu1 -j "$_o" -N1 "$1" | tr -d ' ')
	printf "\\$(printf '%03o' $((_v ^ 255)))" |
		dd of="$1" bs=1 seek="$_o" count=1 conv=notrunc 2>/dev/null
}

# jput32 IMAGE JBLK OFFSET VALUE: store big-endian u32 VALUE there.
jput32() {
	_bs=$(dumpe2fs -h "$1" 2>/dev/null | sed -n 's/^Block size: *//p')
	_o=$(($(jpblk "$1" "$2") * _bs + $3))
	printf "\\$(printf '%03o' $((($4 >> 24) & 255)))\\$(printf '%03o' \
$((($4 >> 16) & 255)))\\$(printf '%03o' $((($4 >> 8) & 255)))\\$(printf \
'%03o' $(($4 & 255)))" | dd of="$1" bs=1 seek="$_o" count=4 \
		conv=notrunc 2>/dev/null
}

# jzero IMAGE JBLK: zero journal block JBLK.
jzero() {
	_bs=$(dumpe2fs -h "$1" 2>/dev/null | sed -n 's/^Block size: *//p')
	dd if=/dev/zero of="$1" bs="$_bs" seek="$(jpblk "$1" "$2")" count=1 \
		conv=notrunc 2>/dev/null
}

# tid_field JSON TID KEY: KEY of transaction TID in e4replay --json output.
tid_field() {
	awk -v t="$2" -v k="\"$3\": " '
		/"transactions": /	{ in_t = 1 }
		/"scan": /		{ in_t = 0 }
		in_t && /"tid": /	{ v = $0; gsub(/[^0-9]/, "", v); cur = v }
		in_t && index($0, k) && cur == t {
			v = $0; sub(/.*": /, "", v); gsub(/[",]/, "", v)
			print v; exit }' "$1"
}

# scan_field JSON KEY: KEY of the "scan" object.
scan_field() {
	awk -v k="\"$2\": " '
		/"scan": /	{ in_s = 1 }
		in_s && index($0, k) {
			v = $0; sub(/.*": /, "", v); gsub(/[",]/, "", v)
			print v; exit }' "$1"
}

# simg NAME: img NAME made sparse (zero blocks punched out), so copies and
# compares of it are fast; prints the path.
simg() {
	_p=$(img "$1")
	fallocate -d "$_p" 2>/dev/null || :
	echo "$_p"
}

# in_tmpfs: work in a fresh directory on /dev/shm when there is one (the
# tools fsync their output; on tmpfs that costs nothing), removed at exit
# (e4_exit).
in_tmpfs() {
	[ -d /dev/shm ] && [ -w /dev/shm ] || return 0
	E4_TMPFS=$(mktemp -d /dev/shm/e4test.XXXXXX) || { E4_TMPFS=""; return 0; }
	T=$E4_TMPFS
	cd "$T"
}

# keep_on_failure PATTERN...: when the script fails (an exit status but
# 0 and 77), copy what each PATTERN names (a path or a glob, relative to
# the directory keep_on_failure is called in, expanded at exit) into
# $E4_KEEP_DIR (default $E4_OUTDIR/kept) and say where: what a failure
# depends on that the test made itself (a fresh recording, an image)
# survives in_tmpfs's directory, for the log's reader and for CI.
keep_on_failure() {
	_kd=${E4_KEEP_DIR:-$E4_OUTDIR/kept}
	for _p in "$@"; do
		at_exit "keep_path '$(pwd)' '$_p' '$_kd'"
	done
}
keep_path() {
	case $E4_RC in 0|77) return 0 ;; esac
	(cd "$1" 2>/dev/null || exit 0
	_n=0
	for _f in $2; do
		[ -e "$_f" ] || continue
		mkdir -p "$3" && cp -a "$_f" "$3/" && _n=$((_n + 1))
	done
	[ $_n = 0 ] ||
		echo "KEPT (the test failed, rc $E4_RC): $1/$2 in $3/ ($_n)")
}

# info NAME KEY: the value of KEY= in tests/images/NAME.info (empty if none).
info() {
	sed -n "s/^$2=//p" "$IMAGES/$1.info" 2>/dev/null | head -n 1
}

# jdev NAME: for an image with an external journal (external_journal= in
# its .info), unpack the journal device image to ./NAME.jdev and print its
# path; print nothing for an image with an internal journal.
jdev() {
	_j=$(info "$1" external_journal)
	[ -n "$_j" ] || return 0
	[ -f "$T/$1.jdev" ] || gzip -dc "$IMAGES/$_j" >"$T/$1.jdev"
	echo "$T/$1.jdev"
}
