#!/usr/bin/env python3
# wlog_stats_oracle.py --- the figures of `e4replay --stats --write-log`
# computed independently of libe4, compared figure by figure with its
# JSON and text reports (tests/b_wlog).
#
# Usage: wlog_stats_oracle.py BASE LOG list.json stats.json stats.txt
#
# From `e4replay --write-log=LOG --list --json BASE` (entries: flags,
# sector, nr_sectors; each header also read back from LOG with struct to
# place the data), e2fsprogs and the log itself:
#   - BASE's block size (dumpe2fs -h) and journal area (debugfs `stat <8>`
#     extents, checked against `blocks <8>`);
#   - the commit writes: a write entry whose data holds, in a whole fs
#     block of the journal area, the jbd2 magic 0xc03b3998 with block
#     type 2 (the tid: h_sequence), the first such block of the entry;
#   - per commit write C, the entries after the previous one up to C:
#     FLUSH entries, writes split by the journal area (entries, sectors,
#     fs blocks touched once per entry), DISCARDs, MARKs;
#   - the files per commit: the device at C - 1 and at C (BASE plus the
#     entries, DISCARD as zeros), each recovered by `e2fsck -E
#     journal_only -y`, the initialized extents and i_generation of every
#     regular file reachable from the root (debugfs ls -p, ex, stat): the
#     inodes with a block (lblk -> pblk) initialized at C that was not so
#     mapped at C - 1 in the same (inode, generation), and those blocks;
#   - min / median / mean / p90 / max / total of each figure.
import json, os, re, struct, subprocess, sys, tempfile

JBD2_MAGIC = 0xc03b3998


def run(args, inp=None):
    return subprocess.run(args, input=inp, stdout=subprocess.PIPE,
                          stderr=subprocess.DEVNULL).stdout.decode()


def fail(msg):
    sys.exit("wlog_stats_oracle: " + msg)


def journal_blocks(base):
    txt = run(["debugfs", "-R", "stat <8>", base])
    ext = txt.split("EXTENTS:", 1)[1]
    blocks = set()
    for m in re.finditer(r"\((\d+)(?:-(\d+))?\):(\d+)(?:-(\d+))?", ext):
        p0 = int(m.group(3))
        p1 = int(m.group(4) or p0)
        blocks.update(range(p0, p1 + 1))
    listed = set(int(x) for x in
                 run(["debugfs", "-R", "blocks <8>", base]).split())
    if listed != blocks:
        fail("stat <8> and blocks <8> disagree")
    return blocks


