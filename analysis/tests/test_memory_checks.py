"""The memory a bench asks for, held to what ran (analysis/figures/memory.py, status.of_phase): the
servers' own cache and the containers' cgroup limits recorded by a real run of three stand-ins
(fixtures/memory/three-databases-cache-384: mongodb postgres mysql, CACHE_MB=384, DB_MEMORY_MB=1024;
SecantusDB 0.7.0b3, PostgreSQL 17.12, MySQL 9.7.4 on this host's cgroup v1), against what the bench
asked: as recorded, and with the asked side changed in plan.json, so that the same readings no longer
match it."""
import json
import os
import shutil

import pytest

from analysis.common import databases
from analysis.figures import results

HERE = os.path.dirname(os.path.abspath(__file__))
RECORDED = os.path.join(HERE, "fixtures", "memory", "three-databases-cache-384")
MIB = 1 << 20


def run_asking(tmp_path, **keys):
    """results.json of a copy of the recorded run whose plan asked `keys` ("" unsets a key)."""
    bench = tmp_path / "bench"
    shutil.copytree(RECORDED, bench)
    plan = json.loads((bench / "plan.json").read_text())
    for k, v in keys.items():
        plan["settings"]["environment"][k] = v
    (bench / "plan.json").write_text(json.dumps(plan))
    res = results.build(str(bench))
    return {r["phase"]: r for r in res["runs"]}, res


def test_the_recorded_run_holds_what_it_asked(tmp_path):
    runs, res = run_asking(tmp_path)
    assert res["complete"], res["incomplete"]
    for db in ("postgres", "mysql"):
        c = runs[db]["cache"]
        assert (c["asked_bytes"], c["read_bytes"], c["expected_bytes"], c["agrees"]) == (384 * MIB,) * 3 + (True,), c
        assert c["asked_from"] == "CACHE_MB=384" and c["reason"] is None
    assert runs["postgres"]["cache"]["setting"] == "shared_buffers" and runs["postgres"]["cache"]["rounding"] is None
    assert runs["mysql"]["cache"]["rounding"] == ("InnoDB rounds the pool up to a multiple of innodb_buffer_pool_chunk_size x "
                                                  "innodb_buffer_pool_instances = 134217728 x 1 B")
    # the stand-in reports no cache: not checked, said, and the phase stays ok
    m = runs["mongodb"]["cache"]
    assert (m["asked_bytes"], m["read_bytes"], m["agrees"]) == (384 * MIB, None, None)
    assert m["reason"] == "not checked: SecantusDB serverStatus has no wiredTiger section"
    for db, r in runs.items():
        assert r["status"] == "ok", (db, r["reason"])
        assert r["memory_limit"] == {"asked_bytes": 1024 * MIB, "asked_from": "DB_MEMORY_MB=1024", "read_bytes": 1024 * MIB,
                                     "file": "memory.limit_in_bytes", "cgroup": "v1", "expected_bytes": 1024 * MIB,
                                     "rounding": None, "agrees": True, "reason": None}


def test_another_cache_asked_fails_each_server_that_reports_one_naming_setting_asked_and_got(tmp_path):
    runs, res = run_asking(tmp_path, CACHE_MB="512")
    pg, my, mongo = runs["postgres"], runs["mysql"], runs["mongodb"]
    assert pg["status"] == "failed" and pg["cache"]["agrees"] is False
    assert pg["reason"] == ("not the memory asked for: postgres: shared_buffers asked 536870912 B (CACHE_MB=512), "
                            "the server holds 402653184 B")
    assert my["status"] == "failed"
    assert my["reason"] == ("not the memory asked for: mysql: innodb_buffer_pool_size asked 536870912 B (CACHE_MB=512), "
                            "the server holds 402653184 B (expected 536870912 B: InnoDB rounds the pool up to a multiple "
                            "of innodb_buffer_pool_chunk_size x innodb_buffer_pool_instances = 134217728 x 1 B)")
    assert mongo["status"] == "ok" and mongo["cache"]["agrees"] is None
    assert not res["complete"] and any(i.startswith("postgres: status failed (not the memory asked for") for i in res["incomplete"])


def test_another_memory_limit_asked_fails_every_phase(tmp_path):
    runs, _ = run_asking(tmp_path, DB_MEMORY_MB="2048")
    for db, r in runs.items():
        assert r["status"] == "failed" and r["memory_limit"]["agrees"] is False, db
        assert r["reason"] == (f"not the memory asked for: {db}: memory limit asked 2147483648 B (DB_MEMORY_MB=2048), "
                               "its cgroup holds 1073741824 B (memory.limit_in_bytes)")


