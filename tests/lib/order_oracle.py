#!/usr/bin/env python3
# order_oracle.py --- an oracle for `e4replay --check-order
# --list-mappings` built from e2fsprogs tools only (debugfs, e2fsck,
# dumpe2fs; plain byte writes), for tests/o_oracle*.
#
# Usage: order_oracle.py E4REPLAY IMAGE [JDEV|"" [FIRST LAST]]
#   FIRST..LAST: compare T_FIRST..T_LAST only (1-based positions in the
#   log; default all), so a long log can be split over several tests.
#
# For each committed transaction T_k of IMAGE's journal (debugfs logdump),
# the state S_k is made on a copy: the log is cut after T_k by zeroing the
# 12-byte header of T_(k+1)'s first journal block (the fast-commit area
# is zeroed in every state: --check-order leaves fast commits unchecked,
# and e2fsck would replay them after any cut), then
# `e2fsck -E journal_only -y` replays it.  In each state every live inode
# (set in its group's inode bitmap, located by debugfs stats, links > 0,
# regular/directory/symlink; not the journal, resize or bad-block inode) is
# listed with debugfs stat: its i_generation, its leaf mappings (lblk ->
# pblk, [u] unwritten) and its tree blocks (ETB, IND, DIND, TIND).  The
# oracle's new initialized mappings of T_k are the blocks of S_k whose
# (ino, i_generation, lblk) is absent in S_(k-1), maps another pblk there,
# or was unwritten there (a conversion); its new unwritten mappings
# likewise (e4replay lists them with "unwritten": true).
#
# They are compared with e4replay's mapping findings of T_k.  A difference
# is explained only by the issue-13 rule, decided here from the journal
# alone: a block b is unknown in S_(k-1) when the live log logs it in some
# T_j, j >= k, and in none of T_1..T_(k-1) -- its home copy may be a later
# copy (ahead) or an older one than S_(k-1) (behind: jbd2 dropped its
# checkpoint).  When the live log begins at the journal's first transaction
# (tid <= 2 at s_first) no block can be behind and only the ahead ones
# (home copy equal to a logged copy of tid >= k) are unknown.  Rules:
#   R1  both list it, e4replay says prior-lost: some path block of the inode
#       (its inode-table block, its tree blocks in S_(k-1) or S_k) is
#       unknown in S_(k-1);
#   R2  e4replay lists it prior-lost, the oracle not: the same, and the
#       oracle's S_(k-1) shows the mapping through that unknown block (the
#       oracle's cut states read the same home copies: for an ahead block
#       they show T_j's copy early, for a behind one an older copy; the
#       oracle cannot tell, e4replay's "new in tid k or earlier" is right);
#   R3  the oracle lists it, e4replay not at k: e4replay listed the same
#       (ino, lblk, pblk) as prior-lost at an earlier tid (reported once).
#   R4  the oracle lists it, e4replay not: the inode is not live in the
#       oracle's S_(k-1) only because its inode-bitmap block is unknown
#       there, while its inode (same i_generation) already maps lblk ->
#       pblk in S_(k-1): the mapping predates T_k; e4replay, which reads
#       the inode itself, is right.
# Anything else is an unexplained difference: the script prints it and
# exits 1.  Output: one line per tid with differences, then a summary line
#   oracle: NAME: N states, M oracle mappings, E e4replay mappings,
#           D differences (R1 a, R2 b, R3 c, R4 d), U unexplained
import atexit
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile

E4REPLAY, IMAGE = sys.argv[1], sys.argv[2]
JDEV = sys.argv[3] if len(sys.argv) > 3 and sys.argv[3] else None
NAME = os.path.basename(IMAGE).rsplit(".img", 1)[0]
# the cut states live in memory when there is room (e2fsck's syncs are
# free there), else in the test's directory
_shm = "/dev/shm"
_room = 0
try:
    _st = os.statvfs(_shm)
    _room = _st.f_bavail * _st.f_frsize
except OSError:
    pass
W = tempfile.mkdtemp(prefix="oracle.", dir=_shm if _room > 4 * (
    os.path.getsize(IMAGE) + (os.path.getsize(JDEV) if JDEV else 0))
    else os.environ.get("T", None))
atexit.register(shutil.rmtree, W, True)


def run(cmd, ok=(0,), stdin=None):
    p = subprocess.run(cmd, input=stdin, capture_output=True, text=True,
                       errors="replace")
    if p.returncode not in ok:
        sys.exit("oracle: %s: exit %d: %s" % (" ".join(cmd), p.returncode,
                                                p.stderr[-300:]))
    return p.stdout


