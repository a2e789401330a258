#!/usr/bin/env python3
"""cmp.py KERNEL OURS: two recovered images block for block outside the
journal (debugfs blocks <8> of KERNEL); in the primary superblock the
mount's bookkeeping is masked (s_mtime, s_wtime and their _hi bytes,
s_mnt_count, s_kbytes_written, s_checksum: the kernel's recovery is a
mount, e4replay's is not).  Prints the differing blocks and their count,
exits 1 on any."""
import struct, subprocess, sys

a, b = sys.argv[1], sys.argv[2]
fa, fb = open(a, 'rb').read(), open(b, 'rb').read()
if len(fa) != len(fb):
    print('sizes differ: %d %d' % (len(fa), len(fb)))
    sys.exit(1)
bs = 1024 << struct.unpack_from('<I', fa, 1024 + 24)[0]
journal = set(int(t) for t in subprocess.run(
    ['debugfs', '-R', 'blocks <8>', a], capture_output=True,
    text=True).stdout.split())
if not journal:
    print('no journal blocks listed')
    sys.exit(1)
MASK = ((44, 4), (48, 4), (52, 2), (376, 8), (628, 2), (1020, 4))


def sb(img):
    x = bytearray(img[1024:2048])
    for off, ln in MASK:
        x[off:off + ln] = b'\0' * ln
    return bytes(x)


bad = []
if sb(fa) != sb(fb):
    bad.append('superblock')
CHUNK = 256 * bs
for start in range(0, len(fa), CHUNK):
    if fa[start:start + CHUNK] == fb[start:start + CHUNK]:
        continue
    for blk in range(start // bs, min(start + CHUNK, len(fa)) // bs):
        if blk in journal:
            continue
        x, y = fa[blk * bs:(blk + 1) * bs], fb[blk * bs:(blk + 1) * bs]
        if blk * bs <= 1024 < (blk + 1) * bs:   # the superblock's block
            o = 1024 - blk * bs
            x, y = x[:o] + x[o + 1024:], y[:o] + y[o + 1024:]
        if x != y:
            bad.append(str(blk))
print('%d difference(s)%s' % (len(bad), (': ' + ' '.join(bad[:20]))
                              if bad else ''))
sys.exit(1 if bad else 0)
