"""--sweep and REPEAT input is refused before anything starts: exit 2, a message naming the key and
what is allowed, no container, and nothing written into the bench folder."""
import pytest

from test_runme_rejects_bad_input import assert_refused, bench, runme

# the bench keys in their order: the keys every workload reads, then each workload's (its file's)
NUMERIC = "keys that can be swept (numeric): CLIENTS, SEED, QUIET_S, CACHE_MB, DB_MEMORY_MB, PERF_RECORD_S, REPEAT, FIELDS, FIELD_BYTES, RATE, DOCS"


@pytest.mark.parametrize("sweep, fragments", [
    ("FIELD_BYTE=50,100", ["--sweep FIELD_BYTE: unknown bench key (did you mean FIELD_BYTES?)", NUMERIC]),
    ("DESCRIPTION=a,b", ["--sweep DESCRIPTION: DESCRIPTION is neither numeric nor an enum", NUMERIC]),
    ("LAYOUT=1,2", ["--sweep LAYOUT=1,2: '1' is not a value of LAYOUT; LAYOUT takes one of clustered, heap"]),
    ("FIELD_BYTES=50,big", ["'big' is not a number; FIELD_BYTES takes an integer >= 1"]),
    ("RATE=5,x", ["'x' is not a number; RATE takes a number > 0"]),
    ("FIELD_BYTES=50,1.5", ["'1.5' is not an integer; FIELD_BYTES takes an integer >= 1"]),
    ("FIELD_BYTES=50,0", ["--sweep FIELD_BYTES=0 is refused for bench-bad", 'FIELD_BYTES: invalid value "0"; allowed: an integer >= 1']),
    ("RATE=5,0", ["--sweep RATE=0 is refused", 'RATE: invalid value "0"; allowed: a number > 0']),
    ("FIELD_BYTES=100,2000000", ["--sweep FIELD_BYTES=2000000 is refused", "16 MiB"]),
    ("FIELD_BYTES=100,100", ["100 is given twice"]),
    ("FIELD_BYTES=100", ["a sweep needs at least two values", "--set FIELD_BYTES=100"]),
    ("FIELD_BYTES", ["expected KEY=v1,v2,..."]),
])
def test_bad_sweep_is_refused_before_anything_starts(tmp_path, sweep, fragments):
    b = bench(tmp_path)
    assert_refused(runme("--sweep", sweep, str(b)), *fragments)
    assert sorted(p.name for p in b.iterdir()) == ["bench.env"]


def test_sweep_needs_named_benches():
    assert_refused(runme("--sweep", "FIELD_BYTES=50,100"), "--sweep needs the benches to sweep named")


def test_at_most_two_sweeps_per_run(tmp_path):
    # two keys make a grid of every combination; a third would multiply it again
    b = bench(tmp_path)
    assert_refused(runme("--sweep", "FIELD_BYTES=50,100", "--sweep", "FIELDS=1,2", "--sweep", "RATE=5,10", str(b)),
                   "at most two --sweep per run")
    assert sorted(p.name for p in b.iterdir()) == ["bench.env"]


def test_a_grid_needs_two_different_keys(tmp_path):
    b = bench(tmp_path)
    assert_refused(runme("--sweep", "FIELDS=1,2", "--sweep", "FIELDS=3,4", str(b)),
                   "--sweep FIELDS is given twice; a grid needs two different keys")


def test_a_grid_point_is_refused_with_both_of_its_settings(tmp_path):
    # every combination passes the client's validation: FIELDS=20 with FIELD_BYTES=1000000 is too large
    b = bench(tmp_path)
    assert_refused(runme("--sweep", "FIELDS=1,20", "--sweep", "FIELD_BYTES=100,1000000", str(b)),
                   "--sweep FIELDS=20+FIELD_BYTES=1000000 is refused", "FIELDS=20, FIELD_BYTES=1000000")
    assert sorted(p.name for p in b.iterdir()) == ["bench.env"]


def test_a_bad_value_of_the_second_key_names_it(tmp_path):
    b = bench(tmp_path)
    assert_refused(runme("--sweep", "FIELDS=1,2", "--sweep", "LAYOUT=clustered,columns", str(b)),
                   "'columns' is not a value of LAYOUT; LAYOUT takes one of clustered, heap")


def test_sweep_value_refused_with_the_set_overrides(tmp_path):
    # each point is bench.env + --set + KEY=v: the document size limit applies to the combination
    b = bench(tmp_path)
    assert_refused(runme("--set", "FIELDS=20", "--sweep", "FIELD_BYTES=100,1000000", str(b)),
                   "--sweep FIELD_BYTES=1000000 is refused", "FIELDS=20, FIELD_BYTES=1000000")


@pytest.mark.parametrize("value", ["0", "two", "1.5"])
def test_bad_repeat_names_file_key_and_allowed(tmp_path, value):
    b = bench(tmp_path, REPEAT=value)
    assert_refused(runme(str(b)), f"{b}/bench.env", "REPEAT", f'"{value}"', "allowed: an integer >= 1")


def test_bad_repeat_override(tmp_path):
    b = bench(tmp_path)
    assert_refused(runme("--set", "REPEAT=0", str(b)), "REPEAT", '"0"', "--set overrides")


def test_a_benchs_own_sweep_is_checked_like_the_flag_and_named_as_its_file(tmp_path):
    b = bench(tmp_path, SWEEP='"FIELD_BYTES=100"')
    assert_refused(runme(str(b)), "a sweep needs at least two values", f"that sweep is SWEEP in {b}/bench.env")
    assert sorted(p.name for p in b.iterdir()) == ["bench.env"]


def test_a_grid_point_of_a_benchs_own_sweep_is_refused_before_anything_starts(tmp_path):
    b = bench(tmp_path, SWEEP='"FIELDS=1,20 FIELD_BYTES=100,1000000"')
    assert_refused(runme(str(b)), "--sweep FIELDS=20+FIELD_BYTES=1000000 is refused")


def test_a_bench_with_its_own_sweep_runs_alone(tmp_path):
    a, b = bench(tmp_path, SWEEP='"FIELDS=1,2"'), bench(tmp_path, name="bench-other")
    assert_refused(runme(str(a), str(b)), f"{a}/bench.env: SWEEP=\"FIELDS=1,2\": a bench with its own sweep runs alone")
