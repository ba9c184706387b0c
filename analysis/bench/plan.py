"""A run's plan, as analysis reads it (docs/contracts.md §1, §4): `plan.json`, the whole run as data
written by `node client plan --json run.env` into the bench folder (schema client/src/plan.schema.json,
checked here where it is read). The one reader of a run's settings and phases: runs made before
plan.json fall back here to `plan.txt` (the phase ids) and `run.env` (the settings; config.run for
runs made before plan.json's `settings.given`), and runs older
still to the phase ids the settings give (benchfiles.expected_phases). What analysis needs to know of
the workload (workload_facts) is the plan's `workload`, declared by the workload's file
(client/src/workloads/<name>.workload.js): analysis compares no workload names."""
from ..common import databases
from ..common.errors import AnalysisError
from . import benchfiles, folder

FILE = "plan.json"


# Each function takes a bench folder's path or its Bench (folder.py), which reads each file once.
def read(bench_dir):
    """plan.json of the folder, checked against its schema; None when the lab wrote none (older runs)."""
    return folder.of(bench_dir).plan_json()


def _plan_txt_phases(bench_dir):
    # plan.txt: the lab's copy of `node client plan run.env`, one `phase=<id> ...` line per phase
    lines = folder.of(bench_dir).lines("plan.txt")
    if lines is None:
        return None
    return [w[len("phase="):] for line in lines for w in line.split()[:1] if w.startswith("phase=")]


def phases(bench_dir):
    """The phase ids the lab planned, in run order: plan.json's, else plan.txt's; None when the
    folder has neither (runs made before the lab wrote them)."""
    doc = read(bench_dir)
    return [p["id"] for p in doc["phases"]] if doc else _plan_txt_phases(bench_dir)


def settings(bench_dir):
    """The run's bench keys as text, {KEY: value}: plan.json's, every key with its default filled in
    and as the clients got it (a key that does not apply is left out), else run.env as written (bench.env
    plus the --set overrides; defaults not filled in); None when the folder has neither."""
    doc = read(bench_dir)
    if doc:
        return {k: v for k, v in doc["settings"]["environment"].items() if v != ""}
    return folder.of(bench_dir).run_env()


def run_settings(bench_dir):
    """The run's keys as written (bench.env plus the --set overrides), {KEY: text}: results.json
    `config.run`. plan.json's `settings.given`, else run.env as written (runs made before plan.json
    carried it: the lab then wrote run.env); None when the folder has neither."""
    doc = read(bench_dir)
    if doc and "given" in doc["settings"]:
        return dict(doc["settings"]["given"])
    return folder.of(bench_dir).run_env()


def expected_phases(bench_dir, bench_settings):
    """The phases a run must have: the plan's (it knows QUERIES=all's names), else the ids the
    settings give (bench_settings: settings() or bench.env; without DATABASES, the original study's pair)."""
    planned = phases(bench_dir)
    if planned is not None:
        return planned
    s = bench_settings or {}
    dbs = (s.get("DATABASES") or " ".join(databases.baseline())).split()
    return benchfiles.expected_phases(dbs, s.get("WORKLOAD"), s.get("QUERIES"))


def repetitions(bench_dir):
    """REPEAT of the run: plan.json's, else run.env's or bench.env's (default 1)."""
    doc = read(bench_dir)
    if doc:
        return doc["repetitions"]
    env = folder.of(bench_dir).run_env() or folder.of(bench_dir).bench_env()
    try:
        return int(env.get("REPEAT") or 1)
    except ValueError:
        raise AnalysisError(f"{folder.of(bench_dir).path}/run.env: REPEAT={env.get('REPEAT')!r} is not an integer")


# The facts of the six workloads as they were when plan.json did not carry them (before its
# `workload`; client/src/workloads/<name>.workload.js `analysis` declares them since): the one
# fallback, for runs made before. Not a list to extend: a new workload's facts come from its plan.
_INSERTS = {"insert_ops": ["insert"], "ingest": False, "transactions": False, "count_expected": {"basis": "inserted"}}
_FACTS_BEFORE_PLAN = {
    "insert": _INSERTS,
    "ycsb": _INSERTS,
    "events": _INSERTS,
    "tsbs": {**_INSERTS, "insert_ops": ["insert", "bucket"], "ingest": True},
    "booking": {**_INSERTS, "transactions": True, "count_expected": {"basis": "committed"}},
    "oltp": {**_INSERTS, "transactions": True, "count_expected": {"basis": "setting", "setting": "TABLE_ROWS"}},
    # every globalsign run's plan carries its facts; listed so that the table names every shipped
    # workload (an insert's facts: its load and run-stage inserts are what the count holds)
    "globalsign": _INSERTS,
}


def workload_facts(bench_dir, name=None):
    """What analysis needs of the run's workload (plan.schema.json `workload`): insert_ops, ingest,
    transactions, count_expected; the plan's (a run has one workload), else, for runs made before
    the plan carried them, the facts the six workloads had by name (name: the workload the phase's
    clients ran, results' `workload`; one unknown to them gets an insert's)."""
    w = (read(bench_dir) or {}).get("workload")
    if w:
        return {k: v for k, v in w.items() if k != "name"}
    return _FACTS_BEFORE_PLAN.get(name or "insert", _INSERTS)
