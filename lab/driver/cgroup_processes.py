"""What runs inside a database container, read from the host (never `docker exec`, which would
itself run a process in the container): the processes of the container's cgroup with their comm.
The probe (lab/driver/probe.py) runs `watch` in a thread of the driver and `summary` in-process; the
CLI below is for the lab's bash (lab/phase.sh, through the lab/cgroup-processes.py shim) and tests.

  python3 -m lab.driver.cgroup_processes sample PID >>samples.jsonl
      one JSON line: {"t": unix seconds, "cgroup": path, "processes": [{"pid", "comm"}]}, or
      {"t", "error"} when the cgroup cannot be read. PID: any process of the container (its
      main process, as `docker inspect -f {{.State.Pid}}` gives it).
  python3 -m lab.driver.cgroup_processes watch PID [--every S] >samples.jsonl
      a sample every S seconds (default 1) until terminated, or until its parent (the lab's shell)
      is gone, each holding every process seen in the cgroup during those S seconds (polled every
      50 ms, so that short-lived intruders such as a healthcheck's runc:[2:INIT] or pg_isready are
      seen); each line flushed as it is taken. One long-lived reader: polling costs the host little.
  python3 -m lab.driver.cgroup_processes io PID
      one JSON line: the I/O counters (/proc/<pid>/io read_bytes, rchar) of each of the container's
      processes (`io` below), as the probe reads them at a window's marks.
  python3 -m lab.driver.cgroup_processes summary --database NAME [--stand-in] samples.jsonl   (NAME: databases/NAME/database.json)
      the phase manifest's `cgroup_processes` field (docs/contracts.md §4):
      {samples, comms: {comm: process-samples}, foreign: [comm, ...], server: [allowed comms],
       processes: [{pid, comm}] (every one seen), reason (null, or why there are no samples)}

Environment for tests: JSONBENCH_PROC (default /proc), JSONBENCH_CGROUP_ROOT (/sys/fs/cgroup).
"""
import argparse
import json
import os
import signal
import sys
import time

# The server's own comm, per database and path (official or stand-in), is its manifest's
# (databases/<name>/database.json `processes`, `standin.processes`): read by `summary` only, so
# that `sample` and `watch` need nothing but the standard library.
def database_manifests():
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
    if root not in sys.path:
        sys.path.insert(0, root)
    from databases import manifests
    return manifests


# cgroup v1 hierarchies that hold every process of a container, in order of preference.
V1_CONTROLLERS = ("pids", "memory", "cpu,cpuacct", "cpuacct,cpu", "cpuacct", "cpu")


def read_cgroup_lines(proc, pid):
    with open(os.path.join(proc, str(pid), "cgroup")) as f:
        return [line.rstrip("\n").split(":", 2) for line in f if line.strip()]


def cgroup_dir(pid, proc="/proc", root="/sys/fs/cgroup"):
    """The directory of PID's cgroup: a v1 hierarchy listed in V1_CONTROLLERS if the host mounts
    one (v1 or hybrid), else the unified (v2) hierarchy."""
    entries = read_cgroup_lines(proc, pid)
    by_controller = {controllers: path for _, controllers, path in entries if controllers}
    for name in V1_CONTROLLERS:
        if name in by_controller:
            d = os.path.join(root, name, by_controller[name].lstrip("/"))
            if os.path.isdir(d):
                return d
    for hid, controllers, path in entries:
        if hid == "0" and controllers == "":
            for base in (root, os.path.join(root, "unified")):
                d = os.path.join(base, path.lstrip("/"))
                if os.path.isfile(os.path.join(d, "cgroup.procs")):
                    return d
    raise FileNotFoundError(f"no readable cgroup directory for pid {pid} under {root} "
                            f"(from {os.path.join(proc, str(pid), 'cgroup')})")


def comm_of(pid, proc="/proc"):
    try:
        with open(os.path.join(proc, str(pid), "comm")) as f:
            return f.read().strip()
    except OSError:
        return None  # exited between the two reads


def processes(directory, proc="/proc"):
    """Every process of the cgroup and of its child cgroups, sorted by pid."""
    pids = set()
    for d, _, _ in os.walk(directory):
        try:
            with open(os.path.join(d, "cgroup.procs")) as f:
                pids.update(int(x) for x in f.read().split())
        except OSError:
            continue
    out = []
    for pid in sorted(pids):
        comm = comm_of(pid, proc)
        if comm is not None:
            out.append({"pid": pid, "comm": comm})
    return out


def sample(pid, proc="/proc", root="/sys/fs/cgroup"):
    t = time.time()
    try:
        d = cgroup_dir(pid, proc, root)
        return {"t": t, "cgroup": d, "processes": processes(d, proc)}
    except (OSError, ValueError) as e:
        return {"t": t, "error": str(e)}


def watch(pid, every, proc, root, poll=0.05, emit=None, running=None, nap=time.sleep):
    """A sample every `every` seconds holding every process seen in the cgroup during that period,
    polled every `poll` seconds: a healthcheck's process lives some milliseconds, a sample a second
    would see it once in a hundred times. Each sample goes to emit(dict) as it is taken; the watch
    ends when running() is false (a period under way when it ends is dropped, as a terminated CLI
    watch drops it). nap(seconds) waits: the probe's thread passes its stop event's wait, so that a
    stop is seen within `poll`. The CLI's defaults: print each line, run until the parent is gone."""
    if emit is None:
        def emit(line):
            print(json.dumps(line), flush=True)
    if running is None:
        parent = os.getppid()
        def running():
            return os.getppid() == parent
    try:
        d = cgroup_dir(pid, proc, root)
    except (OSError, ValueError) as e:
        d, error = None, str(e)
    while running():
        t, seen = time.time(), {}
        end = t + every
        while True:
            if d is not None:
                try:
                    for p in processes(d, proc):
                        seen[(p["pid"], p["comm"])] = True
                except OSError as e:
                    d, error = None, str(e)
            if time.time() + poll >= end:
                break
            nap(poll)
            if not running():
                return 0
        if d is None and not seen:
            line = {"t": t, "error": error}
        else:
            line = {"t": t, "cgroup": d, "processes": [{"pid": p, "comm": c} for p, c in sorted(seen)]}
        emit(line)
        nap(max(0.0, end - time.time()))
    return 0


