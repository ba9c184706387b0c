"""The Docker engine as the driver uses it: `docker compose` on the lab's compose files, the
containers' facts (`docker inspect`), and the client containers (one-shots and a phase's clients).
Every call names the engine through the environment it is given (DOCKER_HOST / DOCKER_CONTEXT), or
through a Docker context (`docker --context NAME`): a placed role's host is an Engine of its own
(issue 27, lab/driver/placement.py), on the same compose files. Nothing here decides: it runs and
reports."""
import json
import os
import signal
import subprocess
import sys
import tempfile

from .probe import children

# How long a short docker call (inspect, logs, stop, start, rm, image inspect, ps) may take before
# the driver gives up on it: a placed host's engine can go away or its network stop answering
# mid-run (issue 27's faults), and a call that waits on it must not hold the run. Far above what a
# call takes here (well under a second; over SSH, a few round trips).
CALL_TIMEOUT_S = 60

# A docker call that may rightly take long (compose's up, run and rm, a one-shot client's count of a
# large collection, a copy of a dataset, an image load) has no fixed ceiling: it runs as long as the
# engines it depends on still answer. Every WATCH_INTERVAL_S seconds each is asked `docker version`;
# one that refuses or gives no answer within CALL_TIMEOUT_S ends the call (issue 27: "a timeout on
# every remote call"), so a silent host costs at most WATCH_INTERVAL_S + CALL_TIMEOUT_S. The question
# goes to the engine (dockerd), never into a container.
WATCH_INTERVAL_S = 15

# compose's flags (and the client's) that take the next word as their value: left out of a call's words
_VALUED = {"-e", "-v", "-f", "-p", "-t", "--name", "--user", "--profile", "--publish", "--env-file", "--filter",
           "--format", "--plan", "--phase", "--client", "--project-directory"}

# Where a loaded bench's folder appears in a client container: its plan.json is read there
# (`--plan /bench/plan.json`, client/src/plan-options.js) and a phase's clients write their results
# under it (clients/<phase>-client-<i>.json).
BENCH_MOUNT = "/bench"