def dist(vals, total=True):
    v = sorted(vals)
    n = len(v)
    if not n:
        d = dict(min=None, median=None, mean=None, p90=None, max=None)
    else:
        d = dict(min=v[0], max=v[-1], mean=round(sum(v) / n, 3),
                 median=v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2,
                 p90=v[(9 * n + 9) // 10 - 1])
    if total:
        d["total"] = sum(v)
    else:
        d["count"] = n
    return d


def files_of(img, bs):
    """{ino: (generation, {lblk: pblk} of initialized blocks)} of the
    regular files reachable from the root of img."""
    files, dirs, seen = set(), ["/"], {2}
    while dirs:
        txt = run(["debugfs", "-f", "-", img],
                  "".join('ls -p "%s"\n' % d for d in dirs).encode())
        nxt, cur = [], None
        for line in txt.splitlines():
            m = re.match(r'^debugfs: ls -p "(.*)"$', line)
            if m:
                cur = m.group(1)
                continue
            f = line.split("/")
            if len(f) < 7 or not f[1].isdigit() or cur is None:
                continue
            ino, mode, name = int(f[1]), int(f[2], 8) & 0o170000, f[5]
            if name in (".", "..") or not ino:
                continue
            if mode == 0o100000:
                files.add(ino)
            elif mode == 0o040000 and ino not in seen:
                seen.add(ino)
                nxt.append(cur.rstrip("/") + "/" + name)
        dirs = nxt
    out = {}
    if not files:
        return out
    cmds = "".join("stat <%d>\nex <%d>\n" % (n, n) for n in sorted(files))
    txt = run(["debugfs", "-f", "-", img], cmds.encode())
    ino = None
    for line in txt.splitlines():
        m = re.match(r"^debugfs: (stat|ex) <(\d+)>$", line)
        if m:
            ino = int(m.group(2))
            out.setdefault(ino, [None, {}])
            continue
        if ino is None:
            continue
        m = re.search(r"Generation: (\d+)", line)
        if m:
            out[ino][0] = int(m.group(1))
            continue
        m = re.match(r"^\s*(\d+)/\s*(\d+)\s+\d+/\s*\d+\s+(\d+)\s*-"
                     r"\s*(\d+)\s+(\d+)\s*-\s*(\d+)\s+(\d+)\s*(.*)$", line)
        if not m:
            continue
        level, depth = int(m.group(1)), int(m.group(2))
        if level != depth or "Uninit" in m.group(8):
            continue    # index node or unwritten extent
        l0, p0, p1 = int(m.group(3)), int(m.group(5)), int(m.group(6))
        for i in range(p1 - p0 + 1):
            out[ino][1][l0 + i] = p0 + i
    for ino, (gen, _) in out.items():
        if gen is None:
            fail("no generation for inode %d" % ino)
    return out


class Device:
    """BASE with the log's entries applied, recovered on demand."""

    def __init__(self, base, logp, ents, bs, tmp):
        self.dev = bytearray(open(base, "rb").read())
        self.log = open(logp, "rb")
        self.ents, self.bs, self.tmp = ents, bs, tmp
        self.point = -1
        self.cache = {}

    def at(self, p):
        if p in self.cache:
            return self.cache[p]
        assert p >= self.point
        while self.point < p:
            self.point += 1
            e = self.ents[self.point]
            a, b = e["sector"] * self.ss, (e["sector"] + e["nr_sectors"]) * self.ss
            if e["discard"]:
                self.dev[a:b] = bytes(b - a)
            elif e["data_off"] is not None:
                self.log.seek(e["data_off"])
                self.dev[a:b] = self.log.read(b - a)
        img = os.path.join(self.tmp, "p.img")
        with open(img, "wb") as f:
            f.write(self.dev)
        subprocess.run(["e2fsck", "-E", "journal_only", "-y", img],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.cache = {p: files_of(img, self.bs)}
        os.unlink(img)
        return self.cache[p]


def new_mappings(before, after):
    files, blocks = 0, 0
    for ino, (gen, m) in after.items():
        old = before.get(ino)
        om = old[1] if old and old[0] == gen else {}
        n = sum(1 for l, p in m.items() if om.get(l) != p)
        files += n > 0
        blocks += n
    return files, blocks


def main():
    base, logp, listp, statsp, textp = sys.argv[1:]
    lst = json.load(open(listp))
    ss = lst["log"]["sectorsize"]
    bs = int(re.search(r"^Block size:\s+(\d+)",
                       run(["dumpe2fs", "-h", base]), re.M).group(1))
    spb = bs // ss
    jset = journal_blocks(base)
    raw = open(logp, "rb").read()
    # Place every entry's data, each header read back from LOG.
    ents, pos = [], ss
    for j in lst["entries"]:
        sec, ns, fl, dl = struct.unpack_from("<QQQQ", raw, pos)
        if (sec, ns) != (j["sector"], j["nr_sectors"]):
            fail("entry %d: header differs from --list" % j["entry"])
        pos += ss
        disc = "DISCARD" in j["flags"]
        e = dict(sector=sec, nr_sectors=ns, flags=j["flags"], discard=disc,
                 data_off=None)
        if not disc and ns:
            e["data_off"] = pos
            pos += ns * ss
        ents.append(e)

    # Commit writes.
    commits = []
    for i, e in enumerate(ents):
        if e["data_off"] is None:
            continue
        first = (e["sector"] + spb - 1) // spb
        last = (e["sector"] + e["nr_sectors"]) // spb
        for b in range(first, last):
            if b not in jset:
                continue
            off = e["data_off"] + (b * spb - e["sector"]) * ss
            magic, btype, seq = struct.unpack_from(">III", raw, off)
            if magic == JBD2_MAGIC and btype == 2:
                commits.append((i, seq))
                break

    def span(a, b):   # entries a..b inclusive
        s = dict(entries=0, flushes=0, fua=0, data_entries=0,
                 data_sectors=0, data_blocks=0, journal_entries=0,
                 journal_sectors=0, journal_blocks=0, discards=0,
                 discard_sectors=0, marks=0)
        for e in ents[a:b + 1]:
            s["entries"] += 1
            s["flushes"] += "FLUSH" in e["flags"]
            s["fua"] += "FUA" in e["flags"]
            s["marks"] += "MARK" in e["flags"]
            if e["discard"]:
                s["discards"] += 1
                s["discard_sectors"] += e["nr_sectors"]
                continue
            if e["data_off"] is None:
                continue
            secs = range(e["sector"], e["sector"] + e["nr_sectors"])
            js = [x for x in secs if x // spb in jset]
            ds = [x for x in secs if x // spb not in jset]
            s["journal_entries"] += bool(js)
            s["journal_sectors"] += len(js)
            s["journal_blocks"] += len(set(x // spb for x in js))
            s["data_entries"] += bool(ds)
            s["data_sectors"] += len(ds)
            s["data_blocks"] += len(set(x // spb for x in ds))
        return s

    tmp = tempfile.mkdtemp(prefix="wlog-stats.")
    dev = Device(base, logp, ents, bs, tmp)
    dev.ss = ss
    want, prev = [], -1
    for c, tid in commits:
        w = dict(tid=tid, commit_entry=c, first_entry=prev + 1,
                 last_entry=c, interval=None if prev < 0 else c - prev)
        w.update(span(prev + 1, c))
        before = dev.at(c - 1) if c > 0 else dev.at(-1)
        after = dev.at(c)
        w["files"], w["new_blocks"] = new_mappings(before, after)
        want.append(w)
        prev = c
    os.rmdir(tmp)
    tail = span(prev + 1, len(ents) - 1)
    whole = span(0, len(ents) - 1)

    got = json.load(open(statsp))["stats"]["write_log"]
    errs = []

    def eq(what, a, b):
        if a != b:
            errs.append("%s: e4replay %r, oracle %r" % (what, a, b))

    eq("block_size", got["block_size"], bs)
    eq("sectorsize", got["sectorsize"], ss)
    area = set()
    for r in got["journal_area"]:
        area.update(range(r["pblk"], r["pblk"] + r["len"]))
    eq("journal area", sorted(area), sorted(jset))
    eq("commits", [(c["tid"], c["commit_entry"]) for c in got["commits"]],
       [(w["tid"], w["commit_entry"]) for w in want])
    for g, w in zip(got["commits"], want):
        for k, v in w.items():
            eq("tid %d %s" % (w["tid"], k), g.get(k), v)
        eq("tid %d preflush" % w["tid"], g["preflush"],
           "FLUSH" in ents[w["commit_entry"]]["flags"])
    for k, v in tail.items():
        eq("after_last_commit " + k, got["after_last_commit"][k], v)
    eq("after_last_commit first_entry", got["after_last_commit"]["first_entry"],
       prev + 1 if prev + 1 < len(ents) else None)
    sm = got["summary"]
    for k, v in whole.items():
        eq("summary log " + k, sm["log"][k], v)
    eq("summary commits", sm["commits"], len(want))
    eq("summary commits_with_files", sm["commits_with_files"], len(want))
    eq("summary no_flush_commits", sm["no_flush_commits"],
       sum(1 for w in want if not w["flushes"]))
    eq("summary preflush_commits", sm["preflush_commits"],
       sum(1 for w in want if "FLUSH" in ents[w["commit_entry"]]["flags"]))
    for k in ("flushes", "data_entries", "data_blocks", "journal_blocks",
              "files"):
        eq("summary " + k, sm[k], dist([w[k] for w in want]))
    eq("summary interval_entries", sm["interval_entries"],
       dist([w["interval"] for w in want[1:]], total=False))

    # The text report: one row per commit write, the same figures.
    rows = []
    for line in open(textp):
        f = line.split()
        if len(f) >= 12 and f[0].isdigit() and f[1].isdigit() and \
                f[4] in ("y", "-"):
            rows.append(f)
    eq("text rows", len(rows), len(want))
    for f, w in zip(rows, want):
        eq("text tid %d" % w["tid"], f[:12], [
            str(w["tid"]), str(w["commit_entry"]),
            "-" if w["interval"] is None else str(w["interval"]),
            str(w["flushes"]),
            "y" if "FLUSH" in ents[w["commit_entry"]]["flags"] else "-",
            str(w["data_entries"]), str(w["data_blocks"]),
            str(w["journal_entries"]), str(w["journal_blocks"]),
            str(w["discards"]), str(w["files"]), f[11]])
    if errs:
        for e in errs[:40]:
            print("DIFF " + e)
        fail("%d figure(s) differ" % len(errs))
    print("ok: %d commit writes (tids %s), %d files, %d data blocks, %d "
          "journal blocks, %d flushes: every figure equals the oracle's" %
          (len(want), "%d-%d" % (want[0]["tid"], want[-1]["tid"]) if want
           else "-", sum(w["files"] for w in want),
           sum(w["data_blocks"] for w in want),
           sum(w["journal_blocks"] for w in want),
           sum(w["flushes"] for w in want)))


main()
