import glob
import gzip

import pytest
import os
import xml.etree.ElementTree as ET

from analysis import flamegraph

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
