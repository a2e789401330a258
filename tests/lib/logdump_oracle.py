#!/usr/bin/env python3
# logdump_oracle.py --- debugfs's `logdump -a` (-O) as the oracle of
# e4debug's `logdump -a --json` (-O) on the same journal (d_logdump).
#
# Usage: logdump_oracle.py live DEBUGFS_OUT E4_JSON
#    or: logdump_oracle.py old DEBUGFS_O_OUT E4_JSON
# live: the committed transactions debugfs lists up to its "end of
# journal" (tid, and the (fs block, journal block) of every tag and every
# revoked fs block) equal e4debug's committed transactions.
# old: from debugfs -aO's output (it reads on around the log forever: its
# first lap is kept), the older transactions past the log end: the blocks
# from where the live log ended (debugfs's first "end of journal" block)
# around to s_start, tids older than s_sequence (wrap-safe); one is whole
# when it starts right after the commit block of the tid before it, its
# first block is no commit block and its blocks run without a gap to its
# commit block (what the kernel wrote for it is all there).  Those equal
# e4debug's "old" transactions; where debugfs stopped early (a block
# without the magic number: logdump -O stops there), e4debug's older
# transactions before that block.
# Prints "ok: ..." lines; exits 1 at the first mismatch.
import json
import re
import sys

mode, dbg, e4j = sys.argv[1:4]


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


start = seq = None
entries = []            # [tid, type, block, [(fsblk, jblk)], [revoked]]
live_end = None         # first block that ends the live log
stop = None             # block without the magic number (debugfs stops)
for line in open(dbg, errors="replace"):
    m = re.match(r"Journal starts at block (\d+), transaction (\d+)", line)
    if m:
        start, seq = map(int, m.groups())
        continue
    m = re.match(r"Found sequence \d+ \(not \d+\) at block (\d+)", line)
    if m:
        if live_end is None:
            live_end = int(m.group(1))
        continue
    m = re.match(r"No magic number at block (\d+)", line)
    if m:
        stop = int(m.group(1))
        if live_end is None:
            live_end = stop
        break
    m = re.match(r"Found expected sequence (\d+), type (\d+) .* at block "
                 r"(\d+)", line)
    if m:
        tid, typ, blk = map(int, m.groups())
        entries.append([tid, typ, blk, [], [], live_end is None])
        continue
    m = re.match(r"  FS block (\d+) logged at journal block (\d+)", line)
    if m and entries:
        entries[-1][3].append((int(m.group(1)), int(m.group(2))))
        continue
    m = re.match(r"  Revoke FS block (\d+)", line)
    if m and entries:
        entries[-1][4].append(int(m.group(1)))
if start is None:
    fail("no 'Journal starts at' line in " + dbg)

d = json.load(open(e4j))
first, log_end = d["journal"]["first"], d["journal"]["log_end"]
L = log_end - first


def group(ents):
    """Runs of consecutive blocks of one tid, each ending at a commit."""
    res = []
    for tid, typ, blk, tags, revs, _ in ents:
        if not res or res[-1]["tid"] != tid or res[-1]["commit"] is not None:
            res.append({"tid": tid, "first": blk, "typ0": typ, "desc": 0,
                        "revoke": 0, "commit": None, "tags": [],
                        "revokes": []})
        t = res[-1]
        t["desc"] += typ == 1
        t["revoke"] += typ == 5
        if typ == 2:
            t["commit"] = blk
        t["tags"] += tags
        t["revokes"] += revs
    return res


def key(t):
    return (t["tid"], [list(g) for g in t["tags"]], sorted(t["revokes"]))


def e4key(t):
    return (t["tid"], [[g["fsblk"], g["jblk"]] for g in t["tags"]],
            sorted(t["revokes"]))


if mode == "live":
    want = [key(t) for t in group([e for e in entries if e[5]])
            if t["commit"] is not None]
    got = [e4key(t) for t in d["transactions"] if t["committed"]]
    if [w[0] for w in want] != [g[0] for g in got]:
        fail("live tids: debugfs %s, e4debug %s" %
             ([w[0] for w in want], [g[0] for g in got]))
    for w, g in zip(want, got):
        if w != g:
            fail("tid %d: debugfs %s, e4debug %s" % (w[0], w, g))
    print("ok: %d committed transactions, their tags and revokes, as "
          "debugfs" % len(want))
    sys.exit(0)

# old
if "old" not in d:
    fail("no 'old' object in " + e4j)
if live_end is None:
    fail("debugfs never left the live log")
begin = live_end
length = (start + L - begin) % L if start else L


def pos(blk):
    return (blk - begin) % L


lap, seen = [], set()
for e in entries:
    if e[5]:
        continue
    if e[2] in seen:
        break
    seen.add(e[2])
    if pos(e[2]) < length:
        lap.append(e)
lap = [e for e in lap if 0 < (seq - e[0]) % 2 ** 32 < 2 ** 31]
want, prev = [], None
for t in group(lap):
    if t["commit"] is None:
        prev = None
        continue
    nb = (t["commit"] - t["first"]) % L + 1
    whole = (prev is not None and prev[0] == (t["tid"] - 1) % 2 ** 32 and
             (prev[1] + 1 - first) % L + first == t["first"] and
             t["typ0"] != 2 and
             nb == t["desc"] + len(t["tags"]) + t["revoke"] + 1)
    prev = (t["tid"], t["commit"])
    if whole:
        want.append(key(t))
got = d["old"]["transactions"]
if stop is not None and pos(stop) < length:
    # debugfs stopped inside the older log: what lies before its stop.
    got = [t for t in got if pos(t["last_jblk"]) < pos(stop)]
    print("ok: debugfs -O stops at block %d: compared before it" % stop)
got = [e4key(t) for t in got]
if [w[0] for w in want] != [g[0] for g in got]:
    fail("old tids: debugfs %s, e4debug %s" %
         ([w[0] for w in want], [g[0] for g in got]))
for w, g in zip(want, got):
    if w != g:
        fail("old tid %d: debugfs %s, e4debug %s" % (w[0], w, g))
if any(t["replayed"] for t in d["old"]["transactions"]):
    fail("an old transaction is marked replayed")
print("ok: %d older transactions, their tags and revokes, as debugfs -O"
      % len(want))
