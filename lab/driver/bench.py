"""One bench folder whose plan.json is written: fresh database volumes, each database's init, the
plan's phases in order (lab/driver/phase.py), then analysis's bench_finished. Everything a phase and
the databases' hooks need of the bench is this object: its settings (`env`), the engine, and the
client containers started with the bench's plan."""
import json
import os
import sys

from . import hooks
from .phase import run_phase
from .plan import Plan
from .engine import BENCH_MOUNT, client_args


def _manifests(root):
    sys.path.insert(0, root)
    from databases import manifests  # the venv's jsonschema checks each manifest as it is read
    return manifests


def _manifest_fields(manifests, databases_root, key, names=None):
    return [manifests.field(manifests.load(n, databases_root), key) for n in (names or manifests.names(databases_root))]


def remove_databases(lab, env=None, volumes=True):
    """Every database container of the project, whichever databases ran, and their volumes (kept with
    volumes=False: the data stays readable until the next bench or `./runme.sh down`); a pooler goes
    with them; the monitoring stays."""
    manifests, root = _manifests(lab.root), os.path.join(lab.root, "databases")
    env = env or lab.engine.environ
    # never without names: `compose rm --stop` alone would stop the monitoring too
    lab.engine.compose(["rm", "--stop", "--force", *(["--volumes"] if volumes else []),
                        *_manifest_fields(manifests, root, "service")], env=env)
    poolers = [s for _, _, s in manifests.poolers(None, root)]
    if poolers:
        lab.engine.compose(["rm", "--stop", "--force", *poolers], env=env)
    if volumes:
        for volume in _manifest_fields(manifests, root, "volume"):
            lab.engine.remove_volume(f"{lab.engine.project}_{volume}")


