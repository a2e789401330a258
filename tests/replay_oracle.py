#!/usr/bin/env python3
# replay_oracle.py --- judge e4replay against e2fsck on one image: the
# oracle of o_corrupt and f_fuzz_regress.
#
# Usage: replay_oracle.py [-q] WHAT IMAGE
# Runs on copies (IMAGE itself is only read): e4replay -n -v --json,
# e4replay -o, and e2fsck -E journal_only -y, then checks
#   - e4replay refuses the journal (exit 8) exactly when e2fsck fails to
#     recover it ("... while recovering journal", "Journal checksum error"),
#     and then e2fsck writes nothing but the fs superblock, the journal
#     superblock and, when it clears a journal it cannot use, the journal
#     inode's blocks and the metadata that frees them;
#   - otherwise e2fsck's result is "clean" exactly when e4replay's scan has
#     no corruption and no tag failed its checksum, e2fsck reports as many
#     "Invalid checksum recovering" blocks as e4replay skips (bad_csum), its
#     s_sequence is e4replay's end tid + 1 when no tag failed (the same
#     committed tids), and e4replay -o's image equals e2fsck's byte for byte
#     less the superblock times, and less the documented differences
#     (e4replay(8)): with bad tag checksums the journal's s_sequence (e2fsck
#     keeps the old one).
# Where e2fsck replays but then cannot re-open the replayed fs (a logged
# superblock copy is garbage), everything but the two superblocks is
# compared.  No oracle (exit 77, "SKIP: WHAT: reason") where e2fsck and the
# kernel part ways or e2fsck does more than a replay: e4replay refuses by
# a kernel rule e2fsck 1.47 lacks (revoke r_count, s_first, s_start,
# s_maxlen, a tag naming a block past the device end or a journal block
# the replay reads after writing it: e2fsck writes every copy, e4replay(8));
# e2fsck goes on to
# repair the replayed fs (Pass 1, backup group descriptors); e2fsck fails
# otherwise (exit 8 or more, a signal).
# Prints one "ok: WHAT: ..." line (unless -q and ok), or "FAIL: WHAT: ..."
# and exits 1.
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

E4REPLAY = os.environ["E4REPLAY"]


def sh(*cmd):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    return p.returncode, p.stdout.decode("utf-8", "replace")


def dumpe2fs(img):
    _, out = sh("dumpe2fs", "-h", img)
    return dict(re.findall(r"^([A-Za-z][^:\n]*):\s*(.*)$", out, re.M))


def jsb_offset(img, bs):
    _, out = sh("debugfs", "-c", "-R", "bmap <8> 0", img)
    return int(out.strip().split("\n")[-1].split()[0]) * bs


def zero_sb_times(b):
    # s_wtime, s_wtime_hi, s_kbytes_written, s_checksum (test_lib.sh)
    for off, n in ((48, 4), (628, 1), (376, 8), (1020, 4)):
        b[1024 + off:1024 + off + n] = bytes(n)


def main(argv):
    quiet = argv[:1] == ["-q"]
    if quiet:
        argv = argv[1:]
    what, img = argv
    return judge(what, img, quiet)


def judge(what, img, quiet=False, layout=None):
    """Judge IMAGE (see the top); returns 0, 1 or 77.  @layout: a dict
    shared by calls on images with the same fs and journal geometry (the
    block size and journal blocks are looked up once)."""
    tmp = tempfile.mkdtemp(prefix="e4oracle.", dir=os.path.dirname(
        os.path.abspath(img)))
    try:
        return judge1(what, img, tmp, quiet,
                      layout if layout is not None else {})
    finally:
        shutil.rmtree(tmp)


def fail(what, msg):
    print("FAIL: %s: %s" % (what, msg))
    return 1


def skip(what, msg):
    print("SKIP: %s: %s" % (what, msg))
    return 77


# e2fsck giving up on the journal: before replaying (its checks of the
# journal superblock), or its recovery failing as a whole
INVALID = (r"has an invalid journal|Journal superblock is corrupt|"
           r"Journal superblock has an unknown|Journal version not supported")