class Engine:
    def __init__(self, root, project, standins, environ, context=""):
        self.root = root
        self.project = project
        self.standins = standins
        self.environ = dict(environ)  # .env's settings and the caller's environment (runme.sh exports them)
        self.context = context        # "" : the engine the environment names (the controller's)
        self.docker = ["docker", "--context", context] if context else ["docker"]

    def on(self, context):
        """The Engine of CONTEXT ("": the controller's), with the same compose files and project."""
        if context == self.context:
            return self
        return Engine(self.root, self.project, self.standins, self.environ, context)

    def where(self):
        return f"docker --context {self.context}" if self.context else "docker"

    def call(self, args, timeout=None, merged=False, **kw):
        """`docker ARGS` on this engine, its output captured (MERGED: stderr into stdout, in docker's
        order); never raises. A call with no answer within TIMEOUT seconds is ended and returned as exit
        code 124 with a stderr that names the engine and the call (a host gone silent reads as "docker
        cannot say", never as a hang)."""
        timeout = CALL_TIMEOUT_S if timeout is None else timeout
        cmd = [*self.docker, *args]
        pipes = {"stdout": subprocess.PIPE, "stderr": subprocess.STDOUT} if merged else {"capture_output": True}
        try:
            return subprocess.run(cmd, env=self.environ, stdin=subprocess.DEVNULL, timeout=timeout, **pipes, **kw)
        except subprocess.TimeoutExpired:
            why = f"{self.where()} {args[0]}: no answer within {timeout} s"
            return subprocess.CompletedProcess(cmd, 124, "" if kw.get("text") else b"", why if kw.get("text") else why.encode())

    def silent(self):
        """Why this engine does not answer now (it refuses, or says nothing within CALL_TIMEOUT_S), or
        "" when it does."""
        r = self.call(["version", "--format", "{{.Server.Version}}"], text=True)
        if r.returncode == 0:
            return ""
        words = (r.stderr or r.stdout or "").strip().splitlines()
        return f"the engine of {self.where()} does not answer: {words[-1] if words else f'exit {r.returncode}'}"

    def run_watched(self, cmd, env=None, watch=(), input=None, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                    text=True, what=""):
        """CMD run to its end while this engine and every Engine in WATCH still answer (see
        WATCH_INTERVAL_S). When one does not, CMD and its children (the compose plugin the docker CLI
        runs) are killed and the call returns exit code 124 with WHAT (the call in words) and that
        reason as its stderr, also written where the call's stderr went (a file, or the terminal when
        not captured). Never raises on exit codes."""
        engines = [self, *(e for e in watch if e is not self)]
        with tempfile.TemporaryFile() as given:
            if input is not None:
                # INPUT from a file: communicate() given an input cannot be called again after its
                # timeout with the rest of it (CPython stops writing it), and each watch is a timeout
                given.write(input.encode() if text else input)
                given.seek(0)
            proc = subprocess.Popen(cmd, env=env or self.environ, text=text, stdout=stdout, stderr=stderr,
                                    stdin=subprocess.DEVNULL if input is None else given)
        while True:
            try:
                out, err = proc.communicate(timeout=WATCH_INTERVAL_S)
                return subprocess.CompletedProcess(cmd, proc.returncode, out, err)
            except subprocess.TimeoutExpired:
                pass
            why = next((w for w in (e.silent() for e in engines) if w), "")
            if why and proc.poll() is None:
                _kill_tree(proc.pid)
                out, _ = proc.communicate()
                why = f"{what or ' '.join(cmd[:4])}: ended, {why}"
                said = stderr if hasattr(stderr, "write") else sys.stderr if stderr is None else None
                if said:  # a file, or the terminal the call's own stderr went to
                    said.write(why + "\n")
                    said.flush()
                return subprocess.CompletedProcess(cmd, 124, out, why if text else why.encode())

    def compose_args(self, extra=()):
        """EXTRA: compose files (relative to the root) added after the lab's, e.g. the published
        cAdvisor of a host without Prometheus (prometheus/cadvisor-published.yaml)."""
        files = ["-f", os.path.join(self.root, "compose.yaml")]
        if self.standins:
            files += ["-f", os.path.join(self.root, "compose.standins.yaml")]
        for f in extra:
            files += ["-f", os.path.join(self.root, f)]
        return [*self.docker, "compose", "--project-directory", self.root, *files,
                "--env-file", os.path.join(self.root, ".env")]

    def compose(self, args, env=None, capture=True, timeout=None, extra=(), watch=()):
        """`docker compose ARGS` with ENV (the bench's settings over the lab's environment): compose
        interpolates the services from it. Returns the CompletedProcess (never raises on exit codes).
        TIMEOUT: a fixed ceiling (raises subprocess.TimeoutExpired); without one, the call runs while
        this engine and those in WATCH answer (run_watched)."""
        cmd = self.compose_args(extra) + list(args)
        pipe = subprocess.PIPE if capture else None
        if timeout is not None:
            return subprocess.run(cmd, env=env or self.environ, text=True, stdin=subprocess.DEVNULL,
                                  stdout=pipe, stderr=pipe, timeout=timeout)
        return self.run_watched(cmd, env, watch, stdout=pipe, stderr=pipe, what=self._what(args))

    def _what(self, args):
        """A compose call in words: `docker [--context C] compose` and its subcommand and service words
        (no flag and no flag's value: those can hold paths and settings)."""
        words, skip = [], False
        for a in args:
            if skip or a.startswith("-"):
                skip = a in _VALUED and not skip
                continue
            words.append(a)
        return f"{self.where()} compose {' '.join(words[:4])}"

    def compose_to(self, args, env, stdout="capture", stderr=None, watch=()):
        """`docker compose ARGS`, its stdout captured ("capture"), left on the terminal ("inherit") or
        appended to a file (a path); its stderr on the terminal (None) or appended to a file. It runs
        while this engine and those in WATCH (a one-shot's database host) answer (run_watched)."""
        out = err = None
        try:
            if stdout not in ("capture", "inherit"):
                out = open(stdout, "a", encoding="utf-8")
            if stderr:
                err = open(stderr, "a", encoding="utf-8")
            return self.run_watched(self.compose_args() + list(args), env, watch,
                                    stdout=subprocess.PIPE if stdout == "capture" else out, stderr=err,
                                    what=self._what(args))
        finally:
            for f in (out, err):
                if f:
                    f.close()

    def container_of(self, service, env=None):
        r = self.compose(["ps", "-q", service], env=env)
        return r.stdout.strip().splitlines()[0] if r.returncode == 0 and r.stdout.strip() else ""

    def inspect(self, container, template):
        """`docker inspect -f TEMPLATE` of CONTAINER, or None when docker cannot say."""
        if not container:
            return None
        r = self.call(["inspect", "-f", template, container], text=True)
        return r.stdout.strip() if r.returncode == 0 else None

    def state(self, container):
        """{Running, StartedAt, ExitCode, Pid} of CONTAINER, or None when it is gone."""
        out = self.inspect(container, "{{json .State}}")
        try:
            return json.loads(out) if out else None
        except ValueError:
            return None

    def label(self, container, name):
        out = self.inspect(container, "{{json .Config.Labels}}")
        try:
            return (json.loads(out) or {}).get(name) or "" if out else ""
        except ValueError:
            return ""

    def running(self, containers):
        """How many of CONTAINERS run."""
        ids = [c for c in containers if c]
        if not ids:
            return 0
        r = self.call(["inspect", "-f", "{{.State.Running}}", *ids], text=True)
        return r.stdout.split().count("true")

    def logs(self, container):
        r = self.call(["logs", container], merged=True)
        return (r.stdout + (r.stderr or b"")).decode("utf-8", "replace")

    def stop(self, containers, timeout_s=30):
        ids = [c for c in containers if c]
        if ids:
            self.call(["stop", "-t", str(timeout_s), *ids], timeout=timeout_s + CALL_TIMEOUT_S)

    def remove(self, containers):
        ids = [c for c in containers if c]
        if ids:
            self.call(["rm", "-f", *ids])

    def start(self, container):
        return self.call(["start", container], text=True)

    def remove_volume(self, name):
        self.call(["volume", "rm", name])

    def published_ports(self):
        r = self.call(["ps", "--filter", f"label=com.docker.compose.project={self.project}", "--format", "{{.Ports}}"],
                      text=True)
        return r.stdout

    def image_id(self, image):
        """IMAGE's id on this engine, or None when it has no such image."""
        r = self.call(["image", "inspect", "-f", "{{.Id}}", image], text=True)
        return r.stdout.strip() or None if r.returncode == 0 else None