def debugfs(img, cmds, catastrophic=False):
    args = ["debugfs"] + (["-c"] if catastrophic else [])
    return run(args + ["-f", "-", img], ok=(0, 1), stdin="\n".join(cmds))


# ---- the journal, from debugfs logdump ------------------------------------
jopt = ["-f", JDEV] if JDEV else []
log = run(["debugfs", "-c", "-R", "logdump -a " + " ".join(jopt), IMAGE],
          ok=(0, 1))
first_blk = {}          # tid -> first journal block
logged = {}             # tid -> set of fs blocks
copies = {}             # fs block -> [(tid, jblk)]
cur = None
log_start = first_tid = None
for line in log.splitlines():
    m = re.match(r"Journal starts at block (\d+), transaction (\d+)", line)
    if m:
        log_start, first_tid = int(m.group(1)), int(m.group(2))
    m = re.match(r"Found expected sequence (\d+), type (\d+) .* at block (\d+)",
                 line)
    if m:
        cur = int(m.group(1))
        first_blk.setdefault(cur, int(m.group(3)))
        logged.setdefault(cur, set())
        if m.group(2) == "2":
            logged[cur].add(None)   # committed marker
        continue
    m = re.match(r"\s+FS block (\d+) logged at journal block (\d+)", line)
    if m and cur is not None:
        b = int(m.group(1))
        logged[cur].add(b)
        copies.setdefault(b, []).append((cur, int(m.group(2))))
tids = sorted(t for t in logged if None in logged[t])
for t in tids:
    logged[t].discard(None)
if not tids:
    print("oracle: %s: no committed transaction" % NAME)
    sys.exit(0)

sb = run(["dumpe2fs", "-h", IMAGE], ok=(0, 1))
jsb = run(["dumpe2fs", "-h", JDEV], ok=(0, 1)) if JDEV else sb


def field(text, label):
    m = re.search(r"^%s:\s*(.*)$" % re.escape(label), text, re.M)
    return m.group(1).strip() if m else ""


BS = int(field(sb, "Block size"))
IPG = int(field(sb, "Inodes per group"))
ISZ = int(field(sb, "Inode size") or 128)
jfirst = int(field(jsb, "Journal first block") or 1)
jtotal = int(field(jsb, "Total journal blocks") or 0)
fc_len = int(field(jsb, "Fast commit length") or 0)
# the exception: the live log begins at the journal's first transaction
from_start = first_tid is not None and first_tid <= 2 and log_start == jfirst

# journal block -> byte offset in the file holding the journal
jmap = {}
if not JDEV:
    want = sorted(set(first_blk.values()) |
                  {j for c in copies.values() for _, j in c} |
                  set(range(jtotal - fc_len, jtotal)))
    out = debugfs(IMAGE, ["bmap <8> %d" % j for j in want], True)
    nums = [int(x) for x in re.findall(r"^(\d+)$", out, re.M)]
    if len(nums) != len(want):
        sys.exit("oracle: %s: bmap of the journal failed" % NAME)
    jmap = {j: p * BS for j, p in zip(want, nums)}
else:
    jmap = None


def joff(j):
    return jmap[j] if jmap is not None else j * BS


def read_at(path, off, n):
    with open(path, "rb") as f:
        f.seek(off)
        return f.read(n)


# ahead: home copy equal to a logged copy (escaped copies restored)
def copy_bytes(jblk):
    d = bytearray(read_at(JDEV or IMAGE, joff(jblk), BS))
    return bytes(d)


ahead_tids = {}         # fs block -> tids whose copy equals the home copy
for b, cl in copies.items():
    home = read_at(IMAGE, b * BS, BS)
    for t, j in cl:
        c = copy_bytes(j)
        if c == home or c[4:] == home[4:]:   # escaped: magic zeroed
            ahead_tids.setdefault(b, set()).add(t)

first_logged = {}
for t in tids:
    for b in logged[t]:
        first_logged.setdefault(b, t)


def unknown(b, k):
    """Block b unknown in S_(k-1), k a tid (the rule of the issue)."""
    f = first_logged.get(b)
    if f is None or f < k:
        return False
    if from_start:
        return any(t >= k for t in ahead_tids.get(b, ()))
    return True


