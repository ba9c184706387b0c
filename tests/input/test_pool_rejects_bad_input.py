"""POOL=pgbouncer input refused by ./runme.sh before anything starts (exit 2, no container): a bad
POOL value, a pool on a run without PostgreSQL, a pool on a workload it does not apply to, and a
session pool smaller than the client sessions; in bench.env and by --set."""
from test_runme_rejects_bad_input import assert_refused, bench, runme

OLTP = {"WORKLOAD": "oltp", "FIELDS": None, "FIELD_BYTES": None, "DOCS": None, "DATABASES": "postgres"}


def test_bad_pool_value(tmp_path):
    b = bench(tmp_path, **OLTP, POOL="pgpool")
    assert_refused(runme(str(b)), f"{b}/bench.env", "POOL", '"pgpool"', "allowed: one of none, pgbouncer")


def test_pool_without_postgres(tmp_path):
    b = bench(tmp_path, **{**OLTP, "DATABASES": "mongodb"}, TOPOLOGY="replset", POOL="pgbouncer")
    assert_refused(runme(str(b)), f"{b}/bench.env", "POOL=pgbouncer pools PostgreSQL connections",
                   "DATABASES=mongodb", "allowed without postgres in DATABASES: POOL=none")


def test_pool_on_the_insert_workload_by_set(tmp_path):
    b = bench(tmp_path)
    assert_refused(runme("--set", "POOL=pgbouncer", str(b)), "POOL applies only with WORKLOAD=booking or oltp")


def test_session_pool_smaller_than_the_sessions(tmp_path):
    b = bench(tmp_path, **OLTP, CLIENTS="2", SESSIONS="4", POOL="pgbouncer", POOL_MODE="session", POOL_SIZE="5")
    assert_refused(runme(str(b)), f"{b}/bench.env", "POOL_SIZE=5 is fewer than CLIENTS x SESSIONS = 8",
                   "allowed with POOL_MODE=session: POOL_SIZE >= 8")
