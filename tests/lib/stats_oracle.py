#!/usr/bin/env python3
# stats_oracle.py --- the journal statistics of `e4replay --stats`,
# computed independently for the s_* tests, then compared figure by figure
# with what e4replay printed.
#
# Sources: the transactions of `e4replay -n --json` (-n: the scan), checked
# against `debugfs -c -R "logdump -a"` (block positions, descriptor and
# revoke blocks, tags, revoke records) and the commit times read straight
# from the commit blocks in the image (be64 h_commit_sec at 0x30, be32
# h_commit_nsec at 0x38, journal blocks mapped with `debugfs -R "ex <8>"`).
# Definitions (e4replay(8)): median = middle value or mean of the two
# middle ones; p90 = nearest rank, sorted[ceil(0.9 n) - 1]; intervals
# between the commits of consecutive tids, in ms; log2 buckets [2^k,
# 2^(k+1)); "each up to" = (s_maxlen - fast-commit blocks) / 3.
#
# Usage: stats_oracle.py live IMAGE NJSON LOGDUMP EXTENTS STATSJSON STATSTEXT
#    or: stats_oracle.py older IMAGE NJSON LOGDUMP_O EXTENTS STATSJSON
#    or: stats_oracle.py older-raw IMAGE NJSON - EXTENTS STATSJSON
# live: the live log (LOGDUMP from "logdump -a"); older: --all's "older"
# object (LOGDUMP_O from "logdump -aO", which reads on past the log end:
# the blocks after the last live transaction, once around the log, give
# the older transactions; one is whole when its first block follows the
# commit block of the tid before it and its blocks run on to its commit).
# older-raw reads the journal blocks of the image itself instead of
# logdump -O, which stops at the first block without the magic number
# (a log whose older part follows a few stale blocks).
# Prints "ok: ..." per figure; exits 1 at the first mismatch.
import json
import math
import re
import struct
import sys

mode = sys.argv[1]
raw = mode == "older-raw"
if raw:
    mode = "older"
image, njson, logdump, extents, sjson = sys.argv[2:7]
stext = sys.argv[7] if mode == "live" else None
checked = 0


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def same(what, want, got, dec=None):
    global checked
    if dec is None:
        ok = want == got
    elif want is None or got is None:
        ok = want is None and got is None
    else:
        ok = abs(float(want) - float(got)) <= 0.5 * 10 ** -dec + 1e-9
    if not ok:
        fail("%s: expected %r, got %r" % (what, want, got))
    checked += 1


d = json.load(open(njson))
bs = d["journal"]["blocksize"]
trans = [t for t in d["transactions"] if t["committed"]]

# --- logdump: the same transactions, block by block ---------------------


def parse_logdump(path):
    """Blocks in logdump's order: (tid, type, block, tags, revoke records)."""
    out = []
    for line in open(path, errors="replace"):
        m = re.match(r"Found expected sequence (\d+), type (\d+) .* at block "
                     r"(\d+)", line)
        if m:
            out.append(list(map(int, m.groups())) + [0, 0])
        elif re.match(r"  FS block \d+ logged at journal block", line):
            out[-1][3] += 1
        elif re.match(r"  Revoke FS block \d+", line):
            out[-1][4] += 1
    return out


def group(entries):
    """Transactions of consecutive entries of one tid, with positions."""
    res = []
    for tid, typ, blk, ntags, nrec in entries:
        if not res or res[-1]["tid"] != tid or res[-1]["commit"] is not None:
            res.append({"tid": tid, "first": blk, "desc": 0, "revoke": 0,
                        "commit": None, "tags": 0, "revrec": 0,
                        "typ0": typ})
        t = res[-1]
        if typ == 1:
            t["desc"] += 1
        elif typ == 5:
            t["revoke"] += 1
        elif typ == 2:
            t["commit"] = blk
        t["tags"] += ntags
        t["revrec"] += nrec
    return res


