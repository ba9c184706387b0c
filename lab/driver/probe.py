"""Every host-level reading of a database container goes through a probe: its cgroup CPU at the
window's marks, perf stat and perf record on its cgroup, the watch of what runs in it, and the host's
facts. `LocalProbe` reads this machine's /proc and /sys; a host of its own (issue 27) implements the
same methods, whose arguments and results are plain data (a pid, paths, numbers, dicts).
perf runs on the host and filters by the container's cgroup, so a database image needs no perf."""
import os
import shutil
import signal
import subprocess
import threading
import time

from . import cgroup_processes

# 1000 Hz because the Firefox Profiler's perf-script importer assumes 1 ms per sample (meta.interval:
# 1 in src/profile-logic/import/linux-perf.js): at any other rate its times are off by 1000/rate.
PERF_RECORD_HZ = int(os.environ.get("PERF_RECORD_HZ") or 1000)
HARDWARE_EVENTS = "instructions:u,instructions:k,cycles:u,task-clock,context-switches,cpu-migrations,page-faults"
SOFTWARE_EVENTS = "task-clock,context-switches,cpu-migrations,page-faults"


class Probe:
    """The methods a host's probe offers (LocalProbe: this machine):
    perf_cgroup(pid) -> str; cgroup_cpu_seconds(pid) -> float | None;
    perf_unavailable_reason() -> str | None; hardware_counters() -> bool; perf_stat_events() -> [str];
    perf_stat_start(cgroup, csv_path) -> handle; perf_stat_stop(handle);
    perf_record_start(cgroup, delay_s, seconds, out_path) -> handle; perf_record_wait(handle);
    perf_record_cancel(handle); perf_profile(out_path | None, why=None, handle=None) -> dict;
    process_watch_start(pid) -> handle; process_watch_stop(handle) -> [sample];
    process_summary(database, stand_in, samples) -> dict; host_facts() -> dict."""


