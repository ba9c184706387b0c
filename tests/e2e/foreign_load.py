"""Foreign work started by a test while a runme.sh run is in a given phase (issue 9, section 2; issue 16):

- "loop": foreign-query-loop.js, a monitoring-like job reading the whole benchmark table every 1-3 s
  through the published port, a new connection each time; stopped when the phase ends;
- "cluster": foreign-cluster-work.js, one session on database `postgres` (another database of the
  lab's PostgreSQL cluster) running generate_series(1, 1e7) and a CHECKPOINT, 4 s into the phase.

ForeignLoads.on_line is fed the run's output (conftest.runme_watched): a phase's loads start at its
"<phase>: phase starts" line and are stopped or awaited at its "<phase>: phase <status>" line, so
each stays inside its phase."""
import json
import re
import signal
import subprocess
from pathlib import Path

from conftest import BIND_ADDRESS, LAB_ROOT, PORTS

HERE = Path(__file__).resolve().parent
LOOP_MAX_S = 90
CLUSTER_DELAY_S, CLUSTER_ROWS = 4, 10_000_000
# "[08:35:27 bench-e2e-foreign] postgres: phase starts (STAND-IN: ...)", "[...] postgres: phase ok"
PHASE_LINE = re.compile(r"^\[\d\d:\d\d:\d\d ([^\]]+)\] ([a-z][a-z0-9-]*): (phase starts|phase \w+)")


def env_file():
    env = {}
    for line in (LAB_ROOT / ".env").read_text().splitlines():
        if "=" in line and not line.lstrip().startswith("#"):
            k, _, v = line.partition("=")
            env[k.strip()] = v.strip()
    return env


def host_uri(db, database=None):
    """The lab's database through its published port; DATABASE: another database of the cluster."""
    e = env_file()
    if db == "postgres":
        return (f"postgres://{e.get('POSTGRES_USER', 'jsonbench')}:{e['POSTGRES_PASSWORD']}@{BIND_ADDRESS}:"
                f"{PORTS['PG_PORT']}/{database or e.get('POSTGRES_DB', 'jsonbench')}")
    return (f"mongodb://{e.get('MONGO_USER', 'jsonbench')}:{e['MONGO_PASSWORD']}@{BIND_ADDRESS}:"
            f"{PORTS['MONGO_PORT']}/?authSource=admin")


def start(kind, db):
    if kind == "loop":
        args = [str(HERE / "foreign-query-loop.js"), db, host_uri(db), str(LOOP_MAX_S)]
    elif kind == "cluster":
        assert db == "postgres", "cluster work is PostgreSQL's: another database of the same server"
        args = [str(HERE / "foreign-cluster-work.js"), host_uri(db, "postgres"), str(CLUSTER_DELAY_S), str(CLUSTER_ROWS)]
    else:
        raise ValueError(f"foreign load {kind!r}: loop or cluster")
    return subprocess.Popen(["node", *args], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


class ForeignLoads:
    """plan: {(bench folder name, phase id): ("loop",) / ("cluster",) / ("loop", "cluster")}.
    out[(bench, phase, kind)]: what each load printed (the loop's last line: `queries N rows M`)."""

    def __init__(self, plan):
        self.plan = plan
        self.running, self.out = {}, {}

    def on_line(self, line):
        m = PHASE_LINE.search(line)
        if not m:
            return
        bench, phase, what = m.groups()
        for kind in self.plan.get((bench, phase), ()):
            key = (bench, phase, kind)
            if what == "phase starts":
                self.running[key] = start(kind, phase.split("-")[0])
            elif key in self.running:  # the phase ended: the loop is stopped, the cluster work awaited
                p = self.running.pop(key)
                if kind == "loop":
                    p.send_signal(signal.SIGTERM)
                self.out[key] = p.communicate(timeout=120)[0]

    def close(self):
        for p in self.running.values():
            if p.poll() is None:
                p.kill()
                p.wait()
        self.running = {}

    def loop_queries(self, bench, phase):
        return int(re.search(r"queries (\d+) rows", self.out[(bench, phase, "loop")]).group(1))


def run_entry(results, phase):
    return next(r for r in results["runs"] if r["phase"] == phase)


def brief(rec):
    return {k: (c["expected"], c["observed"], c["tolerance"], c["verdict"]) for k, c in rec["checks"].items()}


def flagged(rec):
    return {k for k, c in rec["checks"].items() if c["verdict"] == "suspect"}


# What each load moves, by the counters the reconciliation reads (analysis/figures/reconcile.py): the loop
# opens a session per query (PostgreSQL sessions; the MongoDB driver's connections) on the lab's
# database; the cluster work runs in database `postgres` and requests a checkpoint.
LOOP_FLAGS = {"postgres": {"sessions"}, "mongodb": {"connections_created"}}
CLUSTER_FLAGS = {"checkpoints_requested"}
CLUSTER_ANY = {"other_databases_sessions", "other_databases_active_ms", "other_database_sessions_at_end"}


def assert_suspect_by(results, phase, stdout, loads, loop_queries=None):
    """The phase is `suspect` (results.json, the summary line) and flagged by what each of LOADS did;
    its figures are kept, only flagged."""
    db = phase.split("-")[0]
    entry = run_entry(results, phase)
    rec = entry["reconciliation"]
    got = flagged(rec)
    print(phase, "under", loads, rec["interval_s"], "s", json.dumps(brief(rec)))
    assert rec["verdict"] == "suspect" and entry["status"] == "suspect", rec["reasons"]
    if "loop" in loads:
        assert loop_queries is not None and loop_queries >= 2, loop_queries
        assert got >= LOOP_FLAGS[db], got
    if "cluster" in loads:
        assert got >= CLUSTER_FLAGS and got & CLUSTER_ANY, got
    assert entry["reason"] and entry["cpu"]["user_s"] is not None, "figures kept, only flagged"
    # the summary line names the bench and the database (not the query: a query phase reads "<bench> mongodb")
    assert re.search(rf"{re.escape(results['bench'])} {db}\b.*status SUSPECT \(", stdout), stdout[-2000:]
    return got
