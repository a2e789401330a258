#!/usr/bin/env python3
# runs.py SCHEMA: the runs of t_json_schema (see its script), in the
# current directory, which holds the images.  Each run is made twice,
# with --json and without, from a fresh copy of its image: the exit
# status must be the same (--json changes what is printed, not what is
# done), stdout of the --json run must hold exactly one JSON document,
# valid against SCHEMA, whose "exit" is that status.
import hashlib, json, os, shutil, subprocess, sys
import jsonschema

schema = json.load(open(sys.argv[1]))
jsonschema.Draft202012Validator.check_schema(schema)
val = jsonschema.Draft202012Validator(schema)
E = {t: os.environ[v] for t, v in (("e4replay", "E4REPLAY"),
     ("e4tune", "E4TUNE"), ("e4stamp", "E4STAMP"), ("e4debug", "E4DEBUG"))}
QNAME = b'q"u\'o\nte\xff.img'
IMAGES = [b"good.img", b"random.img", b"trunc.img", b"refused.img",
          b"nojournal.img", QNAME]
BAD = (b"random.img", b"trunc.img")

# (tool, args before IMAGE, args after IMAGE, images or None for every
# one, digest?).  "X" in args is the run's scratch output name.
RUNS = [
    ("e4replay", ["-n"], [], None, True),
    ("e4replay", ["-n", "-v"], [], None, False),
    ("e4replay", [], [], None, True),
    ("e4replay", ["-o", "X"], [], None, False),
    ("e4replay", ["--check-order"], [], None, True),
    ("e4replay", ["--check-order", "-o", "X"], [], None, False),
    ("e4replay", ["--check-order", "-n"], [], None, False),
    ("e4replay", ["--stats"], [], None, True),
    ("e4tune", ["-l"], [], None, True),
    ("e4tune", ["--list-unwritten"], [], None, False),
    ("e4stamp", ["-c"], [], None, True),
    ("e4debug", ["-R", "jsb --json"], [], None, False),
    ("e4debug", ["-R", "transactions --json"], [], None, False),
    ("e4debug", ["-R", "check_order --json"], [], None, False),
    ("e4debug", ["-R", "jstats --json"], [], None, False),
    ("e4debug", ["-R", "lsuw --json"], [], None, False),
    ("e4debug", ["-R", "itable --json"], [], None, False),
]
WLOG = [["--list"], ["--at=5", "-n"], ["--check-order"],
        ["--check-durability"], ["--stats"]]
for w in WLOG:
    RUNS.append(("e4replay", ["--write-log=w.log"] + w, [],
                 [b"wbase.img", b"random.img", b"trunc.img"], False))
# Usage errors and refused combinations: still one document each.
USAGE = [
    ("e4replay", ["--bogus"], 16, None),
    ("e4replay", [], 16, "noimage"),
    ("e4replay", ["--upto", "x1"], 16, None),
    ("e4replay", ["-n", "-o", "X"], 16, None),
    ("e4replay", ["--json=yaml"], 16, "nojson"),
    ("e4tune", ["-O", "^journal_64bit"], 1, None),
    ("e4tune", ["--bogus"], 1, None),
    ("e4stamp", [], 16, None),
    ("e4stamp", ["-c", "-s", "4096"], 16, None),
    ("e4debug", ["-R", "jsb --json --bogus"], 1, None),
]
FAIL = {"e4replay": 8 | 16, "e4stamp": 8 | 16, "e4tune": ~0, "e4debug": ~0}


def one_doc(label, out):
    text = out.decode("utf-8")
    dec = json.JSONDecoder()
    i = len(text) - len(text.lstrip())
    try:
        doc, end = dec.raw_decode(text, i)
    except ValueError as e:
        raise SystemExit("%s: no JSON document (%s): %r" %
                         (label, e, text[:300]))
    if text[end:].strip():
        raise SystemExit("%s: more than one document: %r" %
                         (label, text[end:][:200]))
    return doc


def fresh(img):
    shutil.copyfile(img, b"run.img")
    for p in (b"X",):
        if os.path.lexists(p):
            os.unlink(p)
    return b"run.img"


def run(tool, argv):
    p = subprocess.run([E[tool]] + argv, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE)
    return p.returncode, p.stdout, p.stderr


def argv_of(pre, img, post, json_opt, digest):
    a = [x.encode() if isinstance(x, str) else x for x in pre]
    j = []
    if json_opt:
        j = [b"--json"] + ([b"--digest"] if digest else [])
    return a + j + [img] + post


counts = {}
ndocs = nerr = ndig = 0


