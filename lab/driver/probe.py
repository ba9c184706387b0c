"""The probe: every host-level reading of a database container (its cgroup, its CPU seconds, perf
stat and perf record on it, the processes that run in it, the host's facts) goes through one object.
LocalProbe reads this machine's /proc and /sys and runs this machine's perf; a host of a later
multi-host lab implements the same methods (Probe) on its side. Arguments and results are plain
data (str, float, int, bool, dict, list) or a handle that only the same probe takes back.

What it does is what lab/perf.sh and lab/phase.sh's cgroup_processes_* functions did, with the same
commands, files and JSON (phase.json `cgroup`, `cgroup_cpu_seconds`, `perf`, `cgroup_processes`).
"""
import os
import shutil
import signal
import subprocess
import sys
import threading
import time

from . import cgroup_processes

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))

# perf stat's events: instructions where the PMU has them, software events otherwise.
HARDWARE_EVENTS = ["instructions:u", "instructions:k", "cycles:u", "task-clock", "context-switches",
                   "cpu-migrations", "page-faults"]
SOFTWARE_EVENTS = ["task-clock", "context-switches", "cpu-migrations", "page-faults"]


# cgroup v1's memory.limit_in_bytes without a limit: the kernel's largest page count in bytes
# (PAGE_COUNTER_MAX x the page size: 9223372036854771712 with 4 kB pages); anything this large is no limit.
V1_NO_LIMIT = 1 << 62


class Probe:
    """The readings a host gives of one of its database containers (PID: the container's main
    process as `docker inspect -f {{.State.Pid}}` gives it; CG: a path perf's -G takes).

      perf_cgroup(pid) -> str                 the container's cgroup under perf_event ('' when none)
      cgroup_cpu_seconds(pid) -> float|None   its CPU seconds as its own cgroup counts them
      cgroup_memory_limit(pid) -> dict        its memory limit as its own cgroup holds it
                                              (phase.json memory_limit: {bytes, file, cgroup, reason})
      perf_unavailable_reason() -> str|None   why perf cannot measure this host (None: it can)
      hardware_counters() -> bool             whether perf counts instructions here
      perf_stat_events() -> [str]             the events perf stat counts here
      perf_stat_start(cg, csv_path) -> handle / perf_stat_stop(handle)   perf stat -x, into csv_path
      perf_record_start(cg, delay_s, seconds, out_path) -> handle        a delayed perf record
      perf_record_wait(handle) / perf_record_cancel(handle)
      perf_profile(out_path|None, why=None) -> dict   phase.json perf.profile {file, samples,
                                                      frequency_hz, reason}
      process_watch_start(pid) -> handle / process_watch_stop(handle) -> [sample dicts]
      process_io(pid) -> dict                 the I/O counters of each of the container's processes
                                              (cgroup_processes.io: /proc/<pid>/io read_bytes, rchar)
      process_summary(database, stand_in, samples) -> dict|None   phase.json cgroup_processes
      host_facts() -> dict                    host.json
      describe() -> dict                      phase.json probe: {kind, image, container_id}
      take_call_latencies() -> [dict]         the calls' latencies since the last take (phase.json
                                              probe.calls: {method, latency_s}; [] in-process)
    """

    def perf_cgroup(self, pid):
        raise NotImplementedError

    def cgroup_cpu_seconds(self, pid):
        raise NotImplementedError

    def cgroup_memory_limit(self, pid):
        raise NotImplementedError

    def perf_unavailable_reason(self):
        raise NotImplementedError

    def hardware_counters(self):
        raise NotImplementedError

    def perf_stat_events(self):
        raise NotImplementedError

    def perf_stat_start(self, cgroup, csv_path):
        raise NotImplementedError

    def perf_stat_stop(self, handle):
        raise NotImplementedError

    def perf_record_start(self, cgroup, delay_s, seconds, out_path):
        raise NotImplementedError

    def perf_record_wait(self, handle):
        raise NotImplementedError

    def perf_record_cancel(self, handle):
        raise NotImplementedError

    def perf_profile(self, out_path, why=None):
        raise NotImplementedError

    def process_watch_start(self, pid):
        raise NotImplementedError

    def process_watch_stop(self, handle):
        raise NotImplementedError

    def process_summary(self, database, stand_in, samples):
        raise NotImplementedError

    def process_io(self, pid):
        raise NotImplementedError

    def host_facts(self):
        raise NotImplementedError

    def describe(self):
        raise NotImplementedError

    def take_call_latencies(self):
        return []

    def close(self):
        """Ends what the probe runs for itself (a container); nothing for LocalProbe."""


