#!/usr/bin/env python3
# durable_oracle.py --- an oracle of e4replay --write-log --check-durability
# built from e2fsprogs only and a log applier of its own (no libe4): at
# every "fsync PATH" / "fdatasync PATH" MARK M of LOG over BASE, two
# images are written into WORKDIR: the promised one (BASE with entries
# 0..M applied) and the durable one (BASE with the entries before the last
# FLUSH entry F <= M applied, and the FUA writes of F..M), each recovered
# by e2fsck -E journal_only -y; PATH is read from each with debugfs (stat:
# exists, type, size; cat: the bytes).  The promise is kept when PATH is
# in both with the same type, size and bytes (fsync also: it exists in the
# durable one; this oracle names files by path, which the workloads of
# its tests never rename).  A directory: its entries (inode, name) from
# debugfs ls -p instead of size and bytes.
#
# With --kernel, each image is recovered by a kernel mount instead (a loop
# device of its own, unmounted and detached before the next; e2fsck 1.47.0
# fails on some fast-commit logs the kernel replays) and PATH read there.
#
# Usage: durable_oracle.py [--kernel] BASE LOG WORKDIR [ENTRY...]
#   (only the marks at ENTRY... when given)
# Prints one JSON object: {"marks": [{"entry", "label", "kind", "path",
# "flush", "promised": {...}, "durable": {...}, "kept"}]}; each state is
# {"recovered": bool, "exists": bool, "type", "size", "sha256"}.
import hashlib
import json
import os
import re
import struct
import subprocess
import sys

FLUSH, FUA, DISCARD, MARK = 1, 2, 4, 8


def read_log(path):
    f = open(path, "rb")
    magic, ver, nr, ss = struct.unpack("<QQQI", f.read(28))
    assert magic == 0x6a736677736872 and ver == 1, (hex(magic), ver)
    ents, pos = [], ss
    for _ in range(nr):
        f.seek(pos)
        sec, ns, fl, dl = struct.unpack("<QQQQ", f.read(32))
        label = f.read(dl).decode("utf-8", "replace") if fl & MARK else None
        pos += ss
        data = None
        if ns and not fl & DISCARD:
            f.seek(pos)
            data = f.read(ns * ss)
            pos += ns * ss
        ents.append((sec, ns, fl, label, data))
    return ss, ents


def apply(dev, ss, e):
    sec, ns, fl, _, data = e
    if not ns:
        return
    if fl & DISCARD:
        dev[sec * ss:(sec + ns) * ss] = bytes(ns * ss)
    else:
        dev[sec * ss:(sec + ns) * ss] = data


def read_state(img, path):
    """Recover IMG with e2fsck -E journal_only, read PATH with debugfs."""
    r = subprocess.run(["e2fsck", "-E", "journal_only", "-y", img],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    st = {"recovered": r.returncode in (0, 1), "exists": False,
          "type": None, "size": None, "sha256": None}
    if not st["recovered"]:
        return st
    out = subprocess.run(["debugfs", "-R", "stat " + path, img],
                         capture_output=True, text=True).stdout
    m = re.search(r"Type: (\S+).*?\n.*?Size: (\d+)", out, re.S)
    if not m:
        return st
    st.update(exists=True, type=m.group(1), size=int(m.group(2)))
    if m.group(1) == "directory":
        # its entries (inode, name), not its size: what a directory holds
        out = subprocess.run(["debugfs", "-R", "ls -p " + path, img],
                             capture_output=True, text=True).stdout
        ents = sorted((int(x[1]), x[5]) for x in
                      (ln.split("/") for ln in out.splitlines())
                      if len(x) >= 7 and x[5] not in (".", ".."))
        st["size"] = None
        st["sha256"] = hashlib.sha256(repr(ents).encode()).hexdigest()
    elif m.group(1) == "regular":
        data = subprocess.run(["debugfs", "-R", "cat " + path, img],
                              capture_output=True).stdout
        st["sha256"] = hashlib.sha256(data).hexdigest()
    return st


def type_name(mode):
    import stat
    return ("regular" if stat.S_ISREG(mode) else
            "directory" if stat.S_ISDIR(mode) else
            "symlink" if stat.S_ISLNK(mode) else "other")


def read_state_kernel(img, path, mnt):
    """Recover IMG by a kernel mount (its loop device and mount removed
    before returning, whatever happens), read PATH as read_state()."""
    st = {"recovered": False, "exists": False, "type": None, "size": None,
          "sha256": None}
    loop = subprocess.run(["losetup", "-f", "--show", img],
                          capture_output=True, text=True).stdout.strip()
    if not loop:
        raise RuntimeError("losetup failed on " + img)
    mounted = False
    try:
        r = subprocess.run(["mount", "-t", "ext4", loop, mnt],
                           stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
        if r.returncode:
            return st
        mounted = True
        st["recovered"] = True
        full = os.path.join(mnt, path.lstrip("/"))
        try:
            s = os.lstat(full)
        except FileNotFoundError:
            return st
        st.update(exists=True, type=type_name(s.st_mode), size=s.st_size)
        if st["type"] == "directory":
            ents = sorted((e.inode(), e.name) for e in os.scandir(full))
            st["size"] = None
            st["sha256"] = hashlib.sha256(repr(ents).encode()).hexdigest()
        elif st["type"] == "regular":
            st["sha256"] = hashlib.sha256(open(full, "rb").read()).hexdigest()
        return st
    finally:
        if mounted:
            subprocess.run(["umount", mnt])
        subprocess.run(["losetup", "-d", loop])


def main():
    args = sys.argv[1:]
    kernel = args[0] == "--kernel"
    if kernel:
        args = args[1:]
    base, logp, work = args[:3]
    only = {int(x) for x in args[3:]}
    mnt = os.path.join(work, "mnt")
    if kernel:
        os.makedirs(mnt, exist_ok=True)
    rd = (lambda i, p: read_state_kernel(i, p, mnt)) if kernel else \
        read_state
    ss, ents = read_log(logp)
    dev = bytearray(open(base, "rb").read())
    at_flush = bytes(dev)   # entries before the last FLUSH so far
    flush = -1
    fua = []                # FUA entries since it
    marks = []
    for i, e in enumerate(ents):
        sec, ns, fl, label, data = e
        if fl & FLUSH:
            at_flush, flush, fua = bytes(dev), i, []
        apply(dev, ss, e)
        if fl & FUA and ns:
            fua.append(e)
        if not fl & MARK or (only and i not in only):
            continue
        m = re.match(r"^(fsync|fdatasync) (.*[^ ])$", label or "")
        if not m:
            continue
        path = "/" + "/".join(p for p in m.group(2).split("/") if p)
        prom = os.path.join(work, "promised.img")
        dur = os.path.join(work, "durable.img")
        open(prom, "wb").write(dev)
        d = bytearray(at_flush)
        for x in fua:
            apply(d, ss, x)
        open(dur, "wb").write(d)
        p, q = rd(prom, path), rd(dur, path)
        kept = (p["exists"] and q["exists"] and p["type"] == q["type"] and
                p["size"] == q["size"] and p["sha256"] == q["sha256"])
        marks.append({"entry": i, "label": label, "kind": m.group(1),
                      "path": path, "flush": flush, "promised": p,
                      "durable": q, "kept": kept})
    for f in ("promised.img", "durable.img"):
        try:
            os.unlink(os.path.join(work, f))
        except FileNotFoundError:
            pass
    json.dump({"marks": marks}, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