class Bench:
    def __init__(self, lab, bench_dir, plan=None):
        """plan: the folder's plan.json as lab/driver/plan.py read and checked it (read here when the
        caller has not read it already)."""
        self.lab = lab
        self.engine = lab.engine
        self.probe = lab.probe
        self.dir = os.path.abspath(bench_dir)
        self.name = os.path.basename(self.dir)
        self.plan = plan or Plan(os.path.join(self.dir, "plan.json"), lab.root)
        # every bench key with its default filled in (the client wrote them), over the lab's
        # environment: compose interpolates the services from both, as runme.sh exported them before
        self.settings = dict(self.plan.environment)
        self.env = {**self.engine.environ, **self.settings}
        self.databases = self.settings["DATABASES"].split()
        self.transactions = self.plan.transactions
        self.databases_root = os.path.join(lab.root, "databases")
        self.manifests = _manifests(lab.root)
        self.image_os = {}      # by service: lab/image-os's facts, read once before the phases
        self.pool_ready = {}    # by database: its pooler's readiness facts
        self.phase_id = ""      # the phase under way: one-shots get `--phase` with it
        pool = self.settings.get("POOL") or "none"
        self.pooled = {} if pool == "none" else {
            db: service for db, name, service in self.manifests.poolers(self.databases, self.databases_root) if name == pool}
        self.pool_name = pool
        self._hooks = {}        # (db, pool or None) -> its hook module, loaded once per bench

    def database_hooks(self, db):
        """databases/<db>/lab.py, loaded once for the bench (a phase asks for a uri several times)."""
        if (db, None) not in self._hooks:
            self._hooks[db, None] = hooks.database(self.databases_root, db)
        return self._hooks[db, None]

    def pool_hooks(self, db):
        """The bench's pooler's databases/<db>/<pool>/pool.py, loaded once for the bench."""
        if (db, self.pool_name) not in self._hooks:
            self._hooks[db, self.pool_name] = hooks.pooler(self.databases_root, db, self.pool_name)
        return self._hooks[db, self.pool_name]

    # -- speaking and the engine ------------------------------------------------------------------
    def say(self, msg):
        self.lab.say(msg, self.name)

    def compose(self, args, capture=True):
        return self.engine.compose(args, env=self.env, capture=capture)

    def container_of(self, service):
        return self.engine.container_of(service, env=self.env)

    def database_uri(self, db):
        return self.database_hooks(db).uri(self.env)

    def client_uri(self, db):
        """The URI a phase's clients dial: the pool's for a pooled database, else the database's own."""
        if db in self.pooled:
            return self.pool_hooks(db).uri(self.env, self.pooled[db])
        return self.database_uri(db)

    def _client_env(self, uri):
        return {**self.env, "URI": uri, "BENCH": self.name}

    def oneshot(self, db, command, stdout="capture", stderr=None, uri=None, extra_env=None, plan=True,
                txn_outcomes=None):
        """A one-shot client command (wait-ready, init, count, ...) against DB. STDOUT: "capture"
        (returned as .stdout), "inherit", or a path appended to; STDERR: None (the terminal) or a path."""
        env = self._client_env(uri or self.database_uri(db))
        if plan:
            args = client_args(self.dir, "ro", self.settings.get("DATASET"), txn_outcomes, self.env)
            flags = ["--plan", f"{BENCH_MOUNT}/plan.json"] + (["--phase", self.phase_id] if self.phase_id else [])
        else:
            args = ["-e", "URI", "-e", "BENCH"] + (["-e", "READY_TIMEOUT_S"] if self.env.get("READY_TIMEOUT_S") else [])
            flags = []
        for key, value in (extra_env or {}).items():
            args += ["-e", f"{key}={value}"]
        words = ["run", "--rm", "--no-deps", "-T", *args, "client", command, *flags]
        return self.engine.compose_to(words, env, stdout, stderr)

    def client_name(self, phase_id, i):
        return f"{self.engine.project}-client-{phase_id}-{i}"

    def scrape_clients(self, phase_id, clients):
        """Prometheus's client targets: the phase's CLIENTS containers by name (0: none), on the
        single host (lab/driver/monitoring_targets.py). The dashboards read them; results.json does not:
        a failure is said, and the run goes on."""
        try:
            self.lab.scrape_clients([self.client_name(phase_id, i) for i in range(1, clients + 1)])
        except Exception as e:  # noqa: BLE001
            self.say(f"the clients' metrics targets could not be written: {e}")

    def client_start(self, db, i, phase_id):
        """One detached client container of a phase; its id ('' when the start failed). The client
        reads its phase (operations, rate, stage, query), settings and result file from plan.json."""
        env = self._client_env(self.client_uri(db))
        args = client_args(self.dir, "rw", self.settings.get("DATASET"), None, self.env)
        words = ["run", "-d", "--no-deps", "--use-aliases", "--name", self.client_name(phase_id, i),
                 "--user", f"{os.getuid()}:{os.getgid()}", *args, "client", "run",
                 "--plan", f"{BENCH_MOUNT}/plan.json", "--phase", phase_id, "--client", str(i)]
        r = self.engine.compose(words, env=env)
        if r.returncode != 0:
            sys.stderr.write(r.stderr)
            return ""
        return r.stdout.strip().splitlines()[-1] if r.stdout.strip() else ""

    # -- the databases ----------------------------------------------------------------------------
    def _services(self, key, names=None):
        return _manifest_fields(self.manifests, self.databases_root, key, names)

    def remove_databases(self):
        remove_databases(self.lab, env=self.env)

    def refresh_databases(self):
        """Fresh database volumes, the databases started and waited for from outside (no healthcheck
        runs in a database container: readiness is the client's own authenticated connect,
        docs/contracts.md §3), each image's OS read, then the bench's pooler. Raises on a failure."""
        self.database_env()
        self.remove_databases()
        if self.compose(["up", "-d", *self._services("service", self.databases)], capture=False).returncode != 0:
            raise RuntimeError(f"the databases could not be started: {' '.join(self.databases)}")
        for db in self.databases:
            # an interrupt during `up` may leave a database that never starts: not waited for
            if self.lab.interrupted:
                raise RuntimeError("interrupted")
            self.database_ready(db)
            self.read_image_os(db)
        for db, service in self.pooled.items():
            module = self.pool_hooks(db)
            self.env.update(module.compose_env(self.env))
            self.pool_ready[db] = module.start(self, service)
            self.read_image_os(service)

    def database_env(self):
        """The compose variables the bench decides for its databases' services: DB_MEMORY from the
        bench's DB_MEMORY_MB (every database container's limit, as .env's DB_MEMORY says it; unset,
        .env's stays), then each database's compose_env hook (CACHE_MB as its own cache setting,
        TOPOLOGY, DURABILITY, ...; None unsets a variable)."""
        if self.settings.get("DB_MEMORY_MB"):
            self.env["DB_MEMORY"] = f"{int(self.settings['DB_MEMORY_MB'])}m"
        for db in self.databases:
            for name, value in hooks.compose_env(self.database_hooks(db), self.env, self.databases_root).items():
                if value is None:
                    self.env.pop(name, None)
                else:
                    self.env[name] = value

    def database_ready(self, db):
        if self.oneshot(db, "wait-ready").returncode != 0:
            raise RuntimeError(f"{db} did not become ready (see the wait-ready error above and: "
                               f"docker logs $(docker compose ps -q {db}))")
        after = getattr(self.database_hooks(db), "after_ready", None)
        if after:
            after(self, db)

    def read_image_os(self, service):
        """The operating system and C library of the service's image (lab/image-os.py), read once
        after it started, outside every window, in a throwaway container of its own."""
        cid = self.container_of(service)
        image = self.engine.inspect(cid, "{{.Image}}") if cid else None
        facts = self.lab.image_os(image) if image else None
        self.image_os[service] = facts or {
            "image": image or None, "os": None, "libc": None,
            "reason": f"the image of the {service} container could not be read (no container, or lab/image-os.py failed)"}

    def service_settings(self, db):
        """The settings of the database's compose service as they ran (lab/service-settings.py)."""
        r = self.compose(["config", "--format", "json"])
        if r.returncode != 0:
            raise RuntimeError(f"{db}: its service's settings could not be read")
        return self.lab.service_settings(json.loads(r.stdout), self.manifests.field(
            self.manifests.load(db, self.databases_root), "service"))

    # -- the bench --------------------------------------------------------------------------------
    def run(self):
        """Returns nothing; a phase's failed status sets lab.run_failed; raises when the bench cannot
        start (databases not ready, init failed)."""
        settings = self.settings
        if (settings.get("WORKLOAD") or "insert") == "insert":
            self.say(f"starting: {settings.get('DESCRIPTION', '')} ({settings['DATABASES']}; {settings['CLIENTS']} clients x "
                     f"{settings['DOCS']} docs at {settings['RATE']} docs/s)")
        else:
            self.say(f"starting: {settings.get('DESCRIPTION', '')} ({settings['DATABASES']}; {settings['WORKLOAD']} workload; "
                     f"phases: {' '.join(p.id for p in self.plan.phases)})")
        host = None
        try:
            host = self.probe.host_facts()
            self.lab.write_json(os.path.join(self.dir, "host.json"), host)
        except Exception as e:  # noqa: BLE001  (host facts are a figure's context, not a reason to stop)
            self.say(f"host-info failed: {e}")
        try:
            self.lab.write_json(os.path.join(self.dir, "hosts.json"), self.lab.hosts_facts(host))
        except Exception as e:  # noqa: BLE001  (as host.json)
            self.say(f"the hosts' facts could not be read: {e}")
        self.say(f"fresh database volumes for: {settings['DATABASES']}")
        try:
            self.refresh_databases()
        except Exception as e:  # noqa: BLE001
            self.say(f"the databases did not become ready: {e}")
            raise
        for db in self.databases:
            self.lab.write_json(os.path.join(self.dir, f"{db}.settings.json"), self.service_settings(db))
            out = os.path.join(self.dir, f"{db}.out")
            if self.oneshot(db, "init", stdout=out, stderr=out).returncode != 0:
                self.say(f"{db}: init failed (see {db}.out)")
                raise RuntimeError(f"{db}: init failed")
            # A transaction workload's data is loaded by init (no load phase): settled at once,
            # outside any window (VACUUM (ANALYZE) + CHECKPOINT / {fsync: 1}), as after a load phase.
            if self.transactions and self.oneshot(db, "settle", stdout=out, stderr=out).returncode != 0:
                self.say(f"{db}: settle after init failed (see {db}.out)")
                raise RuntimeError(f"{db}: settle failed")
        # The plan's order: per database its load phase (if the workload has one), then its run
        # phase, on the same volume.
        for phase in self.plan.phases:
            if self.lab.interrupted:
                break
            run_phase(self, phase)
        self.lab.bench_finished(self)
