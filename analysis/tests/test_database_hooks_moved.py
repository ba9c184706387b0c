"""The hooks moved into the pair's folders in docs/layout.md step 5 (databases/<db>/analysis.py:
`fairness_cells`, `fairness_terms`, `setting`, `transaction_isolation`, `THP`), each found by its
folder through analysis/common/databases.py, and what a database without them gets (docs/contracts.md "A
database's analysis hooks"): "not stated yet", never a guess. A database without them is TimescaleDB
with its hooks hidden (it states PostgreSQL's cells and `setting` since its stand-in); MySQL states
no `setting`; the outputs of the pair are pinned byte for byte in test_fairness_pinned.py."""
import pytest

from analysis.common import databases
from analysis.collect import thp
from analysis.figures import fairness
from analysis.render import txn_report
from analysis.tests.test_thp import host_tree

MONGO = {"command": ["mongod", "--replSet", "rs0", "--syncdelay", "60"], "labels": {}}
PG = {"command": ["postgres", "-c", "checkpoint_timeout=60s", "-c", "shared_buffers=4GB"], "labels": {}}
MOVED = ("fairness_cells", "fairness_terms", "setting", "transaction_isolation")


def test_the_pair_brings_the_moved_hooks_in_its_folders_and_a_further_database_only_what_it_states():
    for db in databases.baseline():
        for name in MOVED:
            assert callable(databases.hook(db, name)), (db, name)
    assert [db for db in databases.known_manifests() if databases.hook(db, "THP")] == ["mongodb"]
    # TimescaleDB: PostgreSQL's reading of its command line, no terms (it is no side of the pair), no
    # isolation of its own (it runs no transaction workload)
    assert [name for name in MOVED + ("THP",) if databases.hook("timescaledb", name) is not None] == ["fairness_cells", "setting"]


@pytest.fixture
def without_timescaledb_hooks(monkeypatch):
    """TimescaleDB as a further database whose folder states no fairness hooks."""
    real = databases.hook
    monkeypatch.setattr(databases, "hook", lambda db, name, default=None: (
        default if db == "timescaledb" and name.startswith(("fairness_", "setting")) else real(db, name, default)))


def test_every_shared_row_is_stated_by_each_side_of_the_pair():
    env = {"WORKLOAD": "booking", **fairness.TRANSACTION_DEFAULTS}
    whats = {w for w, _ in fairness.ROWS + fairness._transaction_rows(env)}
    for db, s in (("mongodb", MONGO), ("postgres", PG)):
        assert set(databases.hook(db, "fairness_cells")(s, env)) == whats, db
        assert set(databases.hook(db, "fairness_terms")(s, env)) == whats, db


def test_a_further_database_without_fairness_hooks_is_not_stated_on_every_row_and_adds_none(without_timescaledb_hooks):
    ts = {"command": ["postgres", "-c", "shared_buffers=4GB"], "labels": {}}
    rows = fairness.statements({"mongodb": MONGO, "postgres": PG, "timescaledb": ts}, {"WORKLOAD": "oltp"})
    assert len(rows) == 9 and {r["timescaledb"] for r in rows} == {fairness.NOT_STATED}
    # the pair's alignment does not depend on it
    assert {r["what"]: r["aligned"] for r in rows}["checkpoint interval"] is True
    lines = fairness.report_lines({"fairness": rows, "runs": [{"database": d} for d in ("mongodb", "postgres", "timescaledb")]})
    assert lines[2] == "| what | mongodb | postgres | timescaledb | aligned (mongodb, postgres) | note |"


def test_setting_reads_each_databases_own_command_line_syntax_through_its_hooks():
    get = fairness.setting({"mongodb": MONGO, "postgres": PG, "timescaledb": {"command": ["postgres", "-c", "x=1"]}})
    assert get("mongodb", "--syncdelay") == "60" and get("mongodb", "--wiredTigerCacheSizeGB") == ""
    assert get("postgres", "shared_buffers") == "4GB" and get("postgres", "max_wal_size") == ""
    assert get("mysql", "innodb_buffer_pool_size") is None  # did not run in this bench
    # TimescaleDB's command line is PostgreSQL's (its folder takes PostgreSQL's `setting`)
    assert get("timescaledb", "x") == "1"
    # a database whose folder states no `setting` (MySQL's): no value is read from its command line
    assert fairness.setting({"mysql": {"command": ["mysqld", "--x=1"]}})("mysql", "x") == ""


def test_transaction_isolation_is_each_databases_word_and_not_stated_without_the_hook():
    run = lambda db, iso: {"database": db, "transactions": {"isolation": iso}}  # noqa: E731
    assert txn_report._isolation(run("postgres", "serializable")) == "SERIALIZABLE"
    assert txn_report._isolation(run("postgres", "snapshot-ish")) == "snapshot-ish"
    assert txn_report._isolation(run("mongodb", "serializable")) == "snapshot read concern, majority write concern"
    assert txn_report._isolation(run("timescaledb", "serializable")) == \
        "ISOLATION=serializable (what it means on this database: not stated yet)"
    assert txn_report._isolation(run(None, None)) == "ISOLATION=None (what it means on this database: not stated yet)"


def test_thp_advice_comes_from_the_folders_that_state_one(tmp_path):
    (advice,) = thp.advice()
    assert advice is databases.hook("mongodb", "THP")
    got = thp.gather(host_tree(tmp_path, "[always] madvise never", "[defer+madvise]", "0", "1"))
    # one advice: its two keys, by contract named after it (host.json), and none of another database's
    assert [k for k in got if k.endswith("_recommends") or k.startswith("matches_")] == \
        ["mongodb_8_0_recommends", "matches_mongodb_8_0"]
    # a host.json that recorded no match for the advice (an older run) is not read as one
    state = {k: v for k, v in got.items() if k != "matches_mongodb_8_0"}
    assert thp.describe(state).endswith(": unknown whether as MongoDB 8.0 recommends")
