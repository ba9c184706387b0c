"""One bench folder as one object (issue 26): each of its files is read and checked against its schema
once, on first use, and kept; every figure of results.json is a function of this object (or of one
phase's view of it, `Bench.phase`), so no module opens a file of the folder again. A file that is
not there reads as None (a failed or interrupted phase), as benchfiles.py's readers say.

`of(x)` takes a Bench or a folder's path, so the readers of the plan (plan.py) and of the phases
(phases.py) serve both the results' one object and the commands that read one file of a folder."""
import glob
import gzip
import os

from ..common import file_schemas
from ..common.fileio import read_json
from . import benchfiles, perfscript

PHASE_SCHEMA = "lab/phase.schema.json"


def read_phase_file(path):
    """D.phase.json checked against its schema (lab/phase.schema.json); None when the file does not
    exist (a phase that never got that far)."""
    if not os.path.exists(path):
        return None
    doc = read_json(path)
    file_schemas.check(doc, PHASE_SCHEMA, path)
    return doc


def of(bench):
    """The Bench of a folder's path, or the Bench given."""
    return bench if isinstance(bench, Bench) else Bench(bench)


class Bench:
    def __init__(self, path):
        self.path = os.path.normpath(os.fspath(path))
        self._kept = {}
        self._phases = {}

    def _once(self, key, read):
        if key not in self._kept:
            self._kept[key] = read()
        return self._kept[key]

    def file(self, name):
        return os.path.join(self.path, name)

    def exists(self, name):
        """Whether the folder has the file, looked at once (what one reading of the folder saw)."""
        return self._once(("exists", name), lambda: os.path.exists(self.file(name)))

    # the bench's own files
    def bench_env(self):
        """bench.env; an error when the folder or the file is missing (not a bench folder)."""
        return self._once("bench.env", lambda: benchfiles.bench_env(self.path))

    def run_env(self):
        return self._once("run.env", lambda: benchfiles.run_env(self.path))

    def plan_json(self):
        """plan.json checked against client/src/plan.schema.json; None when the lab wrote none."""
        path = self.file("plan.json")
        return self._once("plan.json", lambda: file_schemas.client(read_json(path), "plan", path)
                          if os.path.exists(path) else None)

    def lines(self, name):
        """A text file's lines (plan.txt, <db>.out), None when it is not there."""
        def read():
            text = benchfiles.read_text(self.file(name))
            return None if text is None else text.splitlines(keepends=True)
        return self._once(("lines", name), read)

    def results_json(self):
        """results.json as analysis wrote it (report, summary and check read it); None before it is."""
        return self._once("results.json", lambda: benchfiles.optional_json(self.file("results.json")))

    def host(self):
        return self._once("host.json", lambda: benchfiles.optional_json(self.file("host.json")))

    def hosts(self):
        """hosts.json's hosts (lab/hosts.schema.json), None when the run recorded none."""
        return self._once("hosts.json", lambda: (benchfiles.hosts_json(self.path) or {}).get("hosts"))

    def canary(self):
        """canary.json (lab/canary.schema.json), None when the run measured none."""
        return self._once("canary.json", lambda: benchfiles.canary_json(self.path))

    def settings(self, database):
        """D.settings.json (lab/settings.schema.json), None when the lab wrote none."""
        return self._once(("settings", database), lambda: benchfiles.settings_json(self.path, database))

    def phase_files(self):
        """The phase ids that have a D.phase.json, unordered (phases.py orders them)."""
        return self._once("*.phase.json", lambda: {os.path.basename(p)[: -len(".phase.json")]
                                                   for p in glob.glob(os.path.join(self.path, "*.phase.json"))})

    def phase(self, phase_id):
        """The view of one phase's files (Phase), the same object each time."""
        if phase_id not in self._phases:
            self._phases[phase_id] = Phase(self, phase_id)
        return self._phases[phase_id]


class Phase:
    """One phase's files of a Bench, each read once: D.phase.json, D.metrics.json, D.count.json,
    D.server-stats.json, D.perfstat.csv, clients/D-client-<i>.json, timeseries/D.csv.gz, the
    profile's samples (D.perf or D.perf.gz, bench/perfscript.py), whether a file is there. The
    figures (analysis/figures/) take a Phase and open no file themselves."""

    def __init__(self, bench, phase_id):
        self.bench, self.id = bench, phase_id

    def _once(self, what, read):
        return self.bench._once((self.id, what), read)

    def doc(self):
        """D.phase.json (lab/phase.schema.json), None when there is none."""
        return self._once("phase", lambda: read_phase_file(self.bench.file(f"{self.id}.phase.json")))

    def metrics(self):
        return self._once("metrics", lambda: benchfiles.optional_json(self.bench.file(f"{self.id}.metrics.json")))

    def count(self):
        return self._once("count", lambda: benchfiles.count_json(self.bench.path, self.id))

    def server_stats(self):
        return self._once("server-stats", lambda: benchfiles.server_stats_json(self.bench.path, self.id))

    def perfstat_text(self):
        return self._once("perfstat", lambda: benchfiles.read_text(self.bench.file(f"{self.id}.perfstat.csv")))

    def clients(self):
        """[(path, result)] of the phase's client result files, in client order, each schema-checked."""
        return self._once("clients", lambda: benchfiles.client_results(self.bench.path, self.id))

    def database(self):
        """The phase's database: its D.phase.json's, else its id's (`mongodb-load`: mongodb)."""
        return (self.doc() or {}).get("database") or benchfiles.database_of(self.id)

    def timeseries(self):
        """timeseries/D.csv.gz as written (gzip bytes: the export's long format, collect/export.py),
        None when the export wrote none."""
        def read():
            path = self.bench.file(os.path.join("timeseries", f"{self.id}.csv.gz"))
            if not os.path.exists(path):
                return None
            with open(path, "rb") as f:
                return f.read()
        return self._once("timeseries", read)

    def has(self, suffix):
        """Whether D<suffix> is there (D.metrics.json, D.plan.json ...), without reading it."""
        return self.bench.exists(f"{self.id}{suffix}")

    def profile_path(self):
        """D.perf, else D.perf.gz, the first that is there and not empty; None without a profile."""
        return self._once("profile path", lambda: next(
            (p for p in (self.bench.file(f"{self.id}.perf"), self.bench.file(f"{self.id}.perf.gz"))
             if os.path.exists(p) and os.path.getsize(p)), None))

    def profile_samples(self):
        """The profile's samples (perfscript.samples: comm, pid, the binaries of its frames), None
        without a profile."""
        def read():
            path = self.profile_path()
            if path is None:
                return None
            f = gzip.open(path, "rt", errors="replace") if path.endswith(".gz") else open(path, errors="replace")
            with f:
                return perfscript.samples(f)
        return self._once("profile", read)
