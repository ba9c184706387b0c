"""The context every part of a run shares: where the lab is, the engine, the probe, whether the run
was interrupted or a phase failed, and how the run speaks. One object, passed down; no globals.

Interface (the experiment level, lab/driver/experiments.py and check.py, calls these):
  lab.root                the repository (LAB_ROOT)
  lab.standins            True when the stand-in images run (USE_STANDINS=1)
  lab.interrupted         set by a signal's handler; every loop stops at its next turn
  lab.run_failed          set when a phase's status is not `ok`
  lab.say(msg, bench=None)    one line `[HH:MM:SS <bench>] msg` on stdout, flushed
  lab.run_bench(bench_dir)    one bench folder whose plan.json is written: fresh volumes, init,
                              its phases, then analysis's bench_finished (lab/driver/bench.py)
  lab.remove_databases()      every database container and volume of the project (the monitoring stays)
  lab.remove_database_containers()  the same, the volumes kept (the end of a run)
  lab.prometheus_url()        where the lab's Prometheus answers from the host
  lab.on_signal()             a signal's handler: marks the run interrupted, stops the phase's clients
  lab.close()                 ends the probe's own container, if it runs one (every exit of `run`)
  lab.write_monitoring_targets()  the single host's cAdvisor as Prometheus's target (before the benches)
  lab.scrape_clients(names)   a phase's client containers as Prometheus's targets
  lab.hosts() / lab.hosts_facts(host_json)   the placement {context: roles}; hosts.json's document
"""
import importlib.util
import json
import os
import sys
import tempfile
import threading
import time

from .engine import Engine


