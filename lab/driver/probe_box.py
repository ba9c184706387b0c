"""ContainerProbe: the Probe (probe.py) whose readings are taken by one long-lived container on the
Docker engine the driver names (issue 27: a host is an engine, reached through its context, SSH or
local alike). The driver speaks to it over the attached stdin/stdout of `docker run -i` in JSON lines
(probe_server.py): no published port, so nothing more is opened on the host.

The box: the lab's probe image (lab/probe/build.sh), `--pid host` (its /proc is the host's: the
measured containers' pids and cgroups), `--uts host` (the host's name in host facts), the host's
/sys/fs/cgroup read-only, and CAP_SYS_ADMIN, the capability perf needs where
kernel.perf_event_paranoid is 2 (`--privileged` fails in CI; Docker 20.10 knows no CAP_PERFMON:
../shared/OFFLINE-CI.md). It is its own container, in no measured service's cgroup; its container
id and its pid on the host are known, so its own CPU is read like a database's. It is labelled
with the compose project (service `probe`), so `./runme.sh down` (compose down --remove-orphans)
removes it with the lab's containers.

Files (perf stat's CSV, perf record's profile) are written in the box under /probe-files and copied
to the controller's path with `docker cp` once finished, then discarded in the box: a profile runs
to tens of MB, which would hold the channel (and the next mark's reading) for as long as it takes;
`docker cp` goes through the same context as everything else.

Each call's latency (request written -> answer read) is kept until take_call_latencies()."""
import json
import os
import select
import subprocess
import tempfile
import threading
import time

from .probe import Probe, process_summary

PROBES = ("local", "container")
BOX_FILES = "/probe-files"
# How long an answer may take: the start of the box (an engine pulls nothing: the image is there),
# a reading; a perf record's wait is as long as the recording plus its conversion.
START_TIMEOUT_S = 60
CALL_TIMEOUT_S = 60
WAIT_TIMEOUT_S = 3600


class ProbeError(RuntimeError):
    """The probe's own message (an error it answered), or why the box cannot answer."""


def probe_setting(environ):
    """PROBE from the environment (.env or the caller's): local (default) or container; a clear
    error naming the key and the allowed values otherwise."""
    value = (environ.get("PROBE") or "local").strip()
    if value not in PROBES:
        raise ValueError(f"PROBE={value!r}: allowed values are {', '.join(PROBES)} "
                         "(where the driver's host readings are taken: in-process, or a probe container)")
    return value


class _Handle:
    def __init__(self, remote, local=None, box=None):
        self.remote, self.local, self.box = remote, local, box


def compose_labels(root, compose_files, docker=("docker",), environ=None):
    """The labels that make compose (v2.29) take a container it did not create for an orphan of the
    project, so that `compose down --remove-orphans` (./runme.sh down, a failed run) removes the box:
    the project and service labels alone do not (tried: compose ls does not even list it); with these
    it does (tests/unit/test_probe_container.py)."""
    r = subprocess.run([*docker, "compose", "version", "--short"], env=environ, capture_output=True, text=True)
    return {"com.docker.compose.version": r.stdout.strip() or "unknown",
            "com.docker.compose.container-number": "1", "com.docker.compose.config-hash": "probe",
            "com.docker.compose.project.working_dir": root,
            "com.docker.compose.project.config_files": ",".join(compose_files)}


