import glob
import gzip

import pytest
import os
import xml.etree.ElementTree as ET

from analysis.render import flamegraph

SAMPLE = """postgres 4242/4242 [001] 100.000001:     250000 cpu-clock:pppH:
\tffffffff81000130 entry_SYSCALL_64+0x10 ([kernel.kallsyms])
\t    55d5c3a1b2c3 XLogFlush+0x123 (/usr/lib/postgresql/15/bin/postgres)
\t    55d5c3a1b000 main+0x50 (/usr/lib/postgresql/15/bin/postgres)

postgres 4242/4242 [001] 100.000251:     250000 cpu-clock:pppH:
\t    55d5c3a1b2c3 XLogFlush+0x123 (/usr/lib/postgresql/15/bin/postgres)
\t    55d5c3a1b000 main+0x50 (/usr/lib/postgresql/15/bin/postgres)

postgres 4243/4243 [000] 100.000501:     250000 cpu-clock:pppH:
\t    7f0000001000 [unknown] (/usr/lib/x86_64-linux-gnu/libc.so.6)
\t    55d5c3a1b000 main+0x50 (/usr/lib/postgresql/15/bin/postgres)

"""


def test_fold_counts_every_sample():
    stacks = flamegraph.fold(SAMPLE.splitlines(True))
    assert stacks == {
        "postgres;main;XLogFlush;entry_SYSCALL_64_[k]": 1,
        "postgres;main;XLogFlush": 1,
        "postgres;main;[libc.so.6]": 1,
    }


def test_svg_is_well_formed_with_one_rect_per_frame(tmp_path):
    prof = tmp_path / "postgres.perf"
    prof.write_text(SAMPLE)
    out = tmp_path / "postgres.svg"
    flamegraph.run(str(prof), str(out), "postgres")
    root = ET.parse(out).getroot()
    titles = [t.text for t in root.iter("{http://www.w3.org/2000/svg}title")]
    assert "all (3 samples, 100.00%)" in titles
    assert "main (3 samples, 100.00%)" in titles
    assert "XLogFlush (2 samples, 66.67%)" in titles
    assert len(list(root.iter("{http://www.w3.org/2000/svg}rect"))) == 1 + 6  # background + frames
    assert prof.exists()  # small profiles stay as they are


def test_real_perf_script_fixture_and_gzip_of_large_profiles(fixture_benches, tmp_path):
    profs = sorted(glob.glob(os.path.join(next(iter(fixture_benches.values())), "..", "*", "*.perf")))
    if not profs:
        pytest.skip("no .perf profile in the fixture benches")
    prof = profs[0]
    headers = sum(1 for line in open(prof) if line[:1] not in ("\t", " ", "\n", "#"))
    stacks, kept = flamegraph.run(prof, str(tmp_path / "a.svg"), gzip_over=1024)
    assert sum(stacks.values()) == headers
    assert kept == prof + ".gz" and not os.path.exists(prof)
    # the gzipped profile is the same text (the Firefox Profiler loads .perf.gz) and still renders
    with gzip.open(kept, "rt") as f:
        assert sum(1 for line in f if line[:1] not in ("\t", " ", "\n", "#")) == headers
    stacks2, kept2 = flamegraph.run(kept, str(tmp_path / "b.svg"))
    assert stacks2 == stacks and kept2 == kept


# The fixture profiles are real `perf record -G <container cgroup>` recordings of the lab (trimmed to
# whole samples): each must be a profile of its server, not of whatever ran the recording.
SERVER_COMM = {"postgres": "postgres", "mongodb": "ferretdb"}  # FerretDB stands in for MongoDB here


@pytest.mark.parametrize("bench,db", [("bench1", "postgres"), ("bench1", "mongodb"),
                                      ("ci-standin-run", "postgres"), ("ci-standin-run", "mongodb")])
def test_fixture_profiles_are_profiles_of_the_server(fixture_benches, bench, db):
    prof = os.path.join(fixture_benches[bench], f"{db}.perf")
    with flamegraph.open_text(prof) as f:
        stacks = flamegraph.fold(f)
    by_comm = {}
    for stack, n in stacks.items():
        comm = stack.split(";", 1)[0]
        by_comm[comm] = by_comm.get(comm, 0) + n
    total = sum(by_comm.values())
    server = by_comm.get(SERVER_COMM[db], 0)
    # Healthcheck processes (pg_isready, runc) may share the cgroup in older fixtures; the server
    # must still be most of the profile, with its own frames below the comm.
    assert total and server / total >= 0.8, by_comm
    assert any(s.startswith(SERVER_COMM[db] + ";") and s.count(";") >= 3 for s in stacks)


def test_bench1_fixture_profiles_are_exactly_the_server_at_1000_hz(fixture_benches):
    import json
    for db in ("postgres", "mongodb"):
        bench = fixture_benches["bench1"]
        with open(os.path.join(bench, f"{db}.perf")) as f:
            headers = [line for line in f if line[:1] not in ("\t", " ", "\n", "#")]
        assert {h.split()[0] for h in headers} == {SERVER_COMM[db]}
        profile = json.load(open(os.path.join(bench, f"{db}.phase.json")))["perf"]["profile"]
        assert profile == {"file": f"{db}.perf", "samples": len(headers), "frequency_hz": 1000, "reason": None}