FAILS = (r"while recovering journal|Journal corrupted in|"
         r"JBD2: corrupted journal superblock")
# e4replay's refusals by a kernel rule that e2fsck 1.47 does not apply
# (jbd2-notes.md: revoke r_count checked in PASS_SCAN since Linux 6.14;
# fs/jbd2/journal.c journal_check_superblock(), load_superblock():
# s_first, s_maxlen against the inode's size)
KERNEL_ONLY = (r"r_count \d+ exceeds the block|s_first is invalid|"
               r"s_start lies outside the log|Journal is shorter than")
# lib/e4/plan.c: a tag past the device end, or naming a journal block the
# replay reads after writing it
TAG_BLOCK = r"lies past the device end|which the kernel reads after writing it"


def judge1(what, img, tmp, quiet, layout):
    f_img = os.path.join(tmp, "f.img")
    o_img = os.path.join(tmp, "o.img")
    rn, out = sh(E4REPLAY, "-n", "-v", "--json", img)
    try:
        n = json.loads(out[out.index("{"):])
    except ValueError:
        n = None        # refused before the scan (exit 8)
        if not rn & 8:
            return fail(what, "e4replay -n --json printed no JSON "
                        "(exit %d)" % rn)
    # The kernel replays this journal, then refuses to mount (a failed
    # commit, a bad tag checksum): e4replay writes what the kernel
    # writes and keeps the journal (exit 37 = 1 + 4 + 32; 44, nothing
    # written, when the log is wiped or has fast commits: r_kernel_refuse
    # judges those writes against the kernel); e2fsck replays what
    # verifies, as --replay-anyway does, which is what is compared.
    anyway = []
    if n and (n.get("replay") or {}).get("kernel_refusal") == \
            "mount-after-replay":
        kept = (n.get("replay") or {}).get("journal_kept")
        if rn != (37 if kept else 44):
            return fail(what, "mount refused, exit %d" % rn)
        anyway = ["--replay-anyway"]
        rn, out = sh(E4REPLAY, "--replay-anyway", "-n", "-v", "--json",
                     img)
        n = json.loads(out[out.index("{"):])
    a = open(img, "rb").read()
    if not layout:
        bs = int(dumpe2fs(img).get("Block size", "0") or 0)
        if not bs:
            return skip(what, "dumpe2fs cannot read the image")
        layout["bs"] = bs
        layout["jb"] = jsb_offset(img, bs)
    bs, jb = layout["bs"], layout["jb"]
    shutil.copyfile(img, f_img)
    rf, fout = sh("e2fsck", "-E", "journal_only", "-y", f_img)
    if rf < 0:
        return skip(what, "e2fsck died (signal %d)" % -rf)
    pre, _, post = fout.partition("recovering journal")
    e2_refused = re.search(INVALID, pre) or re.search(FAILS, fout) or (
        "Journal checksum error found" in fout and
        "Invalid checksum recovering" not in fout)
    # e2fsck went on to repair the replayed fs: no byte oracle then
    beyond = re.search(r"^Pass 1|trying backup blocks|" + INVALID, post,
                       re.M)

    if rn & 8:
        m = re.search(TAG_BLOCK, out)
        if m:
            # e2fsck writes every copy (and fails at one past the device
            # end, after the copies before it, as the kernel does)
            return skip(what, "refused by a kernel rule e2fsck lacks (%s)"
                        % m.group(0))
        if not e2_refused and re.search(KERNEL_ONLY, out):
            return skip(what, "refused by a kernel rule e2fsck lacks (%s)"
                        % re.search(KERNEL_ONLY, out).group(0))
        if not e2_refused:
            return fail(what, "e4replay refuses (exit %d), e2fsck "
                        "recovers: %s" % (rn, fout.strip()[:300]))
        if not re.search(INVALID, fout):
            # it wrote the two superblocks, nothing else
            b = open(f_img, "rb").read(len(a))
            for i in range(min(len(a), len(b))):
                if a[i] != b[i] and not (1024 <= i < 2048 or
                                         jb <= i < jb + bs):
                    return fail(what, "refused, but e2fsck wrote fs block"
                                " %d" % (i // bs))
        if not quiet:
            print("ok: %s: refused, as e2fsck (%s)" % (what, "journal "
                  "cleared" if re.search(INVALID, fout) else
                  "recovery fails"))
        return 0

    scan = n["scan"]
    rep = n.get("replay") or {}
    nbad = rep.get("bad_csum", 0)
    # (a tag naming a block past the device end or a journal block the
    # replay reads later: e4replay refuses, above; every other copy is
    # written, as e2fsck writes it)
    if e2_refused:
        return fail(what, "e4replay replays, e2fsck refuses: %s" %
                    fout.strip()[:300])
    if beyond:
        return skip(what, "e2fsck went on to repair the replayed fs (no "
                    "byte oracle)")
    # replayed, then the replayed superblock is unusable: e2fsck cannot
    # re-open the fs to finish (superblocks not comparable, the rest is)
    reopen = rf >= 8 and "while trying to re-open" in fout
    if rf >= 8 and not reopen:
        return skip(what, "e2fsck cannot run here (exit %d)" % rf)

    # the corruption e2fsck reports: a failed commit by its tid, bad tag
    # checksums one line each
    m = re.findall(r"Journal transaction (\d+) was corrupt", fout)
    want = [str(scan["failed_commit"])] if scan.get("failed_commit") \
        is not None else []
    if m != want:
        return fail(what, "failed commit %s, e2fsck: %s" % (want, m))
    ebad = len(re.findall(r"Invalid checksum recovering", fout))
    if ebad != nbad:
        return fail(what, "%d bad tag checksums, e2fsck %d" % (nbad, ebad))
    if os.path.exists(o_img):
        os.unlink(o_img)
    ro, oout = sh(E4REPLAY, *anyway, "-o", o_img, img)
    if ro & 8 or not os.path.exists(o_img):
        return fail(what, "e4replay -o failed (exit %d): %s" %
                    (ro, oout.strip()[:200]))
    o = bytearray(open(o_img, "rb").read())
    if os.path.getsize(f_img) > len(o):
        return fail(what, "e2fsck wrote past the device end, e4replay "
                    "replays")
    b = bytearray(open(f_img, "rb").read())
    if reopen:
        for x in (o, b):
            x[1024:2048] = bytes(1024)
            x[jb:jb + bs] = bytes(bs)
    elif not nbad:
        seq = (scan["end_tid"] + 1) & 0xffffffff
        got = int.from_bytes(b[jb + 24:jb + 28], "big")
        if got != seq:
            return fail(what, "e2fsck s_sequence %d, end tid + 1 = %d" %
                        (got, seq))
    else:
        # e2fsck keeps the old s_sequence after bad tag checksums
        for off in (24, 252):   # s_sequence, s_checksum
            b[jb + off:jb + off + 4] = o[jb + off:jb + off + 4]
    zero_sb_times(o)
    zero_sb_times(b)
    if o != b:
        diff = [i for i in range(min(len(o), len(b))) if o[i] != b[i]]
        return fail(what, "e4replay -o differs from e2fsck: %d bytes, "
                    "first in fs block %s (sizes %d, %d)" %
                    (len(diff), diff[0] // bs if diff else "-", len(o),
                     len(b)))
    if not quiet:
        state = dumpe2fs(f_img).get("Filesystem state", "?")
        print("ok: %s: e2fsck: %s, %d bad checksum(s), "
              "tids to %d, same image%s" % (
                  what, state, nbad, scan["end_tid"] - 1,
                  " (but the superblocks: e2fsck cannot re-open the "
                  "replayed fs)" if reopen else ""))
    return 0


def journal_blocks(img):
    """fs blocks of the log (every journal block but the superblock),
    by debugfs bmap (block-mapped journals too)."""
    n = int(dumpe2fs(img).get("Total journal blocks", "0") or 0)
    p = subprocess.run(["debugfs", "-c", "-f", "-", img],
                       input="".join("bmap <8> %d\n" % j
                                     for j in range(1, n)).encode(),
                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    return [int(l.split()[0]) for l in p.stdout.decode().split("\n")
            if l[:1].isdigit()]


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
