#!/usr/bin/env python3
"""cmp.py A B: two replayed images, block for block outside the journal,
with the superblock and inode timestamps masked (the kernel's mount and
e4replay run at different times).  Prints the differences, exits 1 on any.
"""
import re, struct, subprocess, sys

def run(*a):
    return subprocess.run(a, capture_output=True, text=True).stdout

a, b = sys.argv[1], sys.argv[2]
fa, fb = open(a, 'rb').read(), open(b, 'rb').read()
sb = fa[1024:2048]
bs = 1024 << struct.unpack_from('<I', sb, 24)[0]
ipg = struct.unpack_from('<I', sb, 40)[0]
isz = struct.unpack_from('<H', sb, 88)[0]
journal = set()
for tok in run('debugfs', '-R', 'blocks <8>', a).split():
    journal.add(int(tok))
itable = {}
g = 0
for line in run('dumpe2fs', a).splitlines():
    line = line.strip()
    m = re.match(r'Group (\d+):', line)
    if m:
        g = int(m.group(1))
    if line.startswith('Inode table at '):
        r = line.split()[3]
        lo, hi = (int(x) for x in r.split('-'))
        for k in range(lo, hi + 1):
            itable[k] = (g, k - lo)
bad = 0

# superblock: the fields the cleanup decides
for name, off, ln in (('state', 58, 2),
                      ('state', 58, 2), ('ro_compat', 100, 4),
                      ('incompat', 96, 4), ('last_orphan', 232, 4),
                      ):
    if sb[off:off + ln] != fb[1024 + off:1024 + off + ln]:
        print('superblock %s differs: %s %s' % (name, sb[off:off + ln].hex(),
              fb[1024 + off:1024 + off + ln].hex()))
        bad += 1

TIMES = [(8, 16), (16, 20), (0x7c, 0x7e)]
EXTRA = [(0x82, 0x98)]

def mask(ino_bytes):
    x = bytearray(ino_bytes)
    for lo, hi in TIMES + EXTRA:
        if hi <= len(x):
            x[lo:hi] = b'\0' * (hi - lo)
    # dtime: set or not
    d = struct.unpack_from('<I', x, 20)[0]
    struct.pack_into('<I', x, 20, 1 if d > 1000000 else d)
    return bytes(x)

nblocks = len(fa) // bs
for blk in range(nblocks):
    if blk in journal:
        continue
    x, y = fa[blk * bs:(blk + 1) * bs], fb[blk * bs:(blk + 1) * bs]
    if blk == 0 or (bs == 1024 and blk == 1):
        x = x[:1024] + x[2048:] if bs > 1024 else b''
        y = y[:1024] + y[2048:] if bs > 1024 else b''
    if x == y:
        continue
    if blk in itable:
        g, k = itable[blk]
        for i in range(bs // isz):
            p, q = x[i * isz:(i + 1) * isz], y[i * isz:(i + 1) * isz]
            if p != q and mask(p) != mask(q):
                ino = g * ipg + k * (bs // isz) + i + 1
                print('inode %d differs' % ino)
                bad += 1
        continue
    print('block %d differs' % blk)
    bad += 1
print('%d difference(s)' % bad)
sys.exit(1 if bad else 0)
