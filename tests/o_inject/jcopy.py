#!/usr/bin/env python3
# jcopy.py --- test helper for o_inject: overwrite the journaled copy of fs
# block P logged in transaction SEQ with P's stale-data stamp, and fix the
# csum v3 tag checksum and the descriptor tail checksum (journal.rst,
# "Checksums": seed = crc32c(~0, j_uuid); tag = crc32c(seed, be32 seq,
# block); descriptor tail = crc32c(seed, block with the tail zeroed)).
# Usage: jcopy.py IMAGE BLOCKSIZE P SEQ JBLK JMAP...   where JMAP lists the
# fs block of every journal block (debugfs "blocks <8>").
import struct, sys

def table():
    t = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
        t.append(c)
    return t
T = table()

def crc32c(seed, data):
    c = seed
    for b in data:
        c = T[(c ^ b) & 0xff] ^ (c >> 8)
    return c

def stamp(off, n):
    out = bytearray()
    for u in range(off // 1024, (off + n) // 1024):
        out += b"E4JSTALE" + struct.pack("<Q", u) + b"\xa5" * 1008
    return bytes(out)

img, bs, p, seq, jblk = sys.argv[1], *map(int, sys.argv[2:6])
jmap = [int(x) for x in sys.argv[6:]]
f = open(img, "r+b")
def rd(j):
    f.seek(jmap[j] * bs)
    return bytearray(f.read(bs))
def wr(j, b):
    f.seek(jmap[j] * bs)
    f.write(b)
jsb = rd(0)
assert struct.unpack(">I", jsb[0x28:0x2c])[0] & 0x10, "csum v3 only"
seed = crc32c(0xffffffff, jsb[0x30:0x40])
# The descriptor of SEQ holding the tag of P: walk back from JBLK.
for d in range(jblk - 1, 0, -1):
    b = rd(d)
    magic, btype, s = struct.unpack(">III", b[0:12])
    if magic == 0xC03B3998 and btype == 1 and s == seq:
        break
else:
    sys.exit("no descriptor")
off, data = 12, stamp(p * bs, bs)
while off + 16 <= bs - 4:
    nr, fl, hi, cs = struct.unpack(">IIII", b[off:off + 16])
    if (hi << 32 | nr) == p:
        b[off + 12:off + 16] = struct.pack(
            ">I", crc32c(crc32c(seed, struct.pack(">I", seq)), data))
        break
    off += 16 + (0 if fl & 2 else 16)
    assert not fl & 8, "tag not found"
b[bs - 4:] = b"\0\0\0\0"
b[bs - 4:] = struct.pack(">I", crc32c(seed, b))
wr(d, b)
wr(jblk, bytearray(data))
print("stamped journal copy of %d (tid %d) at jblock %d" % (p, seq, jblk))