def cross_check(trans, ld):
    for t in trans:
        o = ld.get(t["tid"])
        if o is None or o["commit"] is None:
            fail("tid %d: not committed in logdump" % t["tid"])
        same("tid %d nblocks (logdump)" % t["tid"],
             o["commit"] - o["first"] + 1, t["nblocks"])
        same("tid %d descriptors (logdump)" % t["tid"], o["desc"],
             t["descriptors"])
        same("tid %d revoke blocks (logdump)" % t["tid"], o["revoke"],
             t["revoke_blocks"])
        same("tid %d tags (logdump)" % t["tid"], o["tags"], t["ntags"])
        same("tid %d revoke records (logdump)" % t["tid"], o["revrec"],
             t["nrevokes"])
        same("tid %d last_jblk (logdump)" % t["tid"], o["commit"],
             t["last_jblk"])


d = json.load(open(njson))
bs = d["journal"]["blocksize"]
live = [t for t in d["transactions"] if t["committed"]]

runs = []
for line in open(extents, errors="replace"):
    m = re.match(r"\s*\d+/\s*\d+\s+\d+/\s*\d+\s+(\d+) -\s+(\d+)\s+(\d+) -\s+"
                 r"(\d+)\s+(\d+)", line)
    if m:
        l0, l1, p0, p1, n = map(int, m.groups())
        runs.append((l0, p0, n))


def pblk(jblk):
    for l0, p0, n in runs:
        if l0 <= jblk < l0 + n:
            return p0 + jblk - l0
    fail("jblock %d not mapped" % jblk)


def jread(f, jblk):
    f.seek(pblk(jblk) * bs)
    return f.read(bs)


