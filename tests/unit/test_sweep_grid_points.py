"""lab/driver/request.py's sweep points, as a run runs them: one --sweep gives KEY=<v> per value, two
give every combination KEY1=<v>+KEY2=<w> with the first key slowest (the folders analysis `sweep` reads),
and each point's settings are its KEY=VALUE pairs. The real functions with the client's bench keys."""
from pathlib import Path

import pytest

from lab.driver import request as req

LAB_ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def specs():
    return req.bench_key_specs(str(LAB_ROOT))


def points(specs, *sweeps):
    s = req.sweep_parse(list(sweeps), specs)
    return [f"key={s.key}"] + [f"{p} {v} {','.join(req.point_sets(p))}" for p, v in zip(s.points, s.values)]


def test_one_key_gives_one_point_per_value(specs):
    assert points(specs, "CLIENTS=2,8") == ["key=CLIENTS", "CLIENTS=2 2 CLIENTS=2", "CLIENTS=8 8 CLIENTS=8"]


def test_two_keys_give_the_grid_first_key_slowest(specs):
    assert points(specs, "ISOLATION=read-committed,serializable", "CLIENTS=2,8") == [
        "key=ISOLATION+CLIENTS",
        "ISOLATION=read-committed+CLIENTS=2 read-committed+2 ISOLATION=read-committed,CLIENTS=2",
        "ISOLATION=read-committed+CLIENTS=8 read-committed+8 ISOLATION=read-committed,CLIENTS=8",
        "ISOLATION=serializable+CLIENTS=2 serializable+2 ISOLATION=serializable,CLIENTS=2",
        "ISOLATION=serializable+CLIENTS=8 serializable+8 ISOLATION=serializable,CLIENTS=8",
    ]


def test_a_paired_sweep_sets_both_keys_at_each_point_only_the_pairs_given(specs):
    assert points(specs, "MODEL+DATABASES=event+mongodb,native+timescaledb") == [
        "key=MODEL+DATABASES",
        "MODEL=event+DATABASES=mongodb event+mongodb MODEL=event,DATABASES=mongodb",
        "MODEL=native+DATABASES=timescaledb native+timescaledb MODEL=native,DATABASES=timescaledb",
    ]


def test_a_bench_declares_its_own_sweep_and_the_shipped_grid_is_isolation_x_clients(specs):
    got = req.bench_sweep_of
    assert got(str(LAB_ROOT / "txn-grid")) == "ISOLATION=read-committed,repeatable-read,serializable CLIENTS=2,8"
    assert got(str(LAB_ROOT / "bench1")) == ""
    assert points(specs, *got(str(LAB_ROOT / "txn-grid")).split())[1:] == [
        f"ISOLATION={i}+CLIENTS={c} {i}+{c} ISOLATION={i},CLIENTS={c}"
        for i in ("read-committed", "repeatable-read", "serializable") for c in (2, 8)]


def test_a_benchs_own_sweep_is_the_runs_sweep_unless_sweep_is_given(tmp_path):
    d = tmp_path / "b"
    d.mkdir()
    (d / "bench.env").write_text('DESCRIPTION=x\nSWEEP="FIELDS=1,2"\n')
    r = req.resolve(req.parse([str(d)]), str(LAB_ROOT))
    assert (r.declared, r.sweep.key, r.sweep.points) == ("FIELDS=1,2", "FIELDS", ["FIELDS=1", "FIELDS=2"])
    r = req.resolve(req.parse(["--sweep", "RATE=5,10", str(d)]), str(LAB_ROOT))
    assert (r.declared, r.sweep.key) == ("", "RATE")