# ---- states ------------------------------------------------------------------
def used_inodes(img):
    """Set of used inode numbers: each group's inode bitmap, located by
    debugfs -c stats (a cut state may fail dumpe2fs's bitmap checksums);
    groups flagged "Inode not init" are all free."""
    used = set()
    groups = []
    for line in debugfs(img, ["stats"], True).splitlines():
        m = re.match(r"\s*Group +(\d+): block bitmap at \d+, inode bitmap "
                     r"at (\d+)", line)
        if m:
            groups.append([int(m.group(1)), int(m.group(2)), ""])
        elif groups:
            groups[-1][2] += line
    for g, loc, flags in groups:
        if "Inode not init" in flags:
            continue
        bm = read_at(img, loc * BS, (IPG + 7) // 8)
        used.update(g * IPG + i + 1 for i in range(IPG)
                    if bm[i >> 3] >> (i & 7) & 1)
    return used


ENT = re.compile(r"\((ETB\d+|IND|DIND|TIND|[0-9]+(?:-[0-9]+)?)(\[u\])?\):"
                 r"(\d+)(?:-(\d+))?")


def inode_state(img, jd, extra=()):
    """ino -> (gen, {lblk: (pblk, unwritten)}, tree blocks, type, live) for
    the inodes used in this state's bitmap (live) and the @extra ones."""
    used = used_inodes(img)
    first_ino = int(field(sb, "First inode") or 11)
    journal_ino = int(field(sb, "Journal inode") or 0)
    cand = sorted(i for i in used | set(extra) if (i == 2 or i >= first_ino)
                  and i != journal_ino)
    out = debugfs(img, ["stat <%d>" % i for i in cand], True)
    st = {}
    itb = {}
    for chunk in re.split(r"(?m)^(?=Inode: \d+ )", out):
        m = re.match(r"Inode: (\d+)\s+Type: (\S+)", chunk)
        if not m:
            continue
        ino, typ = int(m.group(1)), m.group(2)
        links = re.search(r"Links: (\d+)", chunk)
        if typ not in ("regular", "directory", "symlink") or not links or \
           int(links.group(1)) == 0:
            continue
        gen = int(re.search(r"Generation: (\d+)", chunk).group(1))
        maps, tree = {}, set()
        m2 = re.search(r"^(?:EXTENTS|BLOCKS):\n(.*)$", chunk, re.M)
        if m2:
            for e in ENT.finditer(m2.group(1)):
                lab, u, p0, p1 = e.group(1), e.group(2), int(e.group(3)), \
                    e.group(4)
                p1 = int(p1) if p1 else p0
                if not lab[0].isdigit():
                    tree.update(range(p0, p1 + 1))
                    continue
                l0, _, l1 = lab.partition("-")
                l0 = int(l0)
                for i in range(p1 - p0 + 1):
                    maps[l0 + i] = (p0 + i, bool(u))
        st[ino] = (gen, maps, tree, typ, ino in used)
    return st


def itable_block(ino, layout):
    g = (ino - 1) // IPG
    return layout[g] + ((ino - 1) % IPG) * ISZ // BS


_stats = debugfs(IMAGE, ["stats"], True)
layout = [int(x) for x in re.findall(r"inode table at (\d+)", _stats)]
ibitmap = [int(x) for x in re.findall(r"inode bitmap at (\d+)", _stats)]


def make_state(k_index, extra=()):
    """S_k for tids[k_index - 1] (k_index 0: S_0)."""
    img = os.path.join(W, "s.img")
    shutil.copyfile(IMAGE, img)
    jd = None
    if JDEV:
        jd = os.path.join(W, "s.jdev")
        shutil.copyfile(JDEV, jd)
    target = jd or img
    # the fast-commit area in every state (e2fsck would replay it after
    # any cut; --check-order leaves it unchecked)
    cuts = [(joff(j), BS) for j in range(jtotal - fc_len, jtotal)]
    if k_index < len(tids):
        cuts.append((joff(first_blk[tids[k_index]]), 12))
    with open(target, "r+b") as f:
        for off, n in cuts:
            f.seek(off)
            f.write(b"\0" * n)
    run(["e2fsck"] + (["-j", jd] if jd else []) +
        ["-E", "journal_only", "-y", img], ok=(0, 1))
    return inode_state(img, jd, extra)


# ---- e4replay ---------------------------------------------------------------
ej = json.loads(run([E4REPLAY] + (["-j", JDEV] if JDEV else []) +
                    ["--check-order", "--json", "--list-mappings", IMAGE],
                    ok=(0, 4, 64, 68)))
emap = {}   # (tid, ino, lblk, unwritten) -> (pblk, prior_lost, conversion)
for f in ej["findings"]:
    if f["kind"] != "mapping":
        continue
    for i in range(f["len"]):
        emap[(f["tid"], f["ino"], f["lblk"] + i, f["unwritten"])] = (
            f["pblk"] + i, f["prior_lost"], f["conversion"])
e_lost_at = {}          # (ino, lblk, pblk, unwritten) -> tids, prior-lost
for (t, ino, l, u), (p, lost, _) in emap.items():
    if lost:
        e_lost_at.setdefault((ino, l, p, u), []).append(t)

# ---- compare -----------------------------------------------------------------
FIRST = int(sys.argv[4]) if len(sys.argv) > 5 else 1
LAST = int(sys.argv[5]) if len(sys.argv) > 5 else len(tids)
if not 1 <= FIRST <= LAST <= len(tids):
    sys.exit("oracle: %s: range %d..%d outside 1..%d" % (
        NAME, FIRST, LAST, len(tids)))
last = make_state(len(tids))
ever = {i for i, v in last.items() if v[4]}
prev = make_state(FIRST - 1, ever)
ever |= {i for i, v in prev.items() if v[4]}
n_or = ne = 0
counts = {"R1": 0, "R2": 0, "R3": 0, "R4": 0}
unexplained = []
for ki in range(FIRST, LAST + 1):
    t = tids[ki - 1]
    curs = last if ki == len(tids) else make_state(ki, ever)
    ever |= {i for i, v in curs.items() if v[4]}
    onew = {}
    for ino, (gen, maps, tree, _, live) in curs.items():
        if not live:
            continue
        pv = prev.get(ino)
        if pv and not pv[4]:
            pv = None
        for l, (p, u) in maps.items():
            q = pv[1].get(l) if pv and pv[0] == gen else None
            if q and q[0] == p and (u or not q[1]):
                continue    # unchanged (an unwritten one stays so)
            onew[(ino, l, u)] = (p, bool(q and q[0] == p and q[1]))
    n_or += len(onew)

    def path_unknown(ino, bitmap=False):
        # the inode's liveness is read from its inode-bitmap block too
        blocks = {itable_block(ino, layout), ibitmap[(ino - 1) // IPG]}
        if bitmap:
            blocks = {ibitmap[(ino - 1) // IPG]}
        for s in (prev, curs):
            if ino in s:
                blocks |= s[ino][2]
        return any(unknown(b, t) for b in blocks)

    ekeys = {(ino, l, u): v for (tt, ino, l, u), v in emap.items()
             if tt == t}
    ne += len(ekeys)
    for key in sorted(set(onew) | set(ekeys)):
        ino, l, u = key
        o, e = onew.get(key), ekeys.get(key)
        why = None
        if o and e and o[0] == e[0]:
            if not e[1]:
                continue
            why = "R1" if path_unknown(ino) else None
        elif e and not o:
            if e[1] and path_unknown(ino):
                why = "R2"
        elif o and not e:
            earlier = [x for x in e_lost_at.get((ino, l, o[0], u), [])
                       if x < t]
            pv = prev.get(ino)
            if earlier:
                why = "R3"
            elif pv and not pv[4] and pv[0] == curs[ino][0] and \
                    pv[1].get(l) == (o[0], u) and path_unknown(ino, True):
                why = "R4"
        if why:
            counts[why] += 1
        else:
            unexplained.append((t, ino, l, u, o, e))
    prev = curs

for u in unexplained[:40]:
    print("oracle: %s: UNEXPLAINED tid %d inode %d lblk %d unwritten %s: "
          "oracle %s, e4replay %s (pblk, prior_lost, conversion)" % (
              (NAME,) + u))
print("oracle: %s: %d states, %d oracle mappings, %d e4replay mappings, "
      "%d differences (R1 %d, R2 %d, R3 %d, R4 %d), %d unexplained%s" % (
          NAME + ("" if (FIRST, LAST) == (1, len(tids)) else
                  " tids %d..%d" % (tids[FIRST - 1], tids[LAST - 1])),
          LAST - FIRST + 2, n_or, ne,
          sum(counts.values()) + len(unexplained), counts["R1"], counts["R2"],
          counts["R3"], counts["R4"], len(unexplained),
          "; live log from the journal's first transaction" if from_start
          else ""))
sys.exit(1 if unexplained else 0)