def check(label, tool, doc, rc, img, digest, errlines):
    global ndocs, nerr, ndig
    errs = sorted(val.iter_errors(doc), key=lambda e: list(e.path))
    if errs:
        raise SystemExit("%s: invalid: %s at %s" %
                         (label, errs[0].message, list(errs[0].path)))
    assert doc["tool"] == tool, (label, doc["tool"])
    assert doc["exit"] == rc, (label, doc["exit"], rc)
    failed = bool(rc & FAIL[tool])
    assert ("error" in doc) == failed, (label, rc, doc.get("error"))
    if failed:
        nerr += 1
        assert doc["error"]["message"], label
    # stderr in the document is what reached stderr, line for line.
    assert doc["stderr"] == [l.decode("utf-8", "replace") for l in
                             errlines], (label, doc["stderr"], errlines)
    if digest:
        data = open(img, "rb").read()
        assert doc["image_size"] == len(data), (label, doc["image_size"])
        assert doc["image_sha512"] == hashlib.sha512(data).hexdigest(), \
            label
        ndig += 1
    ndocs += 1


for tool, pre, post, imgs, digest in RUNS:
    for img in imgs or IMAGES:
        fresh(img)
        rc_text = run(tool, argv_of(pre, b"run.img", post, 0, 0))[0]
        fresh(img)
        before = open(b"run.img", "rb").read() if digest else None
        if tool == "e4debug":
            a = [pre[0], pre[1] if not digest else pre[1]] + [b"run.img"]
            rc, out, err = run(tool, a)
        else:
            rc, out, err = run(tool, argv_of(pre, b"run.img", post, 1,
                                             digest))
        label = "%s %s %s" % (tool, " ".join(pre), img.decode("utf-8",
                                                              "replace"))
        assert rc == rc_text, (label, "--json exit", rc, "text", rc_text)
        doc = one_doc(label, out)
        if digest:
            open(b"orig.img", "wb").write(before)
        check(label, tool, doc, rc, b"orig.img", digest,
              err.splitlines())
        # The oracle: a random or truncated image is no ext4 fs.
        if img in BAD and tool == "e4replay":
            assert rc == 8, (label, rc)
        if img in BAD and tool in ("e4tune", "e4debug"):
            assert rc == 1, (label, rc)
        # The kernel refuses the journal: every replay and check 44.
        if img == b"refused.img" and tool == "e4replay" and \
                "--stats" not in pre:
            assert rc == 44 and doc["exit"] == 44, (label, rc)
        if tool == "e4replay" and img == b"good.img" and not pre:
            assert rc == 1 and doc["replay"]["written"] > 0, label
        counts[(tool, rc)] = counts.get((tool, rc), 0) + 1

for tool, args, want, kind in USAGE:
    fresh(b"good.img")
    if tool == "e4debug":
        a = [args[0], args[1], b"run.img"]
    else:
        a = ([] if kind == "nojson" else [b"--json"]) + \
            [x.encode() for x in args] + \
            ([] if kind == "noimage" else [b"run.img"])
    rc, out, err = run(tool, a)
    label = "usage: %s %s" % (tool, " ".join(args))
    assert rc == want, (label, rc, want)
    doc = one_doc(label, out)
    check(label, tool, doc, rc, b"run.img", False, err.splitlines())
    assert "error" in doc, label
    counts[(tool, rc)] = counts.get((tool, rc), 0) + 1

# The schema is no rubber stamp: the old names and shapes fail it.
fresh(b"good.img")
good = one_doc("-n -v", run("e4replay", [b"-n", b"-v", b"--json",
                                         b"run.img"])[1])
assert not list(val.iter_errors(good))
bads = 0
for name, mut in (
        ("device", lambda d: d.__setitem__("device", "run.img")),
        ("csum_version", lambda d: d["journal"].__setitem__(
            "csum_version", 3)),
        ("numeric flags", lambda d: d["transactions"][0]["tags"][0]
         .__setitem__("flags", 8)),
        ("inode", lambda d: d["journal"].__setitem__("inode", 8)),
        ("no exit", lambda d: d.pop("exit")),
        ("exit 8, no error", lambda d: d.__setitem__("exit", 8)),
        ("error on exit 1", lambda d: d.__setitem__(
            "error", {"message": "x", "code": 0})),
        ("schema_version 2", lambda d: d.__setitem__("schema_version", 2)),
        ("bad digest", lambda d: d.__setitem__("image_sha512", "00"))):
    d = json.loads(json.dumps(good))
    mut(d)
    assert list(val.iter_errors(d)), "schema accepts " + name
    bads += 1
print("ok: %d altered documents refused by the schema" % bads)

# -h and -V print no document (their output is the usage, the version).
for tool in ("e4replay", "e4tune", "e4stamp"):
    rc, out, err = run(tool, [b"--json", b"-h"])
    assert rc == 0 and not out.lstrip().startswith(b"{"), tool

print("ok: %d documents, one per run, all valid against schema_version "
      "%d; %d with an error object, %d with a digest" %
      (ndocs, schema["properties"]["schema_version"]["const"], nerr, ndig))
for (tool, rc), n in sorted(counts.items()):
    print("  %-8s exit %3d: %d run(s)" % (tool, rc, n))
