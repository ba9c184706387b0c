"""Every recorded fixture's analysis gives the same bytes as when fixture_outputs.sha256 was written:
results.json, report.md, every plot, the summary and check lines, a REPEAT bench, a sweep, compare,
a flame graph, txn-outcomes. Issue 26's promise for a change that only moves code ("the analysis of
every recorded fixture is byte-identical"); a change meant to alter an output changes the list, and
the list's diff in the commit names each output it altered.

The inputs: the recorded benches of fixtures/ (bench1, bench2, ci-standin-run, timescaledb-compress,
the tsbs-timescale sweep) and the benches the tests build from them (txn_fixture, ycsb_fixture,
three_db_fixture), a REPEAT bench of bench1 and bench2. Two things of an output are not its own and
are replaced before hashing: the folder the test ran in, and the times this run wrote (generated_at;
a .gz file is hashed by its content, its header holding the time it was written).
On a difference the test writes the new list beside its outputs and names the command to take it."""
import contextlib
import datetime
import gzip
import hashlib
import io
import os
import re
import shutil

from analysis.__main__ import main
from analysis.tests import three_db_fixture, txn_fixture, ycsb_fixture

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "fixtures")
LIST = os.path.join(HERE, "fixture_outputs.sha256")
BENCHES = ["bench1", "bench2", "ci-standin-run", "tsdb", "txn-ok", "txn-lost", "ycsb", "three-db"]
ISO = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:\+00:00|Z)")


def inputs(root):
    for name in ("bench1", "bench2", "ci-standin-run"):
        shutil.copytree(os.path.join(FIXTURES, name), root / name)
    shutil.copytree(os.path.join(FIXTURES, "timescaledb-compress"), root / "tsdb")
    shutil.move(root / "tsdb" / "bench.env.recorded", root / "tsdb" / "bench.env")
    shutil.copytree(os.path.join(FIXTURES, "tsbs-timescale-sweep"), root / "tsbs-sweep")
    txn_fixture.build(str(root / "txn-ok"), ok=True)
    txn_fixture.build(str(root / "txn-lost"), ok=False)
    ycsb_fixture.build(str(root / "ycsb"))
    shutil.copytree(os.path.join(FIXTURES, "bench1"), root / "three-db")
    three_db_fixture.add_third(str(root / "three-db"))


def run_all(root):
    """{step: (exit code, stdout)} of every command over the inputs, in one order."""
    out = {}

    def step(name, *argv):
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(io.StringIO()):
            try:
                code = main([str(a) for a in argv])
            except SystemExit as e:
                code = e.code
        out[name] = (code, buf.getvalue())

    for b in BENCHES:
        step(f"results-{b}", "results", "--bench-dir", root / b)
        step(f"summary-{b}", "summary", "--bench-dir", root / b)
        step(f"check-{b}", "check", "--bench-dir", root / b)
    rep = root / "rep"
    rep.mkdir()
    shutil.copy(root / "bench1" / "bench.env", rep)
    (rep / "run.env").write_text((root / "bench1" / "run.env").read_text() + "REPEAT=2\n")
    shutil.copytree(root / "bench1", rep / "repeat-1")
    shutil.copytree(root / "bench2", rep / "repeat-2")
    step("repeat", "repeat", "--bench-dir", rep)
    step("sweep", "sweep", "--sweep-dir", root / "tsbs-sweep" / "sweep-MODEL+DATABASES")
    step("report", "report", *[root / b for b in BENCHES], "--out-dir", root / "all")
    step("report-repeat", "report", rep)
    step("compare", "compare", root / "bench1", root / "bench2")
    step("compare-three", "compare", root / "bench1", root / "three-db", "--noise", "3")
    step("compare-repeat", "compare", rep, root / "bench2")
    step("flamegraph", "flamegraph", root / "bench1" / "mongodb.perf", "-o", root / "bench1" / "mongodb.svg")
    step("txn-outcomes", "txn-outcomes", "--bench-dir", root / "txn-ok", "--phase", "postgres", "--clients", "2",
         "--out", root / "txn-ok" / "postgres.txn-outcomes.json")
    return out


def normalised(data, root, since, until):
    """The bytes with the run's folder and the times this run wrote replaced."""
    text = data.decode("utf-8").replace(str(root), "@ROOT@")

    def now(m):
        t = datetime.datetime.fromisoformat(m.group(0).replace("Z", "+00:00"))
        return "@NOW@" if since <= t <= until else m.group(0)
    return ISO.sub(now, text).encode("utf-8")


def digests(root, steps, since, until):
    out = {}
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        for f in filenames:
            path = os.path.join(dirpath, f)
            with open(path, "rb") as fh:
                data = fh.read()
            if f.endswith(".gz"):  # gzip's header holds the time it was written: its content is the output
                data = gzip.decompress(data)
            elif not f.endswith(".png"):
                data = normalised(data, root, since, until)
            out[os.path.relpath(path, root)] = hashlib.sha256(data).hexdigest()
    for name, (code, text) in steps.items():
        data = normalised(f"exit {code}\n{text}".encode("utf-8"), root, since, until)
        out[f"@stdout/{name}"] = hashlib.sha256(data).hexdigest()
    return out


def read_list():
    with open(LIST, encoding="utf-8") as f:
        return dict(reversed(line.rstrip("\n").split("  ", 1)) for line in f if line.strip())


def test_every_fixture_analysis_gives_the_recorded_bytes(tmp_path):
    root = tmp_path / "out"
    root.mkdir()
    inputs(root)
    since = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0) - datetime.timedelta(seconds=1)
    steps = run_all(root)
    until = datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(seconds=1)
    got = digests(root, steps, since, until)
    want = read_list()
    if got != want:
        new = tmp_path / "fixture_outputs.sha256"
        new.write_text("".join(f"{d}  {p}\n" for p, d in sorted(got.items())))
        changed = sorted(p for p in set(got) & set(want) if got[p] != want[p])
        added, gone = sorted(set(got) - set(want)), sorted(set(want) - set(got))
        raise AssertionError(f"outputs differ from {LIST}: changed {changed}, new {added}, gone {gone}; the outputs "
                             f"are in {root}; if the change is meant: cp {new} {LIST}")
