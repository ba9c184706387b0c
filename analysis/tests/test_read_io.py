"""runs[].read_io (analysis/figures/read_io.py) from a bench folder's files: the server's counter
between the server-stats readings times its unit, the kernel's /proc/<pid>/io sums at the marks, each
per acknowledged operation with its source; null with the reason where a reading lacks them; and
report.md's table for a read-heavy phase (analysis/render/read_io_report.py)."""
import json
import os

from analysis.figures import results
from analysis.render import read_io_report
from analysis.tests import ycsb_fixture


def edit(path, change):
    with open(path) as f:
        doc = json.load(f)
    change(doc)
    with open(path, "w") as f:
        json.dump(doc, f)


def proc(pid, ppid, start, read_bytes, rchar):
    return {"pid": pid, "comm": "postgres", "ppid": ppid, "start_ticks": start, "read_bytes": read_bytes, "rchar": rchar}


def test_read_io_from_the_phase_files(tmp_path):
    bench = str(tmp_path / "ycsb")
    ycsb_fixture.build(bench)

    def stats(doc):
        doc["start"]["counters"].update(blks_read=1000, block_size_bytes=8192)
        doc["end"]["counters"].update(blks_read=1600, block_size_bytes=8192)
    edit(os.path.join(bench, "postgres.server-stats.json"), stats)

    def phase(doc):
        doc["process_io"] = {
            "start": {"t": 1.0, "cgroup": "/docker/x", "processes": [proc(1, 0, 5, 10_000, 50_000), proc(40, 1, 9, 0, 100)]},
            # 40 ended, reaped by 1 (its 100 + 900 more in 1's rchar); 41 began
            "end": {"t": 2.0, "cgroup": "/docker/x", "processes": [proc(1, 0, 5, 10_000 + 4096, 50_000 + 1000 + 8192 * 600),
                                                                   proc(41, 1, 12, 0, 500)]}}
    edit(os.path.join(bench, "postgres.phase.json"), phase)

    result = results.build(bench)
    run = next(r for r in result["runs"] if r["phase"] == "postgres")
    io = run["read_io"]
    ops = io["ops"]
    assert ops == sum(o["ok"] for o in run["operations"].values()) and ops > 0
    assert io["reads"] == run["operations"]["read"]["ok"]
    blks = io["server"]["blks_read"]
    assert (blks["count"], blks["bytes"], blks["reason"]) == (600, 600 * 8192, None)
    assert blks["per_op"] == 600 * 8192 / ops
    assert blks["source"] == "pg_stat_database.blks_read x block_size"
    k = io["kernel"]
    assert k["reason"] is None
    assert k["read_bytes"]["bytes"] == 4096 and k["read_bytes"]["per_op"] == 4096 / ops
    assert k["rchar"]["bytes"] == 1000 + 8192 * 600 - 100 + 500
    assert k["processes"]["ended"] == [{"pid": 40, "comm": "postgres", "ppid": 1}]
    # the fixture's other phases: readings without the counters, phase files without process_io
    other = next(r for r in result["runs"] if r["phase"] == "mongodb")["read_io"]
    assert other["server"]["wt_cache_read"]["bytes"] is None and other["server"]["wt_cache_read"]["reason"]
    assert other["kernel"]["read_bytes"]["bytes"] is None and "older" in other["kernel"]["reason"]

    # the report's table: only for a phase whose operations are mostly reads (this fixture's are 50/50)
    assert read_io_report.report_lines(result) == []
    io["reads"] = io["ops"]
    lines = read_io_report.report_lines(result)
    assert lines[0] == "## Read I/O per operation"
    row = next(line for line in lines if line.startswith("| server: blks_read "))
    assert "pg_stat_database.blks_read x block_size" in row and "4.7 MiB in all" in row
    assert any(line.startswith("| kernel: read_bytes | /proc/<pid>/io | ") and "4.0 KiB in all" in line for line in lines)


def test_mongodb_server_process_read_bytes_from_the_probe(tmp_path):
    """MongoDB's server read I/O where SecantusDB keeps no WiredTiger counter: /proc/<pid>/io
    read_bytes of the server's own process (the manifest's secantusd-py), the container's other
    processes left out; a phase file without the probe's readings has no such figure."""
    bench = str(tmp_path / "ycsb")
    ycsb_fixture.build(bench)

    def p(pid, comm, read_bytes):
        return {"pid": pid, "comm": comm, "ppid": 1, "start_ticks": 7, "read_bytes": read_bytes, "rchar": 0}

    def phase(doc):
        doc["process_io"] = {
            "start": {"t": 1.0, "cgroup": "/docker/m", "processes": [p(1, "secantusd-py", 1000), p(9, "bash", 5)]},
            "end": {"t": 2.0, "cgroup": "/docker/m", "processes": [p(1, "secantusd-py", 1000 + 3 * 4096),
                                                                   p(9, "bash", 5 + 777)]}}
    edit(os.path.join(bench, "mongodb.phase.json"), phase)
    result = results.build(bench)
    io = next(r for r in result["runs"] if r["phase"] == "mongodb")["read_io"]
    own = io["server"]["server_process_read"]
    assert (own["bytes"], own["reason"], own["count"]) == (3 * 4096, None, None)
    assert own["per_op"] == 3 * 4096 / io["ops"]
    assert "/proc/<pid>/io read_bytes of the server's process" in own["source"]
    assert io["kernel"]["read_bytes"]["bytes"] == 3 * 4096 + 777  # the container's, every process
    # the server's counter stays null with its reason (no wiredTiger section)
    assert io["server"]["wt_cache_read"]["bytes"] is None

    # a reading that failed: null with the reading's error
    edit(os.path.join(bench, "mongodb.phase.json"),
         lambda d: d["process_io"].update(end={"t": 2.0, "error": "PermissionError: /proc/1/io"}))
    own = next(r for r in results.build(bench)["runs"] if r["phase"] == "mongodb")["read_io"]["server"]["server_process_read"]
    assert own["bytes"] is None and "PermissionError" in own["reason"]

    # no server process among the container's: null, naming the processes looked for
    edit(os.path.join(bench, "mongodb.phase.json"), lambda d: d["process_io"].update(
        start={"t": 1.0, "cgroup": "/docker/m", "processes": [p(9, "bash", 5)]},
        end={"t": 2.0, "cgroup": "/docker/m", "processes": [p(9, "bash", 6)]}))
    own = next(r for r in results.build(bench)["runs"] if r["phase"] == "mongodb")["read_io"]["server"]["server_process_read"]
    assert own["bytes"] is None and "secantusd-py" in own["reason"]

    # the report's row names the source
    run = next(r for r in result["runs"] if r["phase"] == "mongodb")
    run["read_io"]["reads"] = run["read_io"]["ops"]
    lines = read_io_report.report_lines(result)
    row = next(line for line in lines if line.startswith("| server: server_process_read "))
    assert "/proc/<pid>/io read_bytes of the server's process" in row and "12.0 KiB in all" in row