def raw_entries(begin, length):
    """The journal walked as logdump -O walks it, but over every block of
    the area once: (tid, type, block, tags, revoke records)."""
    j = d["journal"]
    out = []
    with open(image, "rb") as f:
        incompat, = struct.unpack(">I", jread(f, 0)[0x28:0x2C])
        v3, v2, b64 = incompat & 0x10, incompat & 0x8, incompat & 0x2
        tag = 16 if v3 else (12 + (2 if v2 else 0) - (0 if b64 else 4))
        size = bs - (4 if v2 or v3 else 0)
        L = j["log_end"] - j["first"]
        k = 0
        while k < length:
            blk = (begin - j["first"] + k) % L + j["first"]
            b = jread(f, blk)
            magic, typ, seq = struct.unpack(">III", b[:12])
            k += 1
            if magic != 0xC03B3998 or typ not in (1, 2, 5):
                continue
            ntags = nrec = 0
            if typ == 1:
                off = 12
                while off + tag <= size:
                    fl = struct.unpack(">I" if v3 else ">H",
                                       b[off + 4:off + 8] if v3 else
                                       b[off + 6:off + 8])[0]
                    ntags += 1
                    off += tag + (0 if fl & 2 else 16)
                    if fl & 8:
                        break
                k += ntags
            elif typ == 5:
                rc, = struct.unpack(">I", b[12:16])
                nrec = max(0, (rc - 16) // (8 if b64 else 4))
            out.append([seq, typ, blk, ntags, nrec])
    return out


entries = [] if raw else parse_logdump(logdump)
if mode == "live":
    trans = live
    ld = {}
    for t in group(entries):
        if t["commit"] is not None:
            ld[t["tid"]] = t
    cross_check(trans, ld)
    same("committed tids (logdump)", sorted(ld), [t["tid"] for t in trans])
else:
    # The older log starts after the last block of the scan's last
    # transaction and runs once around the log to s_start.
    j = d["journal"]
    L = j["log_end"] - j["first"]
    if j["start"]:
        last = d["transactions"][-1]["last_jblk"] if d["transactions"] \
            else j["start"] - 1
        begin = last + 1 if last + 1 < j["log_end"] else j["first"]
        length = (j["start"] + L - begin) % L
    else:
        begin, length = j["first"], L
    inside = set((begin - j["first"] + k) % L + j["first"]
                 for k in range(length))
    if raw:
        entries = raw_entries(begin, length)
    # logdump -O goes around forever: keep its first lap of the area.
    lap, seen = [], set()
    for e in entries:
        if e[2] in inside and e[2] not in seen:
            seen.add(e[2])
            lap.append(e)
        elif e[2] in seen:
            break
    ref = j["sequence"]
    lap = [e for e in lap if 0 < (ref - e[0]) % 2 ** 32 < 2 ** 31]
    trans = []
    prev_commit = None      # (tid, block) of the last commit block seen
    for t in group(lap):
        if t["commit"] is None:
            prev_commit = None
            continue
        nb = (t["commit"] - t["first"]) % L + 1
        whole = (prev_commit is not None and prev_commit[0] == t["tid"] - 1
                 and (prev_commit[1] + 1 - j["first"]) % L + j["first"] ==
                 t["first"] and t["typ0"] != 2 and
                 nb == t["desc"] + t["tags"] + t["revoke"] + 1)
        prev_commit = (t["tid"], t["commit"])
        if whole:
            trans.append({"tid": t["tid"], "nblocks": nb,
                          "descriptors": t["desc"],
                          "revoke_blocks": t["revoke"], "ntags": t["tags"],
                          "nrevokes": t["revrec"], "last_jblk": t["commit"],
                          "committed": False})
    trans.sort(key=lambda t: -((ref - t["tid"]) % 2 ** 32))

# --- commit times straight from the image --------------------------------
with open(image, "rb") as f:
    for t in trans:
        f.seek(pblk(t["last_jblk"]) * bs)
        blk = f.read(bs)
        magic, btype, seq = struct.unpack(">III", blk[:12])
        same("tid %d commit block header" % t["tid"],
             (0xC03B3998, 2, t["tid"]), (magic, btype, seq))
        sec, = struct.unpack(">Q", blk[0x30:0x38])
        nsec, = struct.unpack(">I", blk[0x38:0x3C])
        if mode == "older":
            t["commit_sec"], t["commit_nsec"] = sec, nsec
        same("tid %d commit_sec (image)" % t["tid"], sec, t["commit_sec"])
        same("tid %d commit_nsec (image)" % t["tid"], nsec, t["commit_nsec"])

# --- the statistics ------------------------------------------------------


def dist(v):
    if not v:
        return None
    s = sorted(v)
    n = len(s)
    med = s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2
    return {"total": sum(s), "min": s[0], "max": s[-1], "mean": sum(s) / n,
            "median": med, "p90": s[math.ceil(0.9 * n) - 1], "count": n}


def bucket(v):          # k with 2^k <= v < 2^(k+1), v >= 1
    k = 0
    while v >= 2 ** (k + 1):
        k += 1
    return k


def hist(values):
    h = {"negative": 0, "zero": 0, "below_one": 0, "b": {}}
    for v in values:
        if v < 0:
            h["negative"] += 1
        elif v == 0:
            h["zero"] += 1
        elif v < 1:
            h["below_one"] += 1
        else:
            k = bucket(v)
            h["b"][k] = h["b"].get(k, 0) + 1
    return h


n = len(trans)
blocks = [t["nblocks"] for t in trans]
tags = [t["ntags"] for t in trans]
ns = [t["commit_sec"] * 10 ** 9 + t["commit_nsec"] for t in trans]
ivals = []
neg = []
for a, b, ta, tb in zip(ns, ns[1:], trans, trans[1:]):
    if tb["tid"] != ta["tid"] + 1:
        continue
    ivals.append((b - a) / 1e6)
    if b < a:
        neg.append((ta["tid"], tb["tid"], (b - a) / 1e6))
span = (max(ns) - min(ns)) / 1e9 if n else 0
desc = sum(t["descriptors"] for t in trans)
rev = sum(t["revoke_blocks"] for t in trans)
com = n
logb = sum(blocks)
datab = sum(tags)
groups = {}
for t in trans:
    groups.setdefault((t["commit_sec"], t["commit_nsec"]), []).append(t)
shared = [len(g) for g in groups.values() if len(g) > 1]
maxtx = d["journal"]["log_end"] // 3

got = json.load(open(sjson))["stats"]
if mode == "older":
    got = got["older"]
same("transactions", n, got["transactions"])
same("first_tid", trans[0]["tid"] if n else None, got["first_tid"])
same("last_tid", trans[-1]["tid"] if n else None, got["last_tid"])
same("span_seconds", span, got["span_seconds"], 6)
same("commits_per_second", (n - 1) / span if span > 0 else None,
     got["commits_per_second"], 2)
for key, v in (("blocks", blocks), ("tags", tags)):
    e = dist(v)
    same(key + ".total", e["total"] if e else 0, got[key]["total"])
    for f in ("min", "median", "mean", "p90", "max"):
        same("%s.%s" % (key, f), e[f] if e else None, got[key][f], 3)
ob = got["overhead_blocks"]
same("overhead descriptor", desc, ob["descriptor"])
same("overhead revoke", rev, ob["revoke"])
same("overhead commit", com, ob["commit"])
same("overhead total", desc + rev + com, ob["total"])
same("overhead share", (desc + rev + com) / logb if logb else 0,
     ob["share"], 4)
same("descriptor share", desc / logb if logb else 0, ob["descriptor_share"],
     4)
same("revoke share", rev / logb if logb else 0, ob["revoke_share"], 4)
same("commit share", com / logb if logb else 0, ob["commit_share"], 4)
same("log_blocks", logb, got["log_blocks"])
same("data_blocks = log - overhead", logb - desc - rev - com,
     got["data_blocks"])
same("revoke_records", sum(t["nrevokes"] for t in trans),
     got["revoke_records"])
e = dist(ivals)
for f in ("min", "median", "mean", "p90", "max"):
    same("interval_ms." + f, e[f] if e else None, got["interval_ms"][f], 6)
same("interval_ms.count", len(ivals), got["interval_ms"]["count"])
sub = sum(1 for v in ivals if 0 <= v < 1000)
timer = sum(1 for v in ivals if v >= 4500)
same("batching subsecond", sub, got["batching"]["subsecond_intervals"])
same("batching timer", timer, got["batching"]["timer_intervals"])
same("negative intervals", len(neg), got["negative_intervals"]["count"])
same("negative list", [(a, b) for a, b, _ in neg],
     [(x["prev_tid"], x["tid"]) for x in got["negative_intervals"]["list"]])
for (a, b, ms), x in zip(neg, got["negative_intervals"]["list"]):
    same("negative %d->%d ms" % (a, b), ms, x["ms"], 6)
same("shared transactions", sum(shared),
     got["shared_commit_times"]["transactions"])
same("shared times", len(shared), got["shared_commit_times"]["times"])
same("shared largest", max(shared) if shared else 0,
     got["shared_commit_times"]["largest"])
if mode == "live":
    pi = got["proc_info"]
    same("proc transactions", n, pi["transactions"])
    same("proc each_up_to", maxtx, pi["each_up_to"])
    same("proc blocks per transaction", datab // n if n else None,
         pi["blocks_per_transaction"])
    same("proc logged blocks per transaction", logb // n if n else None,
         pi["logged_blocks_per_transaction"])
    same("uncommitted", len(d["transactions"]) - n, got["uncommitted"])
for key, v in (("blocks", blocks), ("tags", tags), ("interval_ms", ivals)):
    h = hist(v)
    g = got["histograms"][key]
    same("hist %s zero" % key, h["zero"], g["zero"])
    bk = g["buckets"]
    if key == "interval_ms":
        same("hist interval negative", h["negative"], g["negative"])
        same("hist interval (0,1)", (0, 1, h["below_one"]),
             (bk[0]["from"], bk[0]["to"], bk[0]["count"]))
        bk = bk[1:]
    top = max(h["b"]) + 1 if h["b"] else 0
    same("hist %s buckets" % key, top, len(bk))
    for k, x in enumerate(bk):
        same("hist %s [%d,%d)" % (key, 2 ** k, 2 ** (k + 1)),
             (2 ** k, 2 ** (k + 1), h["b"].get(k, 0)),
             (x["from"], x["to"], x["count"]))

if mode == "older":
    print("ok: %d figures of the older transactions of %s equal the "
          "oracle's (%d transactions)" % (checked, image, n))
    sys.exit(0)

# --- the text report: the same figures -----------------------------------
text = open(stext).read()


def has(line):
    global checked
    if line not in text:
        fail("text: missing %r" % line)
    checked += 1


has("live log (what the kernel replays): %d transactions\n" % n)
if n:
    has("in /proc/fs/jbd2/<dev>/info terms: %d transactions, each up to %d "
        "blocks; average %d blocks per transaction, %d logged blocks per "
        "transaction\n" % (n, maxtx, datab // n, logb // n))
    has("  log: %d jblocks of %d bytes: %d data (tags), %d descriptor "
        "(%.1f%%), %d revoke (%.1f%%), %d commit (%.1f%%); overhead %d "
        "(%.1f%%)\n" % (logb, bs, datab, desc, 100 * desc / logb, rev,
                        100 * rev / logb, com, 100 * com / logb,
                        desc + rev + com, 100 * (desc + rev + com) / logb))
    for label, v in (("log blocks (jblocks)", blocks),
                     ("tags (fs blocks)", tags)):
        e = dist(v)
        has("  %-24s %10d %9d %9.1f %10.3f %9d %9d\n" % (
            label, e["total"], e["min"], e["median"], e["mean"], e["p90"],
            e["max"]))
    e = dist(ivals)
    if e:
        has("  %-24s %10s %9.3f %9.3f %10.3f %9.3f %9.3f\n" % (
            "commit interval (ms)", "-", e["min"], e["median"], e["mean"],
            e["p90"], e["max"]))
    has("  tids %d-%d, " % (trans[0]["tid"], trans[-1]["tid"]))
    has("span %.3f s" % span)
    has("  revoke records: %d\n" % sum(t["nrevokes"] for t in trans))
    has("  commit intervals: %d (between consecutive tids)\n" % len(ivals))
    if ivals:
        has("  batching: %d of %d intervals under 1 s (commits forced by "
            "fsync or a full transaction), %d of 4.5 s or more" % (
                sub, len(ivals), timer))
    if shared:
        has("  shared commit times: %d of %d transactions share their "
            "commit time with another (%d times, up to %d at one)" % (
                sum(shared), n, len(shared), max(shared)))
    else:
        has("  shared commit times: none\n")
    if neg:
        has("  negative intervals (commit time went back): %d:" % len(neg))
        for a, b, ms in neg:
            has(" tid %d -> %d: %.3f ms" % (a, b, ms))
    else:
        has("  negative intervals (commit time went back): none\n")
    h = hist(ivals)
    if not ivals:
        has("  commit interval, ms (log2 buckets)\n    (no values)\n")
    else:
        has("    %14s %8d |" % ("< 0 (back)", h["negative"]))
        has("    %14s %8d |" % ("0", h["zero"]))
        has("    %14s %8d |" % ("(0, 1)", h["below_one"]))
    for k, c in sorted(h["b"].items()):
        has("    %14s %8d |" % ("[%d, %d)" % (2 ** k, 2 ** (k + 1)), c))
    for k, c in sorted(hist(blocks)["b"].items()):
        has("    %14s %8d |" % (str(2 ** k) if k == 0 else
                               "%d-%d" % (2 ** k, 2 ** (k + 1) - 1), c))
print("ok: %d figures of %s equal the oracle's (%d transactions)" % (
    checked, image, n))
