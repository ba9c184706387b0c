"""Read I/O of a phase per acknowledged operation (results.json runs[].read_io), each figure with
its source. Two kinds, because this host's cgroup accounts no block I/O to containers (cgroup v1,
blkio empty) and cAdvisor's disk figures are then zero:

- the server's own counters (`server`): each database's folder names them in its hooks
  (databases/<db>/analysis.py `READ_IO`: {name: {counter, unit_counter|None, source, about}}), the
  difference of the counter between the server-stats readings that bracket the window (as the WAL,
  analysis/figures/wal.py), times the unit the reading gives (PostgreSQL's block_size, InnoDB's page
  size). What each counts (a cache miss the OS page cache may serve, or a storage read) is its
  `about`.
- the kernel's (`kernel`): /proc/<pid>/io `read_bytes` (bytes fetched from storage) and `rchar`
  (bytes read calls returned, page cache or not) of every process of the database container, read
  by the probe at the window's marks (phase.json `process_io`, lab/driver/cgroup_processes.py io).
  The window's bytes are the sum at the end mark minus the sum at the start mark, a process being its
  pid and start time. A process that starts inside the window counts whole (all it read is in the
  window). One that ends inside the window: Linux adds a reaped child's counters to its parent's
  (kernel/exit.c wait_task_zombie), so when its parent is a process of the container that is there at
  both marks, its reads after the start mark are in the parent's difference and its own start value is
  subtracted (its reads before the mark are in the parent's end value too); when its parent is not
  (docker exec's processes, whose parent is outside), what it read in the window is lost and the
  figures are null with the reason. A process that starts and ends between the marks counts through its
  parent in the same way; one whose parent is outside the container is not seen at all (the process
  watch, phase.json cgroup_processes, names every process that ran).

Per operation: divided by the phase's acknowledged operations (per_op's basis, operations_ok).
"""
from ..common import databases
from . import wal as wal_mod

KERNEL_SOURCE = "/proc/<pid>/io of the database container's processes at the window's marks (the probe)"
KERNEL_ABOUT = {
    "read_bytes": "bytes the container's processes caused to be fetched from storage (a read the page cache "
                  "serves adds nothing; InnoDB's O_DIRECT data reads add their bytes)",
    "rchar": "bytes the container's processes' read(), pread(), readv() calls returned, from the page cache "
             "or storage (a socket's recv() is not counted)",
}
KERNEL_FIELDS = tuple(KERNEL_ABOUT)


def _div(v, ops):
    return None if v is None or not ops else v / ops


def server_process_figure(database, spec, process_io, ops):
    """A READ_IO figure read from the kernel for the server's own processes (spec `process_field`: a
    /proc/<pid>/io field; the processes: the manifest's server names, databases/<db>/database.json
    processes, its stand-in's and earlier ones), the window's marks as the kernel's figures take them
    (kernel_delta on those processes only): for a server that keeps no read counter of its own
    (SecantusDB has no wiredTiger section)."""
    comms = databases.server_processes(database)
    own = {mark: ({**r, "processes": [p for p in r["processes"] if p["comm"] in comms]}
                  if r and not r.get("error") else r)
           for mark, r in process_io.items()}
    bytes_, _, reason = kernel_delta(own)
    if bytes_ is not None and not any(own[m]["processes"] for m in ("start", "end")):
        bytes_, reason = None, (f"no process named {', '.join(sorted(comms))} (the manifest's server processes) "
                                "in the container at the window's marks")
    b = None if bytes_ is None else bytes_[spec["process_field"]]
    return {"bytes": b, "count": None, "per_op": _div(b, ops), "source": spec["source"], "about": spec["about"],
            "reason": reason}