def process_summary(database, stand_in, samples):
    """phase.json's cgroup_processes against the manifest's server processes
    (databases/<database>/database.json); None, said on stderr, when the manifest refuses. On the
    controller whichever probe took the samples (the manifests are the checkout's)."""
    manifests = cgroup_processes.database_manifests()
    try:
        server = manifests.server_processes(database, stand_in=stand_in)
    except manifests.ManifestError as e:  # names the manifest, the key and what is allowed
        print(f"cgroup_processes: {e}", file=sys.stderr)
        return None
    return cgroup_processes.summary(samples or [], server)


def kernel_facts(cgroup_root="/sys/fs/cgroup"):
    """The host.json fields a probe reads from the kernel it runs on (a container with --pid host
    and --uts host sees its host's): the box's answer to host_facts, laid over the controller's
    analysis host-info (whose other fields need the checkout: THP advice, disk devices)."""
    uname = os.uname()
    facts = {"hostname": uname.nodename, "kernel": uname.release, "arch": uname.machine,
             "cores": os.cpu_count(), "cpu_model": None, "memory_bytes": None, "cgroup_version": None}
    for line in (_read("/proc/cpuinfo") or "").splitlines():
        if line.lower().startswith(("model name", "hardware", "cpu model")):
            facts["cpu_model"] = line.split(":", 1)[1].strip()
            break
    for line in (_read("/proc/meminfo") or "").splitlines():
        if line.startswith("MemTotal:"):
            facts["memory_bytes"] = int(line.split()[1]) * 1024
    if os.path.exists(os.path.join(cgroup_root, "cgroup.controllers")):
        facts["cgroup_version"] = "v2"
    elif os.path.exists(os.path.join(cgroup_root, "unified", "cgroup.controllers")):
        facts["cgroup_version"] = "v1 (hybrid)"
    elif any(os.path.isdir(os.path.join(cgroup_root, d)) for d in ("cpu", "cpuacct")):
        facts["cgroup_version"] = "v1"
    return facts


def _read(path):
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return None


def children(pid, proc="/proc"):
    """The processes whose parent is PID, as {pid: comm} (each /proc/N/stat's ppid field: present
    on every kernel, unlike /proc/N/task/N/children)."""
    out = {}
    for name in os.listdir(proc):
        if not name.isdigit():
            continue
        stat = _read(os.path.join(proc, name, "stat"))
        if not stat or ")" not in stat:
            continue
        comm = stat[stat.index("(") + 1:stat.rindex(")")]
        fields = stat[stat.rindex(")") + 2:].split()
        if len(fields) > 1 and fields[1] == str(pid):
            out[int(name)] = comm
    return out


def _end_group(popen, timeout=10):
    """SIGTERM to the process group popen leads (started with start_new_session), SIGKILL after
    `timeout` s; waits for it. Nothing of the group is left running."""
    for sig, wait in ((signal.SIGTERM, timeout), (signal.SIGKILL, None)):
        try:
            os.killpg(popen.pid, sig)
        except ProcessLookupError:
            pass
        try:
            popen.wait(wait)
            break
        except subprocess.TimeoutExpired:
            continue
    try:  # the group may outlive its leader (a child perf forked): no survivor either way
        os.killpg(popen.pid, signal.SIGKILL)
    except ProcessLookupError:
        return
    deadline = time.time() + 5  # a SIGKILL takes effect a moment later: returned once it has
    while _group_alive(popen.pid) and time.time() < deadline:
        time.sleep(0.05)


