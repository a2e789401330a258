# safety.sh --- helpers of the s_* tests (no run of any tool destroys
# data): loop devices and mounts made here and cleaned up at exit, and
# sha256 snapshots of every file and device a run may touch.
# A script starts with: . "$TOP/tests/test_lib.sh"; . "$TOP/tests/lib/safety.sh"

# need_loops: skip unless loop devices and ext4 mounts work here.
need_loops() {
	can_mount || skip "no loop devices here (root, /dev/loop-control and ext4 needed)"
}

# Every loop device and mount point made here is recorded in a file, so a
# loop device made in a $(...) subshell is detached too; other helpers'
# loop devices are never named.
S_REC="$T/.safety-made"
: >"$S_REC"
s_cleanup() {
	for m in $(sed -n 's/^mount //p' "$S_REC" | tac); do
		umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || :
	done
	for l in $(sed -n 's/^loop //p' "$S_REC" | tac); do
		losetup -d "$l" 2>/dev/null || :
	done
}
at_exit s_cleanup

# lo FILE: attach FILE to a free loop device (losetup -f --show), print it.
lo() {
	_l=$(losetup -f --show "$1") || skip "losetup -f --show $1 failed"
	echo "loop $_l" >>"$S_REC"
	echo "$_l"
}

# mnt DEV DIR [OPTS]: mount DEV (ext4) on DIR, recorded for cleanup.
mnt() {
	mkdir -p "$2"
	mount -t ext4 ${3:+-o "$3"} "$1" "$2" || fail "mount $1 $2 failed"
	echo "mount $2" >>"$S_REC"
}

# mkfs_idle FILE SIZE [MKFS_OPTS...]: an ext4 fs whose mount stays idle
# (inode tables and journal zeroed at mkfs, so the kernel writes nothing
# in the background once mounted noinit_itable and synced).
mkfs_idle() {
	_f=$1 _s=$2
	shift 2
	rm -f "$_f"
	truncate -s "$_s" "$_f"
	mkfs.ext4 -q -F -b 4096 \
		-E nodiscard,lazy_itable_init=0,lazy_journal_init=0 "$@" "$_f"
}

# snap NAME PATH...: record the sha256 of every PATH (files and devices).
snap() {
	_n=$1
	shift
	sync
	: >"$T/.snap-$_n"
	for _p in "$@"; do
		echo "$_p $(sha "$_p")" >>"$T/.snap-$_n"
	done
}

# same NAME WHAT: every PATH of snapshot NAME still has its sha256.
same() {
	while read -r _p _h; do
		[ "$(sha "$_p")" = "$_h" ] ||
			fail "$2: $_p changed (sha256 $_h before)"
	done <"$T/.snap-$1"
	echo "ok: $2: every file and device unchanged"
}

# refused RC WHAT PATTERN CMD...: CMD exits RC, its stderr matches the
# extended regexp PATTERN (one line naming the target; - for a run that
# need not say anything), and snapshot "all" still holds.  With S_SURVEY=FILE set, it only appends what CMD
# did (exit status, what changed, first message line) to FILE and goes on
# (to record the behaviour of an older build).
refused() {
	_rc=$1 _what=$2 _pat=$3
	shift 3
	set +e
	"$@" >"$T/.out" 2>"$T/.err"
	_got=$?
	set -e
	cat "$T/.err"
	if [ -n "$S_SURVEY" ]; then	# record what happens, go on
		_ch=$(while read -r _p _h; do
			[ "$(sha "$_p")" = "$_h" ] || printf ' %s' "$_p"
		done <"$T/.snap-all")
		echo "SURVEY: $_what: exit $_got${_ch:+, CHANGED:$_ch}: $(head -n 1 "$T/.err")" >>"$S_SURVEY"
		_files=$(cut -d' ' -f1 "$T/.snap-all")
		snap all $_files
		return 0
	fi
	[ "$_got" = "$_rc" ] || { cat "$T/.out"; same all "$_what (after exit $_got)"; fail "$_what: '$*' exited $_got, expected $_rc"; }
	[ "$_pat" = - ] || grep -Eq "$_pat" "$T/.err" ||
		fail "$_what: no line matching '$_pat'"
	same all "$_what"
}

# no_temp DIR: no temporary output (.NAME.e4tmp-*) left in DIR.
no_temp() {
	! ls -A "$1" | grep -q 'e4tmp-' || [ -n "$S_SURVEY" ] ||
		fail "temporary file left in $1"
}

# absent WHAT FILE...: refused runs created none of FILE (in survey mode:
# recorded, then removed).
absent() {
	_what=$1
	shift
	for _f in "$@"; do
		[ -e "$_f" ] || continue
		if [ -n "$S_SURVEY" ]; then
			echo "SURVEY: $_what: $_f was created" >>"$S_SURVEY"
			rm -f "$_f"
		else
			fail "$_what: $_f was created"
		fi
	done
}