def server_figures(database, stats, phase_id, ops, process_io=None):
    """{name: {bytes, per_op, source, about, reason}} of the database's READ_IO counters; {} for a
    database whose hooks name none. A figure of the server's processes' /proc/<pid>/io (spec
    `process_field`) is there only when the phase file has the probe's readings (process_io; a run
    older than them has none, and its kernel figures say so)."""
    out = {}
    for name, spec in (databases.hook(database, "READ_IO") or {}).items():
        if spec.get("process_field"):
            if process_io:
                out[name] = server_process_figure(database, spec, process_io, ops)
            continue
        d = wal_mod.delta(spec, stats, phase_id, what="read I/O")
        unit = 1
        if d["bytes"] is not None and spec.get("unit_counter"):
            unit = (((stats or {}).get("end") or {}).get("counters") or {}).get(spec["unit_counter"])
            if not unit:
                d = {"bytes": None, "source": spec["source"],
                     "reason": f"the server reports no {spec['unit_counter']} to turn {spec['counter']} into bytes"}
        count = d["bytes"]
        b = count * unit if count is not None else None
        out[name] = {"bytes": b, "count": count if spec.get("unit_counter") else None, "per_op": _div(b, ops),
                     "source": spec["source"], "about": spec["about"], "reason": d["reason"]}
    return out


def _key(p):
    return (p["pid"], p["start_ticks"])


def kernel_delta(process_io):
    """({field: bytes}, processes, reason) from phase.json's process_io {start, end}; the bytes None
    with the reason when a reading is missing or failed, or a process that ended had no parent at both
    marks in the container (its window's reads lost)."""
    if not process_io:
        return None, None, "no /proc/<pid>/io readings in the phase file (a run older than them)"
    start, end = process_io.get("start"), process_io.get("end")
    for mark, r in (("start", start), ("end", end)):
        if not r:
            return None, None, f"no /proc/<pid>/io reading at the window's {mark} mark"
        if r.get("error"):
            return None, None, f"/proc/<pid>/io at the window's {mark} mark: {r['error']}"
    a = {_key(p): p for p in start["processes"]}
    b = {_key(p): p for p in end["processes"]}
    alive_pids = {k[0] for k in a} & {k[0] for k in b if k in a}
    started = [b[k] for k in b if k not in a]
    ended = [a[k] for k in a if k not in b]
    lost = [p for p in ended if p["ppid"] not in alive_pids]
    processes = {"start": len(a), "end": len(b),
                 "started": [{"pid": p["pid"], "comm": p["comm"]} for p in started],
                 "ended": [{"pid": p["pid"], "comm": p["comm"], "ppid": p["ppid"]} for p in ended]}
    if lost:
        names = ", ".join(f"{p['comm']} (pid {p['pid']}, parent {p['ppid']})" for p in lost)
        return None, processes, (f"process(es) of the container ended in the window with no parent in the container "
                                 f"at both marks, so what they read in the window is not counted anywhere: {names}")
    out = {}
    for f in KERNEL_FIELDS:
        # every process at the end whole, minus the start values of those at both marks and of those
        # that ended (whose totals their parents' end values hold)
        out[f] = sum(p[f] for p in b.values()) - sum(p[f] for p in a.values())
    return out, processes, None


def kernel_figures(process_io, ops):
    bytes_, processes, reason = kernel_delta(process_io)
    fields = {f: {"bytes": None if bytes_ is None else bytes_[f],
                  "per_op": None if bytes_ is None else _div(bytes_[f], ops), "about": KERNEL_ABOUT[f]}
              for f in KERNEL_FIELDS}
    return {**fields, "source": KERNEL_SOURCE, "processes": processes, "reason": reason}


def of_phase(ph, operations):
    """runs[].read_io of a phase (bench/folder.py Phase); operations: the merged operations (per_op's
    basis: the operations acknowledged)."""
    ops = sum(int(o.get("ok") or 0) for o in operations.values())
    return {
        "ops": ops,
        "basis": "operations_ok",
        "reads": sum(int(o.get("ok") or 0) for op, o in operations.items() if op in READ_OPS),
        "server": server_figures(ph.database(), ph.server_stats(), ph.id, ops, (ph.doc() or {}).get("process_io")),
        "kernel": kernel_figures((ph.doc() or {}).get("process_io"), ops),
    }


# The operation types that read (YCSB's read and scan, OLTP's point/range selects, a query): a phase
# whose acknowledged operations are mostly these is read-heavy, and report.md heads it with read I/O.
READ_OPS = ("read", "scan", "query", "point-select", "simple-range", "sum-range", "order-range", "distinct-range")
