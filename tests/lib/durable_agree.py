#!/usr/bin/env python3
# durable_agree.py --- e4replay --write-log --check-durability against
# tests/lib/durable_oracle.py, mark by mark, on the files a test left in
# the current directory: NAME.json (--check-durability --json -v),
# NAME.oracle.json (the oracle), NAME.list.json (--list --json).  Every
# fsync/fdatasync mark is in both; kept where the oracle keeps it; a
# violation names a known field and missing entries that are writes the
# durable state dropped (none for an unrecoverable mark whose promised
# state does not recover either: then the oracle's kernel does not
# recover the promised state, nor the durable one); a mark not checked
# only where the oracle's promised state does not recover.  Writes
# NAME.pick: 3 checked marks to materialize, broken ones first.  Used by
# tests/w_durable and tests/w_durable_fcend.
#
# Usage: durable_agree.py NAME
import json, sys
n = sys.argv[1]
d = json.load(open(n + ".json"))
o = {m["entry"]: m for m in json.load(open(n + ".oracle.json"))["marks"]}
ents = json.load(open(n + ".list.json"))["entries"]
fields = {"unrecoverable", "inode", "name", "type", "size", "data", "extra"}
# Fail closed only where the kernel's recovery of the promised state
# fails too (fast commits: "run to the end of the journal").
for u in d["unchecked"]:
    if u["entry"] in o:
        assert not o[u["entry"]]["promised"]["recovered"], (u, o[u["entry"]])
assert d["violations"] == sum(len(p["violations"]) for p in d["promises"])
assert d["broken_promises"] == sum(1 for p in d["promises"]
                                   if p["violations"])
seen = 0
for p in d["promises"]:
    # the durable point: the last FLUSH entry at or before the mark
    fl = [e["entry"] for e in ents[:p["entry"] + 1] if "FLUSH" in e["flags"]]
    assert p["flush_entry"] == (fl[-1] if fl else None), p
    for v in p["violations"]:
        assert v["field"] in fields, v
        if v["field"] == "unrecoverable" and v["promised_error"]:
            # the promised state is lost too (the kernel's own fast
            # commits filled the area): no entry makes the difference;
            # the oracle's kernel agrees below
            assert v["missing_total"] == len(v["missing_entries"]) == 0, v
            continue
        assert v["missing_total"] >= len(v["missing_entries"]) >= 1, v
        for x in v["missing_entries"]:
            # a write the durable state dropped: after the FLUSH, by the
            # mark, no FUA
            e = ents[x]
            assert (p["flush_entry"] or 0) <= x <= p["entry"], (p, v)
            assert e["nr_sectors"] and "FUA" not in e["flags"], (p, v, e)
    if p["promise"] not in ("fsync", "fdatasync"):
        continue
    m = o.pop(p["entry"])
    seen += 1
    if not m["promised"]["recovered"]:
        # a promise nothing keeps: lost whole, or not checked
        assert not p["checked"] or [v["field"] for v in p["violations"]] \
            == ["unrecoverable"], (n, p, m)
        assert not p["violations"] or not m["durable"]["recovered"], m
        assert all(v["promised_error"] for v in p["violations"]), (n, p, m)
        print("ok: %s: mark %d: the kernel does not recover the promised "
              "state; the check: %s" % (n, p["entry"], "unrecoverable"
              if p["violations"] else "not checked"))
        continue
    assert m["promised"]["exists"], m
    assert m["kept"] == (not p["violations"]), (n, p, m)
    assert not any(v.get("promised_error") for v in p["violations"]), \
        (n, p, m)
assert not o, ("marks the check did not list", o)
print("ok: %s: check and oracle agree on %d fsync/fdatasync marks (%d "
      "broken); %d violation(s) in all" % (n, seen,
      sum(1 for p in d["promises"] if p["violations"]
          and p["promise"] in ("fsync", "fdatasync")), d["violations"]))
# three marks to materialize: broken ones first, fsync and fdatasync
ps = [p for p in d["promises"] if p["promise"] in ("fsync", "fdatasync")
      and p["checked"] and not any(v["field"] == "unrecoverable"
                                   for v in p["violations"])]
ps.sort(key=lambda p: (not p["violations"], p["promise"], p["entry"]))
pick = [ps[0], ps[len(ps) // 2], ps[-1]]
with open(n + ".pick", "w") as f:
    for p in pick:
        f.write("%d %s\n" % (p["entry"], p["path"]))