class ContainerProbe(Probe):
    """One box on the engine DOCKER (the `docker` words: ["docker"] or ["docker", "--context", X]).
    Started on construction; close() ends it (also when it fails to start)."""

    def __init__(self, image, project, docker=("docker",), environ=None, compose_labels=None):
        self.image, self.project = image, project
        self.compose_labels = dict(compose_labels or {})
        self.docker = list(docker)
        self.environ = dict(os.environ if environ is None else environ)
        self.name = f"{project}-probe"
        self.lock = threading.Lock()
        self.latencies = []
        self.records = {}   # the controller's out path -> the box's, for perf_profile
        self.seq = 0
        self.broken = None  # why the channel cannot be used any more
        self.popen = None
        self.container_id = None
        self._err = tempfile.TemporaryFile()
        self._buf = b""
        try:
            self._start()
        except BaseException:
            self.close()
            raise

    # -- the box ---------------------------------------------------------------------------------
    def _docker(self, *args, **kw):
        return subprocess.run(self.docker + list(args), env=self.environ, capture_output=True, text=True, **kw)

    def _start(self):
        # a box left by a driver that was killed (the name is the project's): ours to replace
        self._docker("rm", "-f", self.name)
        labels = {"com.docker.compose.project": self.project, "com.docker.compose.service": "probe",
                  "com.docker.compose.oneoff": "False", "jsonbench.role": "probe", **self.compose_labels}
        cmd = self.docker + [
            "run", "-i", "--rm", "--name", self.name, *[w for k, v in labels.items() for w in ("--label", f"{k}={v}")],
            "--pid", "host", "--uts", "host", "--cap-add", "SYS_ADMIN", "--network", "none",
            "-v", "/sys/fs/cgroup:/sys/fs/cgroup:ro", self.image]
        # its own session: a Ctrl-C at the terminal reaches the driver, which ends the box itself
        # (a signal forwarded to the box would end it before the phase's last readings)
        self.popen = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._err,
                                      env=self.environ, start_new_session=True)
        hello = self._read_line(START_TIMEOUT_S, "start")
        if "hello" not in hello:
            raise ProbeError(f"the probe box said {hello!r} instead of hello")
        self.pid = hello["hello"]["pid"]
        r = self._docker("inspect", "-f", "{{.Id}}", self.name)
        self.container_id = r.stdout.strip() or None

    def _stderr(self):
        self._err.seek(0)
        text = self._err.read().decode("utf-8", "replace").strip()
        return text.splitlines()[-1] if text else "no message"

    def _read_line(self, timeout, method):
        deadline = time.monotonic() + timeout
        fd = self.popen.stdout.fileno()
        while b"\n" not in self._buf:
            left = deadline - time.monotonic()
            if left <= 0:
                self.broken = f"the probe box did not answer {method} within {timeout} s"
                raise ProbeError(self.broken)
            ready, _, _ = select.select([fd], [], [], left)
            if ready:
                chunk = os.read(fd, 65536)
                if not chunk:
                    self.popen.wait(10)
                    self.broken = (f"the probe box ended (exit {self.popen.returncode}) during {method}: "
                                   f"{self._stderr()}")
                    raise ProbeError(self.broken)
                self._buf += chunk
        line, _, self._buf = self._buf.partition(b"\n")
        return json.loads(line)

    def call(self, method, *args, timeout=CALL_TIMEOUT_S):
        """One request, one answer; its latency kept. Raises ProbeError with the probe's message."""
        with self.lock:
            if self.broken:
                raise ProbeError(self.broken)
            sent = time.time()
            t0 = time.monotonic()
            try:
                self.popen.stdin.write((json.dumps({"method": method, "args": list(args)}) + "\n").encode())
                self.popen.stdin.flush()
            except OSError as e:
                self.broken = f"the probe box cannot be written to ({e}): {self._stderr()}"
                raise ProbeError(self.broken) from e
            answer = self._read_line(timeout, method)
            self.latencies.append({"method": method, "sent": round(sent, 6),
                                   "latency_s": round(time.monotonic() - t0, 6)})
        if "error" in answer:
            raise ProbeError(f"probe {method}: {answer['error']}")
        return answer.get("result")

    def close(self):
        """stdin closed: the box's python ends its perf and watches and exits, --rm removes it; a box
        that does not exit within 10 s is removed by name. Returns once the engine lists it no more.
        Safe to call twice."""
        p, self.popen = self.popen, None
        if p is not None:
            try:
                p.stdin.close()
            except OSError:
                pass
            try:
                p.wait(10)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        self._docker("rm", "-f", self.name)
        # an exited box's --rm removal may still be under way (the engine lists it a moment longer):
        # gone when close returns, so that a `down` or a test after it finds nothing
        deadline = time.monotonic() + 10
        while self._docker("inspect", "-f", "{{.Id}}", self.name).returncode == 0 and time.monotonic() < deadline:
            time.sleep(0.1)
        self.broken = self.broken or "the probe box was closed"

    # -- files -----------------------------------------------------------------------------------
    def _box_path(self, local):
        self.seq += 1
        return f"{BOX_FILES}/{self.seq}/{os.path.basename(str(local))}"

    def _copy_out(self, box, local):
        """The finished file from the box to the controller, then discarded in the box; False when
        the box has no such file (perf wrote none)."""
        r = self._docker("cp", f"{self.name}:{box}", str(local))
        self.call("discard", box)
        return r.returncode == 0

    # -- Probe ------------------------------------------------------------------------------------
    def perf_cgroup(self, pid):
        return self.call("perf_cgroup", pid)

    def cgroup_cpu_seconds(self, pid):
        return self.call("cgroup_cpu_seconds", pid)

    def cgroup_memory_limit(self, pid):
        return self.call("cgroup_memory_limit", pid)

    def perf_unavailable_reason(self):
        return self.call("perf_unavailable_reason")

    def hardware_counters(self):
        return self.call("hardware_counters")

    def perf_stat_events(self):
        return self.call("perf_stat_events")

    def perf_stat_start(self, cgroup, csv_path):
        box = self._box_path(csv_path)
        return _Handle(self.call("perf_stat_start", cgroup, box), csv_path, box)

    def perf_stat_stop(self, handle):
        if handle is None:
            return
        self.call("perf_stat_stop", handle.remote)
        self._copy_out(handle.box, handle.local)

    def perf_record_start(self, cgroup, delay_s, seconds, out_path):
        box = self._box_path(out_path)
        self.records[str(out_path)] = box
        return _Handle(self.call("perf_record_start", cgroup, delay_s, seconds, box), out_path, box)

    def perf_record_wait(self, handle):
        if handle is not None:
            self.call("perf_record_wait", handle.remote, timeout=WAIT_TIMEOUT_S)

    def perf_record_cancel(self, handle):
        if handle is not None:
            self.call("perf_record_cancel", handle.remote)

    def perf_profile(self, out_path, why=None):
        if not out_path:
            return self.call("perf_profile", None, why)
        box = self.records.pop(str(out_path), None)
        if box is None:
            return self.call("perf_profile", None, why or "the recording left no status (not started or killed)")
        profile = self.call("perf_profile", box, why)
        if profile.get("file"):
            if self._copy_out(box, out_path):
                profile["file"] = os.path.basename(str(out_path))
            else:
                profile["file"], profile["reason"] = None, "the profile could not be copied out of the probe box"
        else:
            self.call("discard", box)
        return profile

    def process_watch_start(self, pid):
        return _Handle(self.call("process_watch_start", pid))

    def process_watch_stop(self, handle):
        return [] if handle is None else self.call("process_watch_stop", handle.remote)

    def process_summary(self, database, stand_in, samples):
        return process_summary(database, stand_in, samples)

    def process_io(self, pid):
        return self.call("process_io", pid)

    def host_facts(self):
        """The controller's analysis host-info with the box's kernel facts laid over it (kernel,
        cores, memory, cgroup version, host name: the measured host's)."""
        from .probe import LocalProbe
        return {**LocalProbe().host_facts(), **self.call("host_facts")}

    def describe(self):
        out = {"kind": "container", "image": self.image, "container_id": self.container_id}
        # a placed host's probe (lab/driver/lab.py probe_on) names its context; the controller's does not
        context = self.docker[2] if self.docker[1:2] == ["--context"] else None
        return {**out, "context": context} if context else out

    def take_call_latencies(self):
        with self.lock:
            out, self.latencies = self.latencies, []
        return out