def _load_script(root, name):
    """A standard-library script of lab/ (image-os.py, service-settings.py) as a module."""
    path = os.path.join(root, "lab", name)
    spec = importlib.util.spec_from_file_location(name.replace("-", "_").removesuffix(".py"), path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def host_address(bind_address):
    """The host address where the lab's published ports answer: BIND_ADDRESS, except that a wildcard
    (0.0.0.0, ::) or none means loopback. Every host-side URL (export, check, Grafana) is built here."""
    a = bind_address or ""
    if a in ("", "0.0.0.0"):
        return "127.0.0.1"
    if a in ("::", "[::]"):
        return "[::1]"
    if a.startswith("["):
        return a
    if ":" in a:
        return f"[{a}]"
    return a


def probe_image(root, environ):
    """The probe image's tag: PROBE_IMAGE (runme.sh builds it for PROBE=container), else built here by
    lab/probe/build.sh (by hash: at once when present), for a placed database's host."""
    if environ.get("PROBE_IMAGE"):
        return environ["PROBE_IMAGE"]
    import subprocess
    r = subprocess.run([os.path.join(root, "lab", "probe", "build.sh")], env=environ, capture_output=True, text=True)
    if r.returncode != 0 or not r.stdout.strip():
        raise RuntimeError(f"lab/probe/build.sh failed: {r.stderr.strip()[-500:]}")
    return r.stdout.strip().splitlines()[-1]


def container_probe(environ, engine, image):
    """One probe container on ENGINE (its context), labelled so that `compose down --remove-orphans`
    on that engine removes it."""
    from .probe_box import ContainerProbe, compose_labels
    args = engine.compose_args()
    files = [args[i + 1] for i, w in enumerate(args) if w == "-f"]
    return ContainerProbe(image, engine.project, docker=engine.docker, environ=environ,
                          compose_labels=compose_labels(engine.root, files, docker=engine.docker, environ=environ))


def make_probe(environ, engine):
    """The probe PROBE names (lab/driver/probe_box.py probe_setting): LocalProbe in the driver's
    process, or one probe container on the engine the environment names (its image PROBE_IMAGE,
    built by runme.sh with lab/probe/build.sh). The caller closes it (Lab.close)."""
    from .probe import LocalProbe
    from .probe_box import probe_setting
    if probe_setting(environ) == "local":
        return LocalProbe()
    image = environ.get("PROBE_IMAGE")
    if not image:
        raise ValueError("PROBE=container needs PROBE_IMAGE, the probe image's tag (runme.sh builds it "
                         "with lab/probe/build.sh and exports it)")
    return container_probe(environ, engine, image)


class Lab:
    def __init__(self, root, engine, probe, environ):
        self.root = root
        self.engine = engine
        self.probe = probe
        self.environ = environ
        self.standins = engine.standins
        self.interrupted = False
        self.run_failed = False
        self.phase = None           # the phase under way (lab/driver/phase.py Phase), for a signal
        self.phase_clients = []     # its client containers, stopped by a signal's handler
        self.phase_clients_engine = engine  # the engine they run on (a placed bench's clients' host)
        self.engines = {engine.context: engine}  # every engine a run used, by context (cleanup)
        self.probes = {engine.context: probe}    # the probe on each engine (a placed host: a probe container)
        self._stop = threading.Event()  # set by a signal: every nap ends at once
        self.context = None         # the single host's Docker context, the `host` label of its series
        self._prometheus = None     # the Prometheus container the targets are copied into
        self.monitoring_url = None  # the bench's Prometheus on MONITORING_HOST (Bench.run sets it); None: the lab's

    @classmethod
    def from_environment(cls, environ=None):
        """The lab runme.sh prepared: LAB_ROOT, PROJECT and USE_STANDINS in the environment, .env's
        settings exported (host/ provisions the engine, the images and the monitoring first)."""
        environ = dict(os.environ if environ is None else environ)
        root = environ.get("LAB_ROOT") or os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        engine = Engine(root, environ["PROJECT"], environ.get("USE_STANDINS") == "1", environ)
        return cls(root, engine, make_probe(environ, engine), environ)

    # -- speaking, waiting -------------------------------------------------------------------------
    def say(self, msg, bench=None):
        sys.stdout.write(f"[{time.strftime('%H:%M:%S')} {bench or 'lab'}] {msg}\n")
        sys.stdout.flush()

    def nap(self, seconds):
        """A sleep a signal ends at once."""
        self._stop.wait(seconds)

    def on_signal(self):
        if self.interrupted:
            return
        self.interrupted = True
        self._stop.set()
        self.say("interrupted: stopping the clients, keeping what was gathered")
        # SIGTERM: each client stops sending, awaits its in-flight operation and writes its result.
        self.phase_clients_engine.stop(self.phase_clients)

    def close(self):
        for probe in self.probes.values():
            if probe is not None:
                probe.close()

    def probe_image(self):
        if not getattr(self, "_probe_image", None):
            self._probe_image = probe_image(self.root, self.environ)
        return self._probe_image

    def probe_on(self, context):
        """The probe that reads the host of CONTEXT: the run's own (PROBE) on the controller's engine;
        on a placed host a probe container started there through its context, whatever PROBE says
        (the driver's process cannot read another host's cgroups), once for the run. Its image must be
        on that host (Bench.load_images)."""
        if context not in self.probes:
            self.probes[context] = container_probe(self.environ, self.engine_on(context), self.probe_image())
        return self.probes[context]

    def engine_on(self, context):
        """The Engine of CONTEXT ("": the controller's), one per context for the whole run."""
        if context not in self.engines:
            self.engines[context] = self.engine.on(context)
        return self.engines[context]

    # -- what Prometheus scrapes (lab/driver/monitoring_targets.py) ---------------------------------
    def write_monitoring_targets(self):
        """The single host's cAdvisor target, labelled with the current context (a run without
        placement: one host, every role)."""
        from . import monitoring_targets
        self.context = monitoring_targets.write_single_host(self.engine)

    def hosts(self):
        """The run's placement {context: roles}: without placement keys one host, the current
        context, with every role."""
        from . import monitoring_targets
        return monitoring_targets.single_host(self.context or monitoring_targets.current_context(self.environ))

    def hosts_facts(self, local_facts):
        """hosts.json (lab/driver/host_facts.py): the single host's facts are LOCAL_FACTS, host.json's."""
        from . import host_facts
        hosts = self.hosts()
        (context,) = hosts
        return host_facts.document(hosts, context, local_facts, environ=self.environ)

    def scrape_clients(self, names):
        """The client containers NAMES (on this host's compose network) as Prometheus's client targets."""
        from . import monitoring_targets
        if not self._prometheus:
            self._prometheus = self.engine.container_of("prometheus")
        context = self.context or monitoring_targets.current_context(self.environ)
        monitoring_targets.write_client_targets({context: names}, context, self._prometheus, environ=self.environ)

    def prometheus_url(self):
        """The bench's Prometheus on its monitoring host (MONITORING_HOST), else the lab's own here."""
        if self.monitoring_url:
            return self.monitoring_url
        return f"http://{host_address(self.environ.get('BIND_ADDRESS'))}:{self.environ.get('PROMETHEUS_PORT') or 9090}"

    @staticmethod
    def write_json(path, value):
        """Atomically: a reader never sees half a file."""
        fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), prefix=".", suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(value, f, indent=2)
            f.write("\n")
        os.replace(tmp, path)

    # -- lab/ scripts used in-process ----------------------------------------------------------------
    def image_os(self, image):
        try:
            return _load_script(self.root, "image-os.py").read(image)
        except Exception:  # noqa: BLE001  (the reason is given by the caller's fallback)
            return None

    def service_settings(self, config, service):
        return _load_script(self.root, "service-settings.py").settings(config, service)

    # -- analysis's moments (in-process: `run` runs in the lab's venv) --------------------------------
    def _analysis(self):
        if self.root not in sys.path:
            sys.path.insert(0, self.root)

    def phase_finished(self, bench, database, phase_id):
        """The phase's status from its facts, then its window's metrics exported; returns the verdict."""
        self._analysis()
        from analysis import entry
        # a bench's own monitoring host (MONITORING_HOST): an export it cannot answer is recorded with it
        monitoring_host = bench.placement.monitoring or None
        verdict, _, said = entry.phase_finished(bench.dir, database, phase_id, self.prometheus_url(), self.engine.project,
                                                monitoring_host=monitoring_host)
        for line in said:
            self.say(line, bench.name)
        return verdict

    def bench_finished(self, bench):
        self._analysis()
        from analysis import entry
        lines, said = entry.bench_finished(bench.dir, os.path.join(self.root, ".env"))
        for line in said:
            bench.say(line)
        if lines:
            print(lines, flush=True)

    def txn_outcomes(self, bench_dir, phase_id, clients, out):
        """analysis txn-outcomes into OUT; returns why not, or None."""
        self._analysis()
        from analysis.figures import transactions
        try:
            reason = transactions.write_outcomes(bench_dir, phase_id, clients, out)
        except Exception as e:  # noqa: BLE001
            reason = f"{type(e).__name__}: {e}"
        return f"analysis txn-outcomes: {phase_id}: {reason}" if reason else None

    def nothing_lost(self, count_output, out):
        """A failed nothing-lost check in count's output: (problems, one line), or None when it is not one."""
        self._analysis()
        from analysis.bench import phase_status
        try:
            problems = phase_status.nothing_lost_problems(count_output)
        except Exception as e:  # noqa: BLE001
            with open(out, "a", encoding="utf-8") as f:
                f.write(f"analysis nothing-lost: {type(e).__name__}: {e}\n")
            return None
        return None if problems is None else (problems, phase_status.problems_text(problems))

    # -- benches ------------------------------------------------------------------------------------
    def run_bench(self, bench_dir, plan=None):
        from .bench import Bench
        Bench(self, bench_dir, plan).run()

    def remove_databases(self):
        from .bench import remove_databases
        remove_databases(self)

    def remove_database_containers(self):
        from .bench import remove_databases
        remove_databases(self, volumes=False)