# /proc/<pid>/io fields read by `io` (Linux, Documentation/filesystems/proc.rst "/proc/<pid>/io"):
# read_bytes, the bytes this process caused to be fetched from storage (a read the page cache
# serves adds nothing; an O_DIRECT read adds its bytes); rchar, the bytes its read()/pread()-like
# calls returned, from the page cache or not (a socket's recv() not: seen as 0 on SecantusDB).
IO_FIELDS = ("read_bytes", "rchar")


def process_counters(pid, proc):
    """{field: int} of IO_FIELDS from /proc/PID/io, the ppid and start time (/proc/PID/stat fields
    4 and 22, clock ticks since boot: with the pid, who the process is, since pids are reused); None
    when the process ended between the reads."""
    try:
        with open(os.path.join(proc, str(pid), "io")) as f:
            io = dict(line.split(":", 1) for line in f if ":" in line)
        with open(os.path.join(proc, str(pid), "stat")) as f:
            stat = f.read()
    except (FileNotFoundError, ProcessLookupError):
        return None
    fields = stat[stat.rindex(")") + 2:].split()
    return {"ppid": int(fields[1]), "start_ticks": int(fields[19]),
            **{k: int(io[k]) for k in IO_FIELDS}}


def io(pid, proc="/proc", root="/sys/fs/cgroup"):
    """The I/O counters of every process of PID's container at one moment (a window mark):
    {"t", "cgroup", "processes": [{pid, comm, ppid, start_ticks, read_bytes, rchar}]}, or
    {"t", "error"} when the cgroup or a process's /proc/<pid>/io cannot be read (a permission, not a
    process that ended meanwhile: that one is left out). Linux adds a reaped child's counters to its
    parent's /proc/<pid>/io (kernel/exit.c wait_task_zombie), so analysis/figures/read_io.py can
    count a process that ends between two marks through its parent (docs/contracts.md §4)."""
    t = time.time()
    try:
        d = cgroup_dir(pid, proc, root)
        out = []
        for p in processes(d, proc):
            counters = process_counters(p["pid"], proc)
            if counters is not None:
                out.append({**p, **counters})
        return {"t": t, "cgroup": d, "processes": out}
    except (OSError, ValueError) as e:
        return {"t": t, "error": f"{type(e).__name__}: {e}"}


def summary(samples, server):
    """server: the comms allowed in the container (the server's own)."""
    good = [s for s in samples if s.get("processes") is not None]
    comms, seen = {}, {}
    for s in good:
        for p in s["processes"]:
            comms[p["comm"]] = comms.get(p["comm"], 0) + 1
            seen[(p["pid"], p["comm"])] = True
    reason = None
    if not good:
        errors = [s["error"] for s in samples if "error" in s]
        reason = "no sample could read the container's cgroup" + (f": {errors[-1]}" if errors else " (none taken)")
    return {
        "samples": len(good),
        "comms": dict(sorted(comms.items())),
        # a watch that read nothing saw no process, foreign or not: null with the reason
        "foreign": sorted(c for c in comms if c not in server) if good else None,
        "server": server,
        "processes": [{"pid": pid, "comm": comm} for pid, comm in sorted(seen)],
        "reason": reason,
    }


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("sample")
    s.add_argument("pid", type=int)
    w = sub.add_parser("watch")
    w.add_argument("pid", type=int)
    w.add_argument("--every", type=float, default=1.0)
    i = sub.add_parser("io")
    i.add_argument("pid", type=int)
    m = sub.add_parser("summary")
    m.add_argument("--database", required=True, help="a database with a manifest, databases/<name>/database.json")
    m.add_argument("--stand-in", action="store_true")
    m.add_argument("file")
    a = ap.parse_args(argv)
    proc = os.environ.get("JSONBENCH_PROC", "/proc")
    root = os.environ.get("JSONBENCH_CGROUP_ROOT", "/sys/fs/cgroup")
    if a.cmd == "sample":
        print(json.dumps(sample(a.pid, proc, root)))
        return 0
    if a.cmd == "io":
        print(json.dumps(io(a.pid, proc, root)))
        return 0
    if a.cmd == "watch":
        signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
        return watch(a.pid, a.every, proc, root)
    try:
        with open(a.file) as f:
            samples = [json.loads(line) for line in f if line.strip()]
    except FileNotFoundError:
        samples = []
    except (OSError, ValueError) as e:
        print(f"cgroup_processes: cannot read {a.file}: {e}", file=sys.stderr)
        return 2
    manifests = database_manifests()
    try:
        server = manifests.server_processes(a.database, stand_in=a.stand_in)
    except manifests.ManifestError as e:  # names the manifest, the key and what is allowed
        print(f"cgroup_processes: {e}", file=sys.stderr)
        return 2
    print(json.dumps(summary(samples, server)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
