"""MySQL runs the transaction workloads (booking, oltp) and is refused for TSBS: the shipped
txn-booking, txn-grid and oltp benches with mysql added to DATABASES pass the client's check
(`node client validate-bench`, before anything starts), and tsbs-ingest with mysql is refused by
./runme.sh (exit 2, no container, nothing written) with the reason MySQL's manifest states."""
import shutil
import subprocess

import pytest

from test_runme_rejects_bad_input import LAB_ROOT, assert_refused, runme


def shipped(tmp_path, name, databases):
    d = tmp_path / name
    d.mkdir()
    lines = (LAB_ROOT / name / "bench.env").read_text().splitlines()
    lines = [ln for ln in lines if not ln.startswith("DATABASES=")] + [f'DATABASES="{databases}"']
    (d / "bench.env").write_text("\n".join(lines) + "\n")
    return d


@pytest.mark.parametrize("name,databases", [
    ("txn-booking", "mongodb postgres mysql"),
    ("txn-grid", "mongodb postgres mysql"),
    ("oltp", "mongodb postgres mysql"),
    ("oltp", "mysql"),
])
def test_transaction_benches_take_mysql(tmp_path, name, databases):
    env = shipped(tmp_path, name, databases) / "bench.env"
    if databases == "mysql":  # TOPOLOGY=replset is MongoDB's: a MySQL-only oltp bench leaves it out
        env.write_text("".join(ln + "\n" for ln in env.read_text().splitlines() if not ln.startswith("TOPOLOGY=")))
    r = subprocess.run(["node", str(LAB_ROOT / "client" / "src" / "cli.js"), "validate-bench", str(env)],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
    assert f"ok ({databases};" in r.stdout, r.stdout


def test_tsbs_with_mysql_is_refused_with_the_reason(tmp_path):
    b = shipped(tmp_path, "tsbs-ingest", "postgres mysql")
    assert_refused(runme(str(b)), f"{b}/bench.env", "WORKLOAD=tsbs does not run on mysql",
                   "TSBS has no MySQL target", "the Timescale study it reproduces did not run MySQL",
                   "allowed with WORKLOAD=tsbs: DATABASES of mongodb, postgres, timescaledb")
    assert sorted(p.name for p in b.iterdir()) == ["bench.env"]
