"""results.json `fairness` and report.md's fairness table, pinned byte for byte: every case below
(official images, stand-ins, one side not run, the transaction workloads at each ISOLATION, a
third database) was written by analysis/figures/fairness.py before the pair's cells moved into their folders
(databases/<db>/analysis.py, docs/layout.md step 5); moving code must not change a word.
Regenerate only for an intended change of wording: `.venv/bin/python -m analysis.tests.test_fairness_pinned`."""
import json
import os

from analysis.figures import fairness

HERE = os.path.dirname(os.path.abspath(__file__))
PINNED = os.path.join(HERE, "fixtures", "fairness", "pinned.json")
CI = os.path.join(HERE, "fixtures", "ci-standin-run")
LAB_MYSQL = os.path.join(HERE, "fixtures", "reconcile", "mariadb-lab-bench1", "settings.json")


def _read(path):
    with open(path) as f:
        return json.load(f)


MONGO = {"command": ["mongod", "--bind_ip_all", "--wiredTigerCacheSizeGB", "4", "--syncdelay", "60"], "labels": {}}
MONGO_REPL = {"command": ["mongod", "--bind_ip_all", "--replSet", "rs0", "--syncdelay=60"], "labels": {}}
MONGO_OWN_CMD = {"command": None, "labels": {}}
PG = {"command": ["postgres", "-c", "shared_buffers=4GB", "-c", "checkpoint_timeout=60s", "-c", "wal_level=logical"],
      "labels": {}}
PG_STUDY = {"command": ["postgres", "-c", "checkpoint_timeout=300s"], "labels": {}}
SI_MONGO = _read(os.path.join(CI, "mongodb.settings.json"))
SI_PG = _read(os.path.join(CI, "postgres.settings.json"))
MYSQL = _read(LAB_MYSQL)
SI_MYSQL = {**MYSQL, "labels": {"jsonbench.stand_in": "MariaDB 10.11 standing in for MySQL 8.4"}}
# today's stand-in (Debian's MySQL 9.7) with compose's command line stating binlog_row_image
SI_MYSQL97 = {**MYSQL, "command": MYSQL["command"] + ["--binlog-row-image=FULL"],
              "labels": {"jsonbench.stand_in": "MySQL 9.7.4 (Debian package) standing in for the mysql:9.7 image"}}


def _cases():
    cases = {
        "official": ({"mongodb": MONGO, "postgres": PG}, {}),
        "official-work-mem": ({"mongodb": MONGO, "postgres": PG}, {"WORK_MEM": "100MB"}),
        "study-checkpoint": ({"mongodb": MONGO, "postgres": PG_STUDY}, {"WORK_MEM": "64MB"}),
        "replset": ({"mongodb": MONGO_REPL, "postgres": PG}, {}),
        "mongod-image-command": ({"mongodb": MONGO_OWN_CMD, "postgres": PG}, {}),
        "stand-ins": ({"mongodb": SI_MONGO, "postgres": SI_PG}, {}),
        "postgres-alone": ({"postgres": PG}, {}),
        "mongodb-alone": ({"mongodb": MONGO}, {}),
        "none": ({}, {}),
        "three": ({"mongodb": MONGO, "postgres": PG, "mysql": MYSQL}, {}),
        "three-stand-ins": ({"mongodb": SI_MONGO, "postgres": SI_PG, "mysql": SI_MYSQL}, {"DURABILITY": "relaxed"}),
        "three-stand-ins-mysql97": ({"mongodb": SI_MONGO, "postgres": SI_PG, "mysql": SI_MYSQL97}, {}),
    }
    for workload in ("booking", "oltp"):
        for iso in (None, "read-committed", "repeatable-read", "serializable", "snapshot-ish"):
            env = {"WORKLOAD": workload, **({"ISOLATION": iso} if iso else {})}
            cases[f"{workload}-{iso}"] = ({"mongodb": MONGO_REPL, "postgres": PG}, env)
        env = {"WORKLOAD": workload, "RETRY": "immediate", "MAX_ATTEMPTS": "3", "SESSIONS": "2"}
        cases[f"{workload}-immediate-stand-ins"] = ({"mongodb": SI_MONGO, "postgres": SI_PG}, env)
        cases[f"{workload}-postgres-alone"] = ({"postgres": PG}, env)
        cases[f"{workload}-mongodb-alone"] = ({"mongodb": MONGO_REPL}, env)
        cases[f"{workload}-three"] = ({"mongodb": MONGO_REPL, "postgres": PG, "mysql": MYSQL}, env)
    return cases


def written():
    out = {}
    for name, (settings, run_env) in _cases().items():
        rows = fairness.statements(json.loads(json.dumps(settings)), dict(run_env))
        runs = [{"database": db} for db in settings]
        out[name] = {"rows": rows, "report": fairness.report_lines({"fairness": rows, "runs": runs})}
    return out


def test_the_fairness_rows_and_table_are_as_pinned():
    pinned = _read(PINNED)
    got = json.loads(json.dumps(written()))
    assert sorted(got) == sorted(pinned)
    for name in pinned:
        assert got[name] == pinned[name], name
    # the table's lines, byte for byte (the JSON equality above holds key order loosely)
    for name in pinned:
        assert json.dumps(got[name], indent=1) == json.dumps(pinned[name], indent=1), name


if __name__ == "__main__":
    with open(PINNED, "w") as f:
        json.dump(written(), f, indent=1, ensure_ascii=False)
        f.write("\n")