def _group_alive(pgid, proc="/proc"):
    """Whether a process of group pgid still runs (a zombie, gone but not yet reaped, does not)."""
    for name in os.listdir(proc):
        if name.isdigit():
            stat = _read(os.path.join(proc, name, "stat"))
            if stat and ")" in stat:
                fields = stat[stat.rindex(")") + 2:].split()
                if len(fields) > 2 and fields[2] == str(pgid) and fields[0] != "Z":
                    return True
    return False


def _remove(*paths):
    for p in paths:
        try:
            os.remove(p)
        except FileNotFoundError:
            pass
        except OSError:  # not a file of ours (a folder in its place): left as found
            pass


class _Recording:
    """One perf record (perf_record_start): a thread that waits the delay, records, converts; its
    status (samples, reason) when it ends. cancel() ends it promptly."""

    def __init__(self, probe, cgroup, delay_s, seconds, out):
        self.probe, self.cgroup, self.delay_s, self.seconds, self.out = probe, cgroup, delay_s, seconds, out
        self.cancelled = threading.Event()
        self.lock = threading.Lock()
        self.popen = None
        self.status = None  # {"samples": int|None, "reason": str|None} once the thread ends
        self.thread = threading.Thread(target=self._run, name=f"perf record {os.path.basename(out)}",
                                       daemon=True)

    def _spawn(self, cmd, stdout, stderr):
        with self.lock:  # a cancel between the check and the start would miss the process
            if self.cancelled.is_set():
                return None
            self.popen = subprocess.Popen(cmd, stdout=stdout, stderr=stderr, start_new_session=True)
            return self.popen

    def _step(self, cmd, stdout_path, err):
        """Runs cmd (stdout to stdout_path or nowhere, stderr to err); None when cancelled, else
        (ok, the last line of its stderr)."""
        try:
            with open(stdout_path or os.devnull, "w") as so, open(err, "w") as se:
                p = self._spawn(cmd, so, se)
                if p is None:
                    return None
                code = p.wait()
        except OSError as e:  # perf missing or a file that cannot be written: said as perf's error
            return (False, str(e))
        if self.cancelled.is_set():
            return None
        text = _read(err) or ""
        return (code == 0, text.splitlines()[-1] if text.splitlines() else "")

    def _run(self):
        out, status = self.out, None
        data, tmp, err = out + ".data", out + ".tmp", out + ".err"
        try:
            if self.cancelled.wait(self.delay_s):
                return
            event = "cycles" if self.probe.hardware_counters() else "cpu-clock"
            r = self._step(["perf", "record", "-q", "-a", "-g", "-F", str(self.probe.record_hz), "-e", event,
                            "-G", self.cgroup, "-o", data, "--", "sleep", str(self.seconds)], None, err)
            if r is None:
                return
            if not r[0]:
                status = {"samples": None, "reason": f"perf record failed: {r[1]}"}
                return
            r = self._step(["perf", "script", "-F", "+pid", "-i", data], tmp, err)
            if r is None:
                return
            if not r[0]:
                status = {"samples": None, "reason": f"perf script failed: {r[1]}"}
                return
            n = _count_samples(tmp)
            if n > 0:
                os.replace(tmp, out)
                status = {"samples": n, "reason": None}
            else:
                status = {"samples": 0, "reason": "no samples: the container did not run on a CPU during the "
                                                  f"{self.seconds} s recording"}
        except Exception as e:  # noqa: BLE001  (a fault of the thread: said, not taken for a cancel)
            status = {"samples": None, "reason": f"the recording failed: {type(e).__name__}: {e}"}
        finally:
            if status is None:  # cancelled
                status = {"samples": None, "reason": "cancelled before the recording ended"}
            _remove(data, data + ".old", tmp, err)
            self.status = status

    def cancel(self):
        with self.lock:
            self.cancelled.set()
            popen = self.popen
        if popen is not None and popen.poll() is None:
            _end_group(popen)
        self.thread.join()