def _kill_tree(pid):
    """SIGKILL to PID and every process below it (the docker CLI runs compose as a child of its own,
    which outlives a killed parent)."""
    todo, tree = [pid], []
    while todo:
        p = todo.pop()
        tree.append(p)
        todo.extend(children(p))
    for p in tree:
        try:
            os.kill(p, signal.SIGKILL)
        except ProcessLookupError:
            pass


def client_args(bench_dir, mode, dataset=None, txn_outcomes=None, environ=None, volume=None):
    """The `compose run` words every client container of a loaded bench gets (mounts and environment
    variables passed by name: the URI's password never shows in a process list or a file). VOLUME:
    the clients run on another host than the controller and the bench's files are in that volume there
    (lab/driver/files.py: plan.json, the DATASET file under dataset/, the transaction outcomes), which
    is mounted where the folder is on one host."""
    environ = environ or {}
    args = []
    if dataset:
        host = dataset if os.path.isabs(dataset) else os.path.join(bench_dir, dataset)
        name = os.path.basename(host)
        if volume:
            args += ["-e", f"DATASET={BENCH_MOUNT}/dataset/{name}"]
        else:
            args += ["-v", f"{host}:/dataset/{name}:ro", "-e", f"DATASET=/dataset/{name}"]
    # how long a client keeps reconnecting to a lost database, and wait-ready waits (the client's
    # defaults when unset)
    for key in ("RECONNECT_TIMEOUT_S", "READY_TIMEOUT_S"):
        if environ.get(key):
            args += ["-e", key]
    if txn_outcomes and volume:
        args += ["-e", f"TXN_OUTCOMES={BENCH_MOUNT}/txn-outcomes.json"]
    elif txn_outcomes:
        args += ["-v", f"{txn_outcomes}:/txn-outcomes.json:ro", "-e", "TXN_OUTCOMES=/txn-outcomes.json"]
    args += ["-e", "URI", "-v", f"{volume or bench_dir}:{BENCH_MOUNT}:{mode}"]
    return args
