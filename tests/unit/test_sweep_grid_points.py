"""lab/experiments.sh's sweep points, as runme.sh runs them: one --sweep gives KEY=<v> per value, two
give every combination KEY1=<v>+KEY2=<w> with the first key slowest (the folders analysis `sweep` reads),
and each point's settings are its KEY=VALUE pairs. Runs the real functions with the client's bench keys."""
import subprocess
from pathlib import Path

LAB_ROOT = Path(__file__).resolve().parents[2]


def points(*sweeps):
    script = ('LAB_ROOT=$1; shift; . "$LAB_ROOT/lab/experiments.sh"; sweep_parse "$@" || exit 2; '
              'echo "key=$SWEEP_KEY"; for i in "${!SWEEP_POINTS[@]}"; do '
              'echo "${SWEEP_POINTS[i]} ${SWEEP_VALUES[i]} $(point_sets "${SWEEP_POINTS[i]}" | paste -sd,)"; done')
    r = subprocess.run(["bash", "-c", script, "points", str(LAB_ROOT), *sweeps], capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 0, r.stderr
    return r.stdout.splitlines()


def test_one_key_gives_one_point_per_value():
    assert points("CLIENTS=2,8") == ["key=CLIENTS", "CLIENTS=2 2 CLIENTS=2", "CLIENTS=8 8 CLIENTS=8"]


def test_two_keys_give_the_grid_first_key_slowest():
    assert points("ISOLATION=read-committed,serializable", "CLIENTS=2,8") == [
        "key=ISOLATION+CLIENTS",
        "ISOLATION=read-committed+CLIENTS=2 read-committed+2 ISOLATION=read-committed,CLIENTS=2",
        "ISOLATION=read-committed+CLIENTS=8 read-committed+8 ISOLATION=read-committed,CLIENTS=8",
        "ISOLATION=serializable+CLIENTS=2 serializable+2 ISOLATION=serializable,CLIENTS=2",
        "ISOLATION=serializable+CLIENTS=8 serializable+8 ISOLATION=serializable,CLIENTS=8",
    ]


def test_a_bench_declares_its_own_sweep_and_the_shipped_grid_is_isolation_x_clients(tmp_path):
    script = 'LAB_ROOT=$1; . "$LAB_ROOT/lab/experiments.sh"; bench_sweep_of "$2"'
    got = lambda d: subprocess.run(["bash", "-c", script, "s", str(LAB_ROOT), str(d)], capture_output=True,  # noqa: E731
                                   text=True, timeout=60).stdout.strip()
    assert got(LAB_ROOT / "txn-grid") == "ISOLATION=read-committed,repeatable-read,serializable CLIENTS=2,8"
    assert got(LAB_ROOT / "bench1") == ""
    assert points(*got(LAB_ROOT / "txn-grid").split())[1:] == [
        f"ISOLATION={i}+CLIENTS={c} {i}+{c} ISOLATION={i},CLIENTS={c}"
        for i in ("read-committed", "repeatable-read", "serializable") for c in (2, 8)]
