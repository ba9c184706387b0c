"""A bench folder's plan: DIR/plan.json, written once by the client (`node client plan --json DIR/bench.env
--set ...`, schema client/src/plan.schema.json), and read here as data: the settings, the repetitions,
the workload's facts and the phases, each phase checked against the contract's words (the values end
up in file names and arithmetic). Also the files a run writes into a bench folder (clean_results).
Standard library only (runs on the host's python3 before the venv exists)."""
import glob
import json
import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from typing import Optional

from .request import BadInput

# Files a run writes into a bench folder (and run.env, plan.txt of runs made before plan.json was the
# only plan); removed before the next run of that bench so results of two runs never mix. The
# definition (bench.env and any override files) is never touched.
RESULT_FILES = ("*.out *.plan.json *.perf *.perf.gz *.perf.status *.perfstat.csv *.log *.count.json "
                "*.server-stats.json *.phase.json *.metrics.json *.settings.json *.svg "
                "run.env plan.json plan.txt host.json placement.json results.json report.md clients timeseries plots "
                "repeat-* sweep-*").split()


def clean_results(bench_dir):
    for pattern in RESULT_FILES:
        for path in glob.glob(os.path.join(glob.escape(bench_dir), pattern)):
            if os.path.isdir(path) and not os.path.islink(path):
                shutil.rmtree(path)
            else:
                os.remove(path)


def set_words(sets):
    """KEY=VALUE settings -> the client's `--set KEY=VALUE` words."""
    words = []
    for kv in sets:
        words += ["--set", kv]
    return words


def write_plan(root, bench_dir, sets=()):
    """DIR/plan.json from DIR/bench.env and the KEY=VALUE overrides, written whole or not at all."""
    words = set_words(sets)
    tmp = os.path.join(bench_dir, "plan.json.tmp")
    with open(tmp, "w", encoding="utf-8") as out:
        rc = subprocess.run(["node", os.path.join(root, "client"), "plan", "--json",
                             os.path.join(bench_dir, "bench.env"), *words], stdout=out).returncode
    if rc != 0:
        os.remove(tmp)
        raise BadInput(f"node client plan --json {bench_dir}/bench.env {' '.join(words)} failed")
    os.replace(tmp, os.path.join(bench_dir, "plan.json"))


def known_databases(root):
    """The databases with a manifest (databases/<name>/database.json) the lab can run, sorted: a
    manifest with not_in_lab is one whose lab wiring is still to come (databases/manifests.py)."""
    names = []
    for path in glob.glob(os.path.join(glob.escape(root), "databases", "*", "database.json")):
        with open(path, encoding="utf-8") as f:
            if '"not_in_lab"' not in f.read():
                names.append(os.path.basename(os.path.dirname(path)))
    return sorted(names)


@dataclass(frozen=True)
class Phase:
    id: str
    database: str
    stage: str            # load | run | query
    ops: int              # per client
    rate: float           # per client, 0 = unpaced
    expected_s: float
    clients: int
    query: Optional[str]  # the query type of a query phase, else None


def number(x):
    # 15.0 reads as 15, as the plan's line form (JavaScript numbers) gave it
    return str(int(x)) if isinstance(x, float) and x.is_integer() else str(x)


WORDS = {
    "phase": re.compile(r"[a-z][a-z0-9-]*"), "database": re.compile(r"[a-z][a-z0-9]*"),
    "stage": re.compile(r"load|run|query"), "ops": re.compile(r"[0-9]+"),
    "rate": re.compile(r"[0-9]+(\.[0-9]+)?"), "expected_s": re.compile(r"[0-9]+(\.[0-9]+)?"),
    "clients": re.compile(r"[1-9][0-9]*"), "query": re.compile(r"-|[a-z0-9][a-z0-9-]*"),
}


def phase_of(entry, root):
    """One plan.json phase, refused unless every word is the contract's (as its line form was:
    phase=<id> database=<db> stage=<stage> ops=<int> rate=<number> expected_s=<number> clients=<int>
    query=<name|->); a database must have a manifest the lab runs."""
    words = {"phase": str(entry.get("id")), "database": str(entry.get("database")), "stage": str(entry.get("stage")),
             "ops": number(entry.get("ops")), "rate": number(entry.get("rate")),
             "expected_s": number(entry.get("expected_s")), "clients": number(entry.get("clients")),
             "query": entry.get("query") or "-"}
    line = " ".join(f"{k}={v}" for k, v in words.items())
    ok = all(isinstance(v, str) and WORDS[k].fullmatch(v) for k, v in words.items())
    databases = known_databases(root)
    if not ok or words["database"] not in databases or (words["stage"] == "query" and words["query"] == "-"):
        raise BadInput(f"node client plan printed a line that is not 'phase=<id> database=<{'|'.join(databases)}> "
                       f"stage=<load|run|query> ops=<int> rate=<number> expected_s=<number> clients=<int> "
                       f"query=<name|->': '{line}'")
    return Phase(id=words["phase"], database=words["database"], stage=words["stage"], ops=int(words["ops"]),
                 rate=float(words["rate"]), expected_s=float(words["expected_s"]), clients=int(words["clients"]),
                 query=None if words["query"] == "-" else words["query"])


class Plan:
    """plan.json, read-only: settings.environment (every bench key, defaults filled in: what the
    clients get), settings.given (the keys as written: bench.env plus the overrides), repetitions,
    the workload's facts and one repetition's phases in run order."""

    def __init__(self, path, root):
        self.path = path
        try:
            with open(path, encoding="utf-8") as f:
                data = json.load(f)
            self.environment = dict(data["settings"]["environment"])
            self.given = dict(data["settings"]["given"])
            self.repetitions = int(data["repetitions"])
            self.workload = dict(data["workload"])
            phases = list(data["phases"])
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as e:
            raise BadInput(f"{path}: not a plan (client/src/plan.schema.json): {type(e).__name__}: {e}")
        self.data = data
        self.phases = [phase_of(p if isinstance(p, dict) else {}, root) for p in phases]
        if not self.phases:
            raise BadInput(f"{path} has no phase")

    def given_sets(self):
        """The KEY=VALUE words that plan the same keys again (a repetition's plan)."""
        return [f"{k}={v}" for k, v in self.given.items()]

    def fact(self, name):
        """A fact of the workload (declared by its file), e.g. `transactions`: refused when absent."""
        if name not in self.workload:
            raise BadInput(f"{self.path}: not a plan (client/src/plan.schema.json): KeyError: {name!r}")
        return self.workload[name]

    @property
    def transactions(self):
        return self.fact("transactions") is True
