"""One bench folder whose plan.json is written: fresh database volumes, each database's init, the
plan's phases in order (lab/driver/phase.py), then analysis's bench_finished. Everything a phase and
the databases' hooks need of the bench is this object: its settings (`env`), the engine, and the
client containers started with the bench's plan."""
import concurrent.futures
import json
import os
import sys

from . import hooks, images, placed
from .files import BenchFiles
from . import placement as placing
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
    with them; the monitoring stays. On every engine the run used (a placed bench's hosts too)."""
    manifests, root = _manifests(lab.root), os.path.join(lab.root, "databases")
    for engine in list(lab.engines.values()):
        e = env or engine.environ
        # never without names: `compose rm --stop` alone would stop the monitoring too
        engine.compose(["rm", "--stop", "--force", *(["--volumes"] if volumes else []),
                        *_manifest_fields(manifests, root, "service")], env=e)
        poolers = [s for _, _, s in manifests.poolers(None, root)]
        if poolers:
            engine.compose(["rm", "--stop", "--force", *poolers], env=e)
        if volumes:
            for volume in _manifest_fields(manifests, root, "volume"):
                engine.remove_volume(f"{engine.project}_{volume}")


class _OnHost:
    """The bench as a pooler's hooks see it: compose and its containers on the engine of the pooler's
    database (a pooler goes with its database), everything else the bench's."""

    def __init__(self, bench, engine):
        self._bench, self.engine = bench, engine

    def __getattr__(self, name):
        return getattr(self._bench, name)

    def compose(self, args, capture=True):
        return self.engine.compose(args, env=self._bench.env_on(self.engine), capture=capture)

    def container_of(self, service):
        return self.engine.container_of(service, env=self._bench.env_on(self.engine))


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
        # Where each role runs (lab/driver/placement.py, checked before the run started): an Engine per
        # Docker context, the same compose files on each; unplaced, every one is lab.engine.
        self.placement = placing.of_plan(self.plan, self.engine.environ, os.path.join(lab.root, ".env"))
        self.client_engine = lab.engine_on(self.placement.client)
        self.service_engine = {}  # compose service -> the Engine it runs on (a pooler: its database's)
        for db in self.databases:
            engine = self.db_engine(db)
            self.service_engine[self.manifests.field(self.manifests.load(db, self.databases_root), "service")] = engine
            if db in self.pooled:
                self.service_engine[self.pooled[db]] = engine
        self.images = []        # a placed bench's image loads: {image, id, context, seconds, loaded}
        self.files = None       # clients on another host: the bench's files there (lab/driver/files.py)
        self.cadvisors = []     # the placed hosts whose cAdvisor this bench started (lab/driver/placed.py)

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

    def db_engine(self, db):
        """The Engine DB (and its pooler) runs on."""
        return self.lab.engine_on(self.placement.database(db))

    def probe_for(self, db):
        """The probe that reads DB's host (lab.probe_on: a probe container there when it is placed)."""
        return self.lab.probe_on(self.placement.database(db))

    def engine_of(self, service):
        return self.service_engine.get(service, self.engine)

    def env_on(self, engine):
        """The compose variables on ENGINE: the bench's, with the published ports bound to that host's
        address on the lab network when LAB_ADDRESSES names one (placement.py)."""
        address = self.placement.addresses.get(engine.context) if engine.context else None
        return {**self.env, "BIND_ADDRESS": address} if address else self.env

    def container_of(self, service):
        engine = self.engine_of(service)
        return engine.container_of(service, env=self.env_on(engine))

    def database_address(self, db):
        """Where DB's clients dial it: None on one engine (its service name on the lab network), else
        "ADDRESS:PORT", its host's lab address and the port its service publishes there."""
        if not self.placement.dialled_across(db):
            return None
        engine = self.db_engine(db)
        service = self.manifests.field(self.manifests.load(db, self.databases_root), "service")
        return f"{self.placement.addresses[engine.context]}:{images.published_port(engine, self.env_on(engine), service)}"

    def database_uri(self, db):
        address = self.database_address(db)
        return self.database_hooks(db).uri(self.env, address) if address else self.database_hooks(db).uri(self.env)

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
            if txn_outcomes and self.files:
                self.files.push({"txn-outcomes.json": txn_outcomes})
            args = client_args(self.dir, "ro", self.settings.get("DATASET"), txn_outcomes, self.env, self.files_volume())
            flags = ["--plan", f"{BENCH_MOUNT}/plan.json"] + (["--phase", self.phase_id] if self.phase_id else [])
        else:
            args = ["-e", "URI", "-e", "BENCH"] + (["-e", "READY_TIMEOUT_S"] if self.env.get("READY_TIMEOUT_S") else [])
            flags = []
        for key, value in (extra_env or {}).items():
            args += ["-e", f"{key}={value}"]
        words = ["run", "--rm", "--no-deps", "-T", *args, "client", command, *flags]
        # while the clients' host and the database's answer: a count that started before the database's
        # host went silent ends within a watch instead of waiting out the client's connection timeouts
        return self.client_engine.compose_to(words, env, stdout, stderr, watch=[self.db_engine(db)])

    def client_name(self, phase_id, i):
        return f"{self.engine.project}-client-{phase_id}-{i}"

    def scrape_clients(self, phase_id, clients):
        """Prometheus's client targets: the phase's CLIENTS containers (0: none), by name on
        Prometheus's own host, at their published metrics port on another (lab/driver/placed.py
        scrape_clients). The dashboards read them; results.json does not: a failure is said, and the
        run goes on."""
        names = [self.client_name(phase_id, i) for i in range(1, clients + 1)]
        try:
            if self.placement.client or self.placement.monitoring:
                why = placed.scrape_clients(self, names)
                if why and clients:
                    self.say(f"the clients' metrics are not scraped: {why}")
                return
            self.lab.scrape_clients(names)
        except Exception as e:  # noqa: BLE001
            self.say(f"the clients' metrics targets could not be written: {e}")

    def client_start(self, db, i, phase_id):
        """One detached client container of a phase; its id ('' when the start failed). The client
        reads its phase (operations, rate, stage, query), settings and result file from plan.json."""
        env = self._client_env(self.client_uri(db))
        args = client_args(self.dir, "rw", self.settings.get("DATASET"), None, self.env, self.files_volume())
        words = ["run", "-d", "--no-deps", "--use-aliases", "--name", self.client_name(phase_id, i),
                 *placed.client_metrics_publish(self, i),  # on another host than Prometheus: its /metrics port
                 "--user", f"{os.getuid()}:{os.getgid()}", *args, "client", "run",
                 "--plan", f"{BENCH_MOUNT}/plan.json", "--phase", phase_id, "--client", str(i)]
        r = self.client_engine.compose(words, env=env)
        if r.returncode != 0:
            sys.stderr.write(r.stderr)
            return ""
        return r.stdout.strip().splitlines()[-1] if r.stdout.strip() else ""

    def files_volume(self):
        return self.files.volume if self.files else None

    def send_files(self):
        """Clients on another host than the controller: plan.json and the DATASET file into a volume
        there (lab/driver/files.py), where their results are written and fetched back from."""
        image = images.service_images(self.engine, self.env, ["client"])["client"]
        self.files = BenchFiles(self.client_engine, image, self.name)
        self.files.create()
        files = {"plan.json": os.path.join(self.dir, "plan.json")}
        ds = self.settings.get("DATASET")
        if ds:
            path = ds if os.path.isabs(ds) else os.path.join(self.dir, ds)
            files[f"dataset/{os.path.basename(path)}"] = path
        self.files.push(files)

    def fetch_results(self):
        """The clients' result files into the bench folder (clients on another host); nothing else."""
        if self.files:
            self.files.pull_clients(self.dir)

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
        self.load_images()
        if self.placement.monitoring:
            placed.start_monitoring(self)  # Prometheus on its host before the targets go into it
        if self.placement.placed:
            self.cadvisors = placed.start_cadvisors(self)  # each placed host's cAdvisor, scraped with its host label
        if self.placement.client:
            self.send_files()
        for engine, dbs in self.databases_by_engine():
            services = self._services("service", dbs)
            if engine.compose(["up", "-d", *services], env=self.env_on(engine), capture=False).returncode != 0:
                raise RuntimeError(f"the databases could not be started: {' '.join(dbs)}"
                                   + (f" (on context {engine.context})" if engine.context else ""))
        for db in self.databases:
            # an interrupt during `up` may leave a database that never starts: not waited for
            if self.lab.interrupted:
                raise RuntimeError("interrupted")
            self.database_ready(db)
            self.read_image_os(db)
        for db, service in self.pooled.items():
            module = self.pool_hooks(db)
            self.env.update(module.compose_env(self.env))
            self.pool_ready[db] = module.start(_OnHost(self, self.db_engine(db)), service)
            self.read_image_os(service)

    def databases_by_engine(self):
        """[(Engine, [db, ...])] in the order of DATABASES' first database on each engine."""
        out = {}
        for db in self.databases:
            out.setdefault(self.placement.database(db), []).append(db)
        return [(self.lab.engine_on(ctx), dbs) for ctx, dbs in out.items()]

    def load_images(self):
        """A placed bench: the images of each host's services (its databases and poolers, the clients)
        loaded onto it from the controller's engine, once (lab/driver/images.py); each load kept for
        placement.json. Unplaced: nothing."""
        if not self.placement.placed:
            return
        wanted = {}
        for db in self.databases:
            ctx = self.placement.database(db)
            wanted.setdefault(ctx, []).append(self.manifests.field(self.manifests.load(db, self.databases_root), "service"))
            if db in self.pooled:
                wanted[ctx].append(self.pooled[db])
        wanted.setdefault(self.placement.client, []).append("client")
        for ctx in placed.placed_contexts(self):
            wanted[ctx].append("cadvisor")  # each placed host's own cAdvisor (placed.start_cadvisors)
        if self.placement.monitoring:  # Prometheus and Grafana on their own host (placed.start_monitoring)
            wanted.setdefault(self.placement.monitoring, []).extend(placed.monitoring_services(self))
        todo = {}  # context -> [(service, image)], each host's list loaded in order
        for ctx, services in wanted.items():
            if not ctx:
                continue  # the controller's engine built or holds them
            named = images.service_images(self.engine, self.env, services)
            if any(self.placement.database(db) == ctx for db in self.databases):
                named["probe"] = self.lab.probe_image()  # the readings of the databases' host (probe_for)
            todo[ctx] = [(service, image) for service, image in named.items()
                         if not any(i["context"] == ctx and i["image"] == image for i in self.images)]

        def load_onto(ctx):
            done = []
            for service, image in todo[ctx]:
                d = images.load(self.engine, ctx, image)
                self.say(f"{image} on {ctx}: {'loaded in ' + str(d['seconds']) + ' s' if d['loaded'] else 'there already'}")
                done.append({**d, "service": service})
            return done
        # The hosts load side by side (each its own engine; measured on two simulated hosts: the
        # database host's 3 images and the clients' host's 2 took 24 s one after the other); each
        # host's own images one after the other. A load's seconds are its own, the others beside it.
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, len(todo))) as pool:
            loads = {ctx: pool.submit(load_onto, ctx) for ctx in sorted(todo)}
            for ctx in sorted(todo):
                self.images.extend(loads[ctx].result())
        self.lab.write_json(os.path.join(self.dir, "placement.json"), self.placement_record())

    def placement_record(self):
        """placement.json (lab/placement.schema.json): each role's context, the keys as given, and
        each placed host's images as loaded (their ids on that host)."""
        return {**self.placement.record(), "images": self.images}

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
        image = self.engine_of(service).inspect(cid, "{{.Image}}") if cid else None
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
        # where analysis's queries of this bench go: the monitoring host's Prometheus, or the lab's (None)
        self.lab.monitoring_url = placed.prometheus_url(self)
        host = None
        try:
            host = self.probe.host_facts()
            self.lab.write_json(os.path.join(self.dir, "host.json"), host)
        except Exception as e:  # noqa: BLE001  (host facts are a figure's context, not a reason to stop)
            self.say(f"host-info failed: {e}")
        if not self.placement.placed:
            self.write_hosts(host)
        self.say(f"fresh database volumes for: {settings['DATABASES']}")
        try:
            self.refresh_databases()
        except Exception as e:  # noqa: BLE001
            self.say(f"the databases did not become ready: {e}")
            raise
        if self.placement.placed:
            self.write_hosts(host)  # a placed host's facts through its probe, whose image is there now
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
        if self.placement.placed and not self.lab.interrupted:
            self.measure_canary()
        try:
            for phase in self.plan.phases:
                if self.lab.interrupted:
                    break
                run_phase(self, phase)
        finally:
            if self.files:  # every result is in the bench folder by now (each phase fetched them)
                self.files.remove()
        try:
            self.lab.bench_finished(self)
        finally:
            if self.cadvisors:
                placed.stop_cadvisors(self)

    def write_hosts(self, host):
        """hosts.json: every host of the bench, its roles and facts (lab/driver/placed.py)."""
        try:
            self.lab.write_json(os.path.join(self.dir, "hosts.json"), placed.hosts_document(self, host))
        except Exception as e:  # noqa: BLE001  (as host.json)
            self.say(f"the hosts' facts could not be read: {e}")

    def measure_canary(self):
        """canary.json: RTT and throughput from the clients' host to each database host, just before
        the first phase (lab/driver/canary.py); a failure is said and the run goes on (the pairs not
        measured carry their reason)."""
        try:
            doc = placed.canary(self)
        except Exception as e:  # noqa: BLE001
            self.say(f"the network canary could not run: {e}")
            return
        if doc is not None:
            self.lab.write_json(os.path.join(self.dir, "canary.json"), doc)
            for p in doc["pairs"]:
                rtt = p["rtt_s"]["median"] * 1e6 if p["rtt_s"] else None
                self.say(f"canary {doc['client_host']} -> {p['database_host']}: "
                         + (f"RTT median {rtt:.0f} us" if rtt is not None else f"not measured: {p['reason']}"))
