#!/usr/bin/env python3
"""work.py setup|work NAME MNT BS: the workloads of r_fc_goal's crash
images.  setup runs before the full commit (sync), work after it: its
writes reach the log only as fast commits (fsync), 1-block pieces at
distinct, non-adjacent offsets so that no two extents merge."""
import os, sys

step, name, mnt, bs = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])


def path(*p):
    return os.path.join(mnt, *p)


def piece(fd, lblk):
    os.pwrite(fd, os.urandom(bs), lblk * bs)


def setup_grow():
    for f in ("f1", "f2"):
        with open(path(f), "wb") as o:
            o.write(os.urandom(8 * bs if bs == 1024 else 2 * bs))


def work_grow():
    # 3 extents after the first: the 5th needs a leaf block (depth 0 -> 1)
    fds = [os.open(path(f), os.O_WRONLY) for f in ("f1", "f2")]
    for k in range(6):
        for fd in fds:
            piece(fd, 10 + 3 * k)
            os.fsync(fd)


def setup_split():
    for f in ("deep", "mid", "app"):
        with open(path(f), "wb") as o:
            o.write(os.urandom(2 * bs))


def work_split():
    # deep: 120 extents appended in order, a full leaf split at its last
    # extent (1 KiB blocks: 84 extents a leaf)
    fd = os.open(path("deep"), os.O_WRONLY)
    for r in range(12):
        for p in range(10):
            piece(fd, 10 + 3 * (r * 10 + p))
        os.fsync(fd)
    # mid: a full leaf filled from its end, then split in its middle
    fd = os.open(path("mid"), os.O_WRONLY)
    order = list(range(200, 10, -2)) + list(range(11, 200, 6))
    for i, k in enumerate(order):
        piece(fd, 10 + 3 * k)
        if i % 9 == 8:
            os.fsync(fd)
    os.fsync(fd)
    # app: 4 extents in the inode, then appends that merge into the last
    fd = os.open(path("app"), os.O_WRONLY)
    for k in (10, 20, 30) + tuple(range(31, 40)):
        piece(fd, k)
        os.fsync(fd)


def setup_groups():
    # directories spread over the groups (Orlov): files of other groups
    for k in range(6):
        os.mkdir(path("d%d" % k))
        with open(path("d%d" % k, "f"), "wb") as o:
            o.write(os.urandom(3 * bs))
    # u: an unwritten extent written into (extents cut: update_ex)
    fd = os.open(path("u"), os.O_CREAT | os.O_WRONLY)
    os.write(fd, os.urandom(bs))
    os.posix_fallocate(fd, 4 * bs, 60 * bs)
    os.close(fd)
    # v: 50 extents and a long unwritten one cut into many
    fd = os.open(path("v"), os.O_CREAT | os.O_WRONLY)
    for k in range(0, 100, 2):
        piece(fd, k)
    os.posix_fallocate(fd, 200 * bs, 300 * bs)
    os.close(fd)


def work_groups():
    fds = [os.open(path("d%d" % k, "f"), os.O_WRONLY) for k in range(6)]
    for p in range(7):
        for fd in fds:
            piece(fd, 10 + 3 * p)
            os.fsync(fd)
    fd = os.open(path("u"), os.O_WRONLY)
    for k in (10, 20, 30, 40, 50):
        piece(fd, k)
        os.fsync(fd)
    fd = os.open(path("v"), os.O_WRONLY)
    for k in range(210, 480, 3):
        piece(fd, k)
        if k % 30 == 0:
            os.fsync(fd)
    os.fsync(fd)


globals()[step + "_" + name]()
