"""report.md's read I/O per operation (results.json runs[].read_io, analysis/figures/read_io.py): a
headline table for the read-heavy phases, where what a read costs in I/O is the question (data that
fits the cache or not: the FIT and XL benches). Each figure with its source; a null one with its reason."""
from ..common.labels import fmt, fmt_bytes, run_label

# A phase whose acknowledged operations are at least this share of reads (YCSB B, C, D; OLTP's 95/5)
READ_HEAVY_SHARE = 0.9


def read_heavy(run):
    io = run.get("read_io") or {}
    return bool(io.get("ops")) and io.get("reads", 0) >= READ_HEAVY_SHARE * io["ops"]


def _cell(figure):
    if figure.get("bytes") is None:
        return f"n/a ({figure.get('reason') or 'no reading'})"
    return f"{fmt_bytes(figure['per_op'])} ({fmt_bytes(figure['bytes'])} in all)"


def report_lines(result):
    runs = [r for r in result.get("runs") or [] if read_heavy(r)]
    if not runs:
        return []
    lines = ["## Read I/O per operation", "",
             f"Phases whose operations are at least {READ_HEAVY_SHARE:.0%} reads: bytes read per acknowledged "
             "operation (in all, in the window). The server's counters count its cache's misses (PostgreSQL's and "
             "WiredTiger's may be served by the OS page cache; InnoDB's with O_DIRECT are storage reads); the "
             "kernel's are the database container's processes' /proc/<pid>/io: read_bytes from storage, rchar "
             "from every read call. This host's cgroup accounts no block I/O to containers, so `disk read` "
             "in Runs may be zero.", "",
             "| figure | source | " + " | ".join(run_label(r) for r in runs) + " |",
             "|---|---|" + "---|" * len(runs)]
    names = list(dict.fromkeys(n for r in runs for n in (r["read_io"].get("server") or {})))
    for n in names:
        source = next(r["read_io"]["server"][n]["source"] for r in runs if n in r["read_io"]["server"])
        cells = [_cell(r["read_io"]["server"][n]) if n in r["read_io"]["server"] else "—" for r in runs]
        lines.append(f"| server: {n} | {source} | " + " | ".join(cells) + " |")
    for f in ("read_bytes", "rchar"):
        cells = [_cell({**r["read_io"]["kernel"][f], "reason": r["read_io"]["kernel"].get("reason")}) for r in runs]
        lines.append(f"| kernel: {f} | /proc/<pid>/io | " + " | ".join(cells) + " |")
    ops = " | ".join(f"{fmt(r['read_io']['ops'])} ({fmt(r['read_io']['reads'])} reads)" for r in runs)
    lines += [f"| operations acknowledged | clients | {ops} |", ""]
    return lines