def test_without_the_keys_the_command_line_and_mem_limit_compose_ran_are_asked(tmp_path):
    runs, res = run_asking(tmp_path, CACHE_MB="", DB_MEMORY_MB="")
    assert res["complete"], res["incomplete"]
    assert runs["postgres"]["cache"]["asked_from"] == "shared_buffers=384MB on the server's command line (.env PG_SHARED_BUFFERS)"
    assert runs["mysql"]["cache"]["asked_from"] == "innodb_buffer_pool_size=384M on mysqld's command line (.env MYSQL_BUFFER_POOL_SIZE)"
    assert runs["mongodb"]["cache"]["asked_from"] == "--wiredTigerCacheSizeGB 0.375 on the command line (.env MONGO_CACHE_GB)"
    for r in runs.values():
        assert r["cache"]["asked_bytes"] == 384 * MIB and r["cache"]["agrees"] in (True, None)
        assert r["memory_limit"]["asked_from"] == "DB_MEMORY (.env) as compose ran it: mem_limit 1073741824"
        assert r["memory_limit"]["agrees"] is True and r["status"] == "ok"


def test_a_cgroup_without_a_limit_where_one_was_asked_fails(tmp_path):
    bench = tmp_path / "bench"
    shutil.copytree(RECORDED, bench)
    doc = json.loads((bench / "postgres.phase.json").read_text())
    doc["memory_limit"] = {"bytes": None, "file": "memory.limit_in_bytes", "cgroup": "v1",
                           "reason": "no limit (memory.limit_in_bytes is 9223372036854771712)"}
    (bench / "postgres.phase.json").write_text(json.dumps(doc))
    pg = {r["phase"]: r for r in results.build(str(bench))["runs"]}["postgres"]
    assert pg["status"] == "failed" and pg["reason"] == (
        "not the memory asked for: postgres: memory limit asked 1073741824 B (DB_MEMORY_MB=1024), its cgroup has "
        "no limit (memory.limit_in_bytes is 9223372036854771712)")


@pytest.mark.parametrize("asked_mib, held_mib", [(320, 384), (384, 384), (64, 64)])
def test_innodb_s_documented_rounding_with_the_recorded_chunk(asked_mib, held_mib):
    read = json.loads(open(os.path.join(RECORDED, "mysql.server-stats.json")).read())["start"]["cache"]
    if asked_mib < 128:  # a chunk larger than the pool is cut to it (the server then reads it back so)
        read = {**read, "parts": {**read["parts"], "innodb_buffer_pool_chunk_size": asked_mib * MIB}}
    expected, _ = databases.hook("mysql", "cache_expected")(asked_mib * MIB, read)
    assert expected == held_mib * MIB


def test_runs_recorded_before_the_readings_get_neither_field(fixture_benches):
    res = results.build(fixture_benches["ci-standin-run"])
    assert all("cache" not in r and "memory_limit" not in r for r in res["runs"])


def _rows(res):
    return {r["what"]: r for r in res["fairness"]}


def test_the_fairness_table_states_each_server_s_cache_and_each_cgroup_s_limit(tmp_path):
    from analysis.figures import fairness
    _, res = run_asking(tmp_path)
    cache, limit = _rows(res)["cache as the server holds it"], _rows(res)["memory limit as the cgroup holds it"]
    assert {db: cache[db] for db in ("mongodb", "postgres", "mysql")} == {
        "mongodb": "not read: SecantusDB serverStatus has no wiredTiger section; asked 384 MiB (CACHE_MB=384)",
        "postgres": "384 MiB (shared_buffers), as asked: CACHE_MB=384",
        "mysql": "384 MiB (innodb_buffer_pool_size), as asked: CACHE_MB=384"}
    assert cache["aligned"] is False  # the stand-in's cache is not known to be the others'
    assert {limit[db] for db in ("mongodb", "postgres", "mysql")} == {
        "1024 MiB (memory.limit_in_bytes, cgroup v1), as asked: DB_MEMORY_MB=1024"}
    assert limit["aligned"] is True
    table = "\n".join(fairness.report_lines(res))
    assert ("| memory limit as the cgroup holds it | 1024 MiB (memory.limit_in_bytes, cgroup v1), as asked: DB_MEMORY_MB=1024 | "
            in table)
    _, asked_more = run_asking(tmp_path / "more", CACHE_MB="512")
    assert _rows(asked_more)["cache as the server holds it"]["postgres"] == (
        "384 MiB (shared_buffers); asked 512 MiB (CACHE_MB=512): NOT as asked")


def test_runs_recorded_before_the_readings_have_no_reading_rows(fixture_benches):
    for name in ("bench1", "ci-standin-run"):
        whats = set(_rows(results.build(fixture_benches[name])))
        assert not whats & {"cache as the server holds it", "memory limit as the cgroup holds it"}, name