def _count_samples(path):
    """A sample is a header line (not indented) followed by its indented frames."""
    n = 0
    with open(path, errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            if line and not line[0].isspace() and not line.startswith("#"):
                n += 1
    return n


class _Watch:
    def __init__(self, stop, thread, samples):
        self.stop, self.thread, self.samples = stop, thread, samples


class LocalProbe(Probe):
    """This machine. proc and cgroup_root default to JSONBENCH_PROC and JSONBENCH_CGROUP_ROOT, else
    /proc and /sys/fs/cgroup (tests point them at a file layout of their own)."""

    def __init__(self, proc=None, cgroup_root=None):
        self.proc = proc or os.environ.get("JSONBENCH_PROC", "/proc")
        self.cgroup_root = cgroup_root or os.environ.get("JSONBENCH_CGROUP_ROOT", "/sys/fs/cgroup")
        hz = os.environ.get("PERF_RECORD_HZ", "1000")
        if not hz.isdigit() or int(hz) == 0:
            raise ValueError(f"PERF_RECORD_HZ={hz!r}: a positive whole number of samples per second")
        # 1000 Hz because the Firefox Profiler's perf-script importer assumes 1 ms per sample
        # (meta.interval: 1 in src/profile-logic/import/linux-perf.js): at any other rate its
        # times are off by 1000/rate.
        self.record_hz = int(hz)
        self._perf = {}  # the perf answers, asked once per probe (each costs perf starts)
        self._records = {}  # out path -> the recording's status, until perf_profile takes it

    # --- the container's cgroup ---

    def _unified(self):
        """cgroup v2 at the root: only a cgroup2 file system has cgroup.controllers there (a v1 or
        hybrid host mounts a tmpfs holding the v1 hierarchies)."""
        return os.path.isfile(os.path.join(self.cgroup_root, "cgroup.controllers"))

    def _cgroup_lines(self, pid):
        text = _read(os.path.join(self.proc, str(pid), "cgroup"))
        return None if text is None else text.splitlines()

    def perf_cgroup(self, pid):
        """The container's cgroup relative to the perf_event hierarchy (v1: docker/<id>; v2 with
        systemd's driver: system.slice/docker-<id>.scope); '' when the host offers none."""
        lines = self._cgroup_lines(pid)
        if lines is None:
            return ""
        if self._unified():
            line = next((l[3:] for l in lines if l.startswith("0::")), "")
        else:
            line = next((l.split(":perf_event:", 1)[1] for l in lines if ":perf_event:" in l), "")
        return line[1:] if line.startswith("/") else line

    def cgroup_cpu_seconds(self, pid):
        """The container's CPU seconds as its own cgroup counts them (read directly, not via
        cAdvisor): the reference the exported cAdvisor figures are checked against. None when
        unreadable."""
        lines = self._cgroup_lines(pid)
        if lines is None:
            return None
        if self._unified():
            rel = next((l[3:] for l in lines if l.startswith("0::")), None)
            if rel is None:
                return None
            text = _read(os.path.join(self.cgroup_root, rel.lstrip("/"), "cpu.stat")) or ""
            for line in text.splitlines():
                f = line.split()
                if len(f) >= 2 and f[0] == "usage_usec":
                    return round(int(f[1]) / 1e6, 6)
            return None
        rel = None
        for l in lines:
            parts = l.split(":", 2)
            if len(parts) == 3 and parts[1] in ("cpuacct", "cpu,cpuacct", "cpuacct,cpu"):
                rel = parts[2]
                break
        if rel is None:
            return None
        for mount in ("cpuacct", "cpu,cpuacct"):
            text = _read(os.path.join(self.cgroup_root, mount, rel.lstrip("/"), "cpuacct.usage"))
            if text is not None and text.strip():
                return round(int(text.split()[0]) / 1e9, 6)
        return None

    def cgroup_memory_limit(self, pid):
        """The container's memory limit as its own cgroup holds it, read directly (the independent
        check of DB_MEMORY: analysis/figures/memory.py): {bytes, file, cgroup, reason}. v1: the memory
        hierarchy's memory.limit_in_bytes; v2: memory.max ("max": no limit). No limit, or a file that
        cannot be read: bytes null with the reason."""
        lines = self._cgroup_lines(pid)
        if self._unified():
            rel = next((l[3:] for l in (lines or []) if l.startswith("0::")), None)
            name, version, path = "memory.max", "v2", None if rel is None else os.path.join(
                self.cgroup_root, rel.lstrip("/"), "memory.max")
        else:
            rel = None
            for l in lines or []:
                parts = l.split(":", 2)
                if len(parts) == 3 and "memory" in parts[1].split(","):
                    rel = parts[2]
                    break
            name, version, path = "memory.limit_in_bytes", "v1", None if rel is None else os.path.join(
                self.cgroup_root, "memory", rel.lstrip("/"), "memory.limit_in_bytes")
        out = {"bytes": None, "file": name, "cgroup": version, "reason": None}
        if lines is None:
            out["reason"] = f"no process {pid} (its /proc/{pid}/cgroup is not readable)"
            return out
        text = None if path is None else _read(path)
        if text is None:
            out["reason"] = (f"process {pid} is in no memory cgroup" if path is None
                             else f"{name} of its cgroup is not readable")
            return out
        value = text.strip()
        if value == "max" or (value.isdigit() and int(value) >= V1_NO_LIMIT):
            out["reason"] = f"no limit ({name} is {value})"
        elif value.isdigit():
            out["bytes"] = int(value)
        else:
            out["reason"] = f"{name} holds {value!r}, not a number of bytes"
        return out

    # --- perf: what this host offers ---

    def perf_unavailable_reason(self):
        """Why perf cannot measure this host, or None when it can."""
        if "reason" not in self._perf:
            self._perf["reason"] = self._perf_reason()
        return self._perf["reason"]

    def _perf_reason(self):
        if not shutil.which("perf"):
            return "perf is not installed"
        if os.geteuid() != 0:
            paranoid = (_read(os.path.join(self.proc, "sys/kernel/perf_event_paranoid")) or "2").strip()
            try:
                low = int(paranoid) <= 0
            except ValueError:
                low = False
            if not low:
                return "perf needs root or kernel.perf_event_paranoid<=0"
        r = subprocess.run(["perf", "stat", "-e", "task-clock", "-x,", "true"], stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
        return None if r.returncode == 0 else "perf stat does not run on this host"

    def hardware_counters(self):
        """Whether perf counts instructions here (VMs often have no PMU): a count, not
        `<not supported>`, on perf stat's stderr."""
        if "hw" not in self._perf:
            try:
                r = subprocess.run(["perf", "stat", "-x,", "-e", "instructions:u", "true"],
                                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
                self._perf["hw"] = any(l[:1].isdigit() for l in r.stderr.splitlines())
            except OSError:
                self._perf["hw"] = False
        return self._perf["hw"]

    def perf_stat_events(self):
        return list(HARDWARE_EVENTS if self.hardware_counters() else SOFTWARE_EVENTS)

    # --- perf stat ---

    def perf_stat_start(self, cgroup, csv_path):
        """perf stat on the cgroup until perf_stat_stop. One -G cgroup applies to every event (perf
        >= 4.x; tests/unit/test_probe_perf.py): a per-event list no longer lines up on hybrid CPUs,
        where each hardware event expands to cpu_core/ and cpu_atom/ events, and the events left
        without a cgroup then count the whole system. Its own session, so that nothing of it can
        outlive perf_stat_stop."""
        cmd = ["perf", "stat", "-a", "-x,", "-o", csv_path, "-e", ",".join(self.perf_stat_events()),
               "-G", cgroup, "--", "sleep", "2147483647"]
        return subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                start_new_session=True)

    def perf_stat_stop(self, handle):
        """perf ends cleanly (and writes its CSV) when its workload ends: the `sleep` it started is
        ended, then perf waited for. Its sleep appears once perf has set its counters up (before,
        the child is still perf): up to 2 s, as lab/perf.sh waited. The group is ended in any case."""
        if handle is None:
            return
        try:
            child = None
            for _ in range(10):
                if handle.poll() is not None:
                    break
                child = next((pid for pid, comm in children(handle.pid, self.proc).items()
                              if comm == "sleep"), None)
                if child:
                    break
                time.sleep(0.2)
            if child:
                try:
                    os.kill(child, signal.SIGTERM)
                except ProcessLookupError:
                    pass
            try:
                handle.wait(30)
            except subprocess.TimeoutExpired:
                pass
        finally:
            _end_group(handle)

    # --- perf record ---

    def perf_record_start(self, cgroup, delay_s, seconds, out_path):
        """perf record of the cgroup for `seconds`, `delay_s` from now, converted by perf script to
        the text format the Firefox Profiler imports (out_path). A recording without samples leaves
        no out_path (the profiler cannot open an empty file); perf_profile says why."""
        out = str(out_path)
        _remove(out, out + ".status")
        self._records.pop(out, None)
        rec = _Recording(self, cgroup, delay_s, seconds, out)
        rec.thread.start()
        return rec

    def perf_record_wait(self, handle):
        if handle is None:
            return
        handle.thread.join()
        self._records[handle.out] = handle.status

    def perf_record_cancel(self, handle):
        if handle is None:
            return
        handle.cancel()
        self._records[handle.out] = handle.status

    def perf_profile(self, out_path, why=None):
        """phase.json's perf.profile: {file, samples, frequency_hz, reason}; file is null when no
        profile was written, and reason then says why. Takes the recording's status (once).
        out_path None: no recording was started, `why` says why."""
        samples, file, hz = None, None, None
        if out_path:
            out = str(out_path)
            status = self._records.pop(out, None)
            if status is not None:
                samples = status["samples"]
                why = status["reason"] if status["reason"] is not None else why
            else:
                why = why or "the recording left no status (not started or killed)"
            if os.path.isfile(out) and os.path.getsize(out) > 0:
                file = os.path.basename(out)
            hz = self.record_hz
        return {"file": file, "samples": samples, "frequency_hz": hz, "reason": why or None}

    # --- what runs in the container ---

    def process_watch_start(self, pid):
        """The container cgroup's processes, every second, each period polled every 50 ms
        (lab/driver/cgroup_processes.py watch), in a thread of the driver: it ends with it."""
        stop, samples = threading.Event(), []
        thread = threading.Thread(
            target=cgroup_processes.watch, name=f"cgroup processes of {pid}", daemon=True,
            args=(pid, 1.0, self.proc, self.cgroup_root),
            kwargs={"emit": samples.append, "running": lambda: not stop.is_set(), "nap": stop.wait})
        thread.start()
        return _Watch(stop, thread, samples)

    def process_watch_stop(self, handle):
        """The samples taken (a period under way is dropped); [] without a watch."""
        if handle is None:
            return []
        handle.stop.set()
        handle.thread.join()
        return list(handle.samples)

    def process_summary(self, database, stand_in, samples):
        return process_summary(database, stand_in, samples)

    def process_io(self, pid):
        """The container's processes' /proc/<pid>/io at this moment (a window mark): read by the
        probe, on the container's own host, because this host's cgroup accounts no block I/O to
        containers (cgroup v1 blkio empty)."""
        return cgroup_processes.io(pid, self.proc, self.cgroup_root)

    # --- the host ---

    def host_facts(self):
        """host.json: analysis's host-info (analysis/collect/hostinfo.py), in-process (the driver's
        `run` runs in the lab's venv)."""
        if REPO not in sys.path:
            sys.path.insert(0, REPO)
        from analysis.collect import hostinfo
        return hostinfo.gather()

    def describe(self):
        return {"kind": "local", "image": None, "container_id": None}