class LocalProbe(Probe):
    def __init__(self, root=None, proc="/proc", cgroup_root="/sys/fs/cgroup"):
        self.root = root or os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        self.proc = proc
        self.cgroup_root = cgroup_root
        self._perf = {}  # perf's answers, asked once per probe (each costs a perf start)

    # -- the container's cgroup -----------------------------------------------------------------------
    def _cgroup2(self):
        # the unified hierarchy mounted at the root (cgroup v2); a hybrid host mounts it below
        return os.path.isfile(os.path.join(self.cgroup_root, "cgroup.controllers"))

    def _cgroup_lines(self, pid):
        try:
            with open(os.path.join(self.proc, str(pid), "cgroup"), encoding="utf-8") as f:
                return [line.rstrip("\n").split(":", 2) for line in f if line.strip()]
        except (OSError, TypeError):
            return None

    def perf_cgroup(self, pid):
        """The container's cgroup relative to the perf_event hierarchy (cgroup v1: docker/<id>; v2
        systemd driver: system.slice/docker-<id>.scope); '' when the host offers none."""
        lines = self._cgroup_lines(pid)
        if not lines:
            return ""
        v2 = self._cgroup2()
        for hid, controllers, path in lines:
            if (v2 and hid == "0" and controllers == "") or (not v2 and "perf_event" in controllers.split(",")):
                return path.lstrip("/")
        return ""

    def cgroup_cpu_seconds(self, pid):
        """The container's CPU seconds as its own cgroup counts them (read directly, not via cAdvisor):
        the reference the exported cAdvisor figures are checked against. None when unreadable."""
        lines = self._cgroup_lines(pid)
        if not lines:
            return None
        if self._cgroup2():
            rel = next((p for h, c, p in lines if h == "0" and c == ""), None)
            try:
                with open(os.path.join(self.cgroup_root, (rel or "").lstrip("/"), "cpu.stat"), encoding="utf-8") as f:
                    for line in f:
                        key, value = line.split()
                        if key == "usage_usec":
                            return round(int(value) / 1e6, 6)
            except (OSError, ValueError):
                return None
            return None
        rel = next((p for h, c, p in lines if set(c.split(",")) >= {"cpuacct"}), None)
        if rel is None:
            return None
        for mount in ("cpuacct", "cpu,cpuacct", "cpuacct,cpu"):
            try:
                with open(os.path.join(self.cgroup_root, mount, rel.lstrip("/"), "cpuacct.usage"), encoding="utf-8") as f:
                    return round(int(f.read().strip()) / 1e9, 6)
            except (OSError, ValueError):
                continue
        return None

    # -- perf ----------------------------------------------------------------------------------------
    def perf_unavailable_reason(self):
        """Why perf cannot measure this host, or None when it can."""
        if "reason" not in self._perf:
            self._perf["reason"] = self._perf_reason()
        return self._perf["reason"]

    def _perf_reason(self):
        if not shutil.which("perf"):
            return "perf is not installed"
        if os.geteuid() != 0:
            try:
                with open("/proc/sys/kernel/perf_event_paranoid", encoding="utf-8") as f:
                    paranoid = int(f.read().strip())
            except (OSError, ValueError):
                paranoid = 2
            if paranoid > 0:
                return "perf needs root or kernel.perf_event_paranoid<=0"
        r = subprocess.run(["perf", "stat", "-e", "task-clock", "-x,", "true"], capture_output=True)
        return None if r.returncode == 0 else "perf stat does not run on this host"

    def hardware_counters(self):
        if "hardware" not in self._perf:
            r = subprocess.run(["perf", "stat", "-x,", "-e", "instructions:u", "true"], capture_output=True, text=True)
            self._perf["hardware"] = any(line[:1].isdigit() for line in r.stderr.splitlines())
        return self._perf["hardware"]

    def perf_stat_events(self):
        """Events for perf stat: instructions where the PMU has them, software events otherwise."""
        return (HARDWARE_EVENTS if self.hardware_counters() else SOFTWARE_EVENTS).split(",")

    def perf_stat_start(self, cgroup, csv_path):
        """perf stat on the cgroup until perf_stat_stop. One -G cgroup applies to every event (perf >=
        4.x; tests/unit/test_perf_one_cgroup.py): a per-event list no longer lines up on hybrid CPUs,
        where each hardware event expands to cpu_core/ and cpu_atom/ events, and the events left
        without a cgroup then count the whole system. perf ends cleanly when its workload (a sleep)
        ends, which is how it is stopped."""
        return subprocess.Popen(["perf", "stat", "-a", "-x,", "-o", csv_path, "-e", ",".join(self.perf_stat_events()),
                                 "-G", cgroup, "--", "sleep", "2147483647"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def _children(self, pid):
        kids = []
        for entry in os.listdir(self.proc):
            if entry.isdigit():
                try:
                    with open(os.path.join(self.proc, entry, "stat"), encoding="utf-8") as f:
                        fields = f.read().rsplit(")", 1)[1].split()
                    if int(fields[1]) == pid:
                        kids.append(int(entry))
                except (OSError, IndexError, ValueError):
                    continue
        return kids

    def perf_stat_stop(self, perf):
        """Ends perf stat's sleep, so that perf writes its counts and exits; killed if it does not."""
        if perf is None:
            return
        deadline = time.time() + 2
        while perf.poll() is None and time.time() < deadline:
            kids = self._children(perf.pid)
            if kids:
                for kid in kids:
                    try:
                        os.kill(kid, signal.SIGTERM)
                    except OSError:
                        pass
                break
            time.sleep(0.2)
        try:
            perf.wait(timeout=10)
        except subprocess.TimeoutExpired:
            perf.kill()
            perf.wait()

    def perf_record_start(self, cgroup, delay_s, seconds, out_path):
        """perf record of the cgroup for SECONDS after DELAY_S, converted to the text format the
        Firefox Profiler imports, in a thread; perf_record_wait collects it, perf_profile describes
        it. A recording without samples leaves no OUT (the profiler cannot open an empty file)."""
        recording = Recording(self, cgroup, delay_s, seconds, out_path)
        recording.thread.start()
        return recording

    def perf_record_wait(self, recording):
        if recording is not None:
            recording.thread.join()

    def perf_record_cancel(self, recording):
        if recording is not None:
            recording.cancel()
            recording.thread.join()

    def perf_profile(self, out_path, why=None, handle=None):
        """phase.json's perf.profile: {file, samples, frequency_hz, reason}; file is null when no
        profile was written, and reason then says why."""
        if out_path is None:
            return {"file": None, "samples": None, "frequency_hz": None, "reason": why or None}
        samples, reason = None, why
        if handle is not None and handle.done:
            samples, reason = handle.samples, handle.reason or why
        elif not reason:
            reason = "the recording left no status (not started or killed)"
        written = os.path.exists(out_path) and os.path.getsize(out_path) > 0
        return {"file": os.path.basename(out_path) if written else None, "samples": samples,
                "frequency_hz": PERF_RECORD_HZ, "reason": reason or None}

    # -- what runs in the container ------------------------------------------------------------------
    def process_watch_start(self, pid):
        """What runs in the database container during the window, read from the host every second
        (never docker exec, which would itself run in the container), in a thread."""
        return ProcessWatch(pid, self.proc, self.cgroup_root)

    def process_watch_stop(self, watch):
        return watch.stop() if watch is not None else []

    def process_summary(self, database, stand_in, samples):
        """phase.json `cgroup_processes` (its server's process names from its manifest)."""
        manifests = cgroup_processes.database_manifests()
        server = manifests.server_processes(database, stand_in=stand_in)
        return cgroup_processes.summary(samples, server)

    # -- the host ------------------------------------------------------------------------------------
    def host_facts(self):
        """host.json: kernel, CPU, memory, cgroup, Docker, PMU (analysis/collect/hostinfo.py)."""
        from analysis.collect import hostinfo
        return hostinfo.gather()


class ProcessWatch:
    def __init__(self, pid, proc, root, every=1.0):
        self.samples = []
        self._running = True
        self.thread = threading.Thread(target=self._run, args=(pid, every, proc, root), daemon=True)
        self.thread.start()

    def _run(self, pid, every, proc, root):
        for sample in cgroup_processes.watch_samples(pid, every, proc, root, lambda: self._running):
            self.samples.append(sample)

    def stop(self):
        self._running = False
        self.thread.join(timeout=5)
        return list(self.samples)


class Recording:
    """One delayed perf record and its perf script, with its outcome (samples, reason)."""

    def __init__(self, probe, cgroup, delay_s, seconds, out):
        self.probe, self.cgroup, self.delay_s, self.seconds, self.out = probe, cgroup, delay_s, seconds, out
        self.samples = None
        self.reason = None
        self.done = False
        self._cancelled = threading.Event()
        self._proc = None
        self._lock = threading.Lock()
        self.thread = threading.Thread(target=self._run, daemon=True)
        for path in (out, out + ".status"):
            if os.path.exists(path):
                os.remove(path)

    def cancel(self):
        with self._lock:
            self._cancelled.set()
            if self._proc is not None and self._proc.poll() is None:
                # perf and its sleep: the recording ends, its data is dropped below
                for kid in self.probe._children(self._proc.pid):
                    try:
                        os.kill(kid, signal.SIGTERM)
                    except OSError:
                        pass
                self._proc.terminate()

    def _start(self, argv, **kw):
        with self._lock:
            if self._cancelled.is_set():
                return None
            self._proc = subprocess.Popen(argv, **kw)
            return self._proc

    def _step(self, what, argv, stdout):
        """Runs one perf command unless cancelled; False (with the reason) when it did not succeed."""
        p = self._start(argv, stdout=stdout, stderr=subprocess.PIPE, text=True)
        err = p.communicate()[1] if p else ""
        if self._cancelled.is_set():
            self.reason = "cancelled before the recording ended"
            return False
        if p.returncode != 0:
            self.reason = f"{what} failed: {(err.strip().splitlines() or [''])[-1]}"
            return False
        return True

    def _run(self):
        out, data, tmp = self.out, self.out + ".data", self.out + ".tmp"
        try:
            if self._cancelled.wait(self.delay_s):
                self.reason = "cancelled before the recording ended"
                return
            event = "cycles" if self.probe.hardware_counters() else "cpu-clock"
            if not self._step("perf record", ["perf", "record", "-q", "-a", "-g", "-F", str(PERF_RECORD_HZ), "-e", event,
                                              "-G", self.cgroup, "-o", data, "--", "sleep", str(self.seconds)],
                              subprocess.DEVNULL):
                return
            with open(tmp, "w", encoding="utf-8") as f:
                if not self._step("perf script", ["perf", "script", "-F", "+pid", "-i", data], f):
                    return
            # a sample is a header line (not indented) followed by its indented frames
            with open(tmp, encoding="utf-8", errors="replace") as f:
                n = sum(1 for line in f if line.strip() and not line[0].isspace() and not line.startswith("#"))
            self.samples = n
            if n > 0:
                os.replace(tmp, out)
            else:
                self.reason = f"no samples: the container did not run on a CPU during the {self.seconds} s recording"
        finally:
            for path in (data, data + ".old", tmp):
                if os.path.exists(path):
                    os.remove(path)
            self.done = True
