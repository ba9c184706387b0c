"""The probe's side in its container (lab/probe/Dockerfile; the driver's side is probe_box.py): a
LocalProbe that reads the host it runs on (--pid host, the host's /sys/fs/cgroup), spoken to in JSON
lines on stdin/stdout, one request, one answer, in order:

  first line out    {"hello": {"pid": its pid on the host, "files": FILES}}
  request           {"method": a Probe method or "discard", "args": [...]}
  answer            {"result": ...} or {"error": "the probe's message"}

A handle (perf stat, perf record, process watch) travels as {"handle": n}. Paths are the box's: the
driver names them under FILES and copies each finished file out with `docker cp`. Ends at the end of
stdin (the driver closed it, or died): its perf and watches end with it, and --rm removes the box.
Standard library only (the image holds python3 and these files)."""
import json
import os
import shutil
import sys

from .probe import LocalProbe, kernel_facts

FILES = "/probe-files"

# What the driver may call: Probe's methods (probe.py) that read the host. process_summary is the
# controller's (it needs the checkout's manifests), describe and the latencies too.
METHODS = {"perf_cgroup", "cgroup_cpu_seconds", "cgroup_memory_limit", "perf_unavailable_reason", "hardware_counters",
           "perf_stat_events", "perf_stat_start", "perf_stat_stop", "perf_record_start", "perf_record_wait",
           "perf_record_cancel", "perf_profile", "process_watch_start", "process_watch_stop", "host_facts",
           "process_io"}
# the methods that end a handle: it is forgotten once answered
ENDS = {"perf_stat_stop", "process_watch_stop"}


class Box:
    def __init__(self, probe):
        self.probe = probe
        self.handles = {}
        self.next = 1

    def _path(self, path):
        """A path the driver named: under FILES only (nothing else of the box is written)."""
        full = os.path.normpath(str(path))
        if not full.startswith(FILES + "/"):
            raise ValueError(f"{path}: the probe writes only under {FILES}")
        os.makedirs(os.path.dirname(full), exist_ok=True)
        return full

    def call(self, method, args):
        if method == "discard":  # a file the driver copied out: the box keeps nothing
            shutil.rmtree(os.path.dirname(self._path(args[0])), ignore_errors=True)
            return None
        if method not in METHODS:
            raise ValueError(f"unknown method {method!r}; allowed: discard, {', '.join(sorted(METHODS))}")
        if method == "host_facts":
            return kernel_facts(self.probe.cgroup_root)
        if method in ("perf_stat_start", "perf_record_start"):
            args = [*args[:-1], self._path(args[-1])]
        if method == "perf_profile" and args and args[0]:
            args = [self._path(args[0]), *args[1:]]
        args = [self.handles[a["handle"]] if isinstance(a, dict) and set(a) == {"handle"} else a for a in args]
        result = getattr(self.probe, method)(*args)
        if method.endswith("_start"):
            n, self.next = self.next, self.next + 1
            self.handles[n] = result
            return {"handle": n}
        if method in ENDS or method in ("perf_record_wait", "perf_record_cancel"):
            for n, h in list(self.handles.items()):
                if h is args[0]:
                    del self.handles[n]
        return result

    def close(self):
        """stdin ended: every perf and watch still running is ended (nothing outlives the box's
        python, though --rm would end them anyway)."""
        for h in self.handles.values():
            try:
                if hasattr(h, "cancel"):
                    self.probe.perf_record_cancel(h)
                elif hasattr(h, "samples"):
                    self.probe.process_watch_stop(h)
                else:
                    self.probe.perf_stat_stop(h)
            except Exception:  # noqa: BLE001  (ending: the box goes next)
                pass


def serve(inp, out, probe=None):
    box = Box(probe or LocalProbe())

    def say(obj):
        out.write(json.dumps(obj) + "\n")
        out.flush()

    say({"hello": {"pid": os.getpid(), "files": FILES}})
    try:
        for line in inp:
            if not line.strip():
                continue
            try:
                req = json.loads(line)
                say({"result": box.call(req["method"], list(req.get("args") or []))})
            except Exception as e:  # noqa: BLE001  (the probe's message goes back as the answer)
                say({"error": f"{type(e).__name__}: {e}"})
    finally:
        box.close()


if __name__ == "__main__":
    serve(sys.stdin, sys.stdout)
