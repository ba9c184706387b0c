"""The probe's /proc/<pid>/io reading (lab/driver/cgroup_processes.py io, LocalProbe.process_io) on
real processes of this host, and analysis's difference of two readings (analysis/figures/read_io.py
kernel_delta): a known number of bytes read with O_DIRECT (which bypasses the page cache, so every
byte is a storage read) shows in read_bytes and rchar, counted once, whether the process that read
them is alive at both marks or a child that began and was reaped between them; a process that ended
with no parent in the container at both marks makes the figure null with the reason."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from analysis.figures import read_io
from lab.driver import cgroup_processes
from lab.driver.probe import LocalProbe

LAB_ROOT = Path(__file__).resolve().parents[2]
MiB = 1 << 20

# A reader: "read PATH" reads PATH with O_DIRECT in the process itself, "child PATH" in a child it
# forks and reaps (waitpid) before answering; it answers each line with "done" and the child's pid.
READER = r"""
import mmap, os, sys
def direct_read(path):
    fd = os.open(path, os.O_RDONLY | os.O_DIRECT)
    buf = mmap.mmap(-1, 1 << 20)  # page-aligned, as O_DIRECT needs
    while os.readv(fd, [buf]) > 0:
        pass
    os.close(fd)
for line in sys.stdin:
    cmd, path = line.split()
    child = 0
    if cmd == "read":
        direct_read(path)
    else:
        child = os.fork()
        if child == 0:
            direct_read(path)
            os._exit(0)
        os.waitpid(child, 0)
    print("done", child, flush=True)
"""


@pytest.fixture
def data_file(tmp_path):
    """4 MiB on this host's disk (tmp_path is not a tmpfs here: O_DIRECT needs a block device)."""
    path = tmp_path / "data"
    path.write_bytes(os.urandom(4 * MiB))
    try:
        os.close(os.open(path, os.O_RDONLY | os.O_DIRECT))
    except OSError as e:
        pytest.fail(f"O_DIRECT is refused on {tmp_path}'s file system ({e}): the test needs a disk-backed tmp")
    return path


@pytest.fixture
def reader():
    p = subprocess.Popen([sys.executable, "-c", READER], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    yield p
    p.kill()
    p.wait()


def ask(reader, cmd, path):
    reader.stdin.write(f"{cmd} {path}\n")
    reader.stdin.flush()
    word, child = reader.stdout.readline().split()
    assert word == "done"
    return int(child)


def reading(*pids):
    """A reading of the test's own processes as the probe's io takes each (cgroup_processes.
    process_counters): this session's cgroup is the host's root, whose process 1 (the sandbox's) no
    one may read; io over a real container's cgroup: databases/*/client/test/*read-io*.test.js."""
    out = []
    for pid in pids:
        c = cgroup_processes.process_counters(pid, "/proc")
        if c is not None:
            out.append({"pid": pid, "comm": "python3", **c})
    return {"t": 0.0, "cgroup": "/", "processes": out}


def test_a_direct_read_shows_in_read_bytes_and_rchar(data_file, reader):
    ask(reader, "read", data_file)  # its first read: imports and buffers settle before the marks
    a = reading(reader.pid)
    ask(reader, "read", data_file)
    b = reading(reader.pid)
    me = a["processes"][0]
    assert set(me) == {"pid", "comm", "ppid", "start_ticks", "read_bytes", "rchar"}
    assert me["ppid"] == os.getpid()
    got, processes, reason = read_io.kernel_delta({"start": a, "end": b})
    assert reason is None
    assert 4 * MiB <= got["read_bytes"] < 4 * MiB + 256 * 1024, got
    assert 4 * MiB <= got["rchar"] < 4 * MiB + 256 * 1024, got
    assert processes == {"start": 1, "end": 1, "started": [], "ended": []}


def test_a_child_reaped_between_the_marks_counts_once_through_its_parent(data_file, reader):
    ask(reader, "read", data_file)
    a = reading(reader.pid)
    child = ask(reader, "child", data_file)
    b = reading(reader.pid, child)
    assert child and [p["pid"] for p in b["processes"]] == [reader.pid], "the child is gone at the end mark"
    got, _, reason = read_io.kernel_delta({"start": a, "end": b})
    assert reason is None
    assert 4 * MiB <= got["read_bytes"] < 4 * MiB + 256 * 1024, got


def write(path: Path, text: str):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def fixture_process(proc: Path, pid, ppid, comm, read_bytes, rchar, cgroup="8:pids:/docker/abc\n"):
    write(proc / str(pid) / "comm", comm + "\n")
    write(proc / str(pid) / "cgroup", cgroup)
    # /proc/<pid>/stat: field 4 the ppid, field 22 the start time (clock ticks)
    write(proc / str(pid) / "stat", f"{pid} ({comm}) S {ppid} " + " ".join(["0"] * 17) + f" {1000 + pid} 0\n")
    write(proc / str(pid) / "io", f"rchar: {rchar}\nwchar: 0\nsyscr: 1\nsyscw: 0\nread_bytes: {read_bytes}\n"
                                  "write_bytes: 0\ncancelled_write_bytes: 0\n")


def test_the_cli_reads_every_process_of_the_container(tmp_path):
    proc, root = tmp_path / "proc", tmp_path / "cgroup"
    fixture_process(proc, 7, 0, "postgres", 8192, 9000)
    fixture_process(proc, 8, 7, "postgres", 0, 16384)
    fixture_process(proc, 99, 1, "bash", 5, 5, cgroup="8:pids:/\n")  # another cgroup's: not read
    write(root / "pids" / "docker" / "abc" / "cgroup.procs", "7\n8\n")
    r = subprocess.run([sys.executable, "-m", "lab.driver.cgroup_processes", "io", "7"], capture_output=True, text=True,
                       cwd=LAB_ROOT, env={**os.environ, "JSONBENCH_PROC": str(proc), "JSONBENCH_CGROUP_ROOT": str(root)})
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["cgroup"] == str(root / "pids" / "docker" / "abc")
    assert out["processes"] == [
        {"pid": 7, "comm": "postgres", "ppid": 0, "start_ticks": 1007, "read_bytes": 8192, "rchar": 9000},
        {"pid": 8, "comm": "postgres", "ppid": 7, "start_ticks": 1008, "read_bytes": 0, "rchar": 16384}]
    os.chmod(proc / "8" / "io", 0)  # a process the probe may not read: the reading says so, no partial sum
    if os.access(proc / "8" / "io", os.R_OK):  # root reads a 000 file: make it a directory instead
        (proc / "8" / "io").unlink()
        (proc / "8" / "io").mkdir()
    out = LocalProbe(str(proc), str(root)).process_io(7)
    assert set(out) == {"t", "error"}


def row(pid, ppid, start, read_bytes, rchar=0, comm="postgres"):
    return {"pid": pid, "comm": comm, "ppid": ppid, "start_ticks": start, "read_bytes": read_bytes, "rchar": rchar}


def test_processes_that_start_end_or_are_reused_between_the_marks():
    start = {"t": 1.0, "cgroup": "/x", "processes": [row(1, 0, 10, 100), row(20, 1, 30, 50)]}
    # 20 ended (reaped by 1: its 50 + 70 more are in 1's end value); 21 started; pid 22 at both marks
    # but a different process (start time) at the end: the one at the start ended, a new one began
    end = {"t": 2.0, "cgroup": "/x", "processes": [row(1, 0, 10, 100 + 120), row(21, 1, 40, 5)]}
    got, processes, reason = read_io.kernel_delta({"start": start, "end": end})
    assert reason is None
    assert got["read_bytes"] == 70 + 5
    assert processes["started"] == [{"pid": 21, "comm": "postgres"}]
    assert processes["ended"] == [{"pid": 20, "comm": "postgres", "ppid": 1}]
    start["processes"].append(row(22, 1, 50, 7))  # read 7 before the window, nothing after; reaped by 1
    end["processes"][0]["read_bytes"] += 7
    end["processes"].append(row(22, 1, 60, 3))
    got, _, reason = read_io.kernel_delta({"start": start, "end": end})
    assert reason is None and got["read_bytes"] == 70 + 5 + 3


def test_a_process_lost_in_the_window_makes_the_figure_null_with_the_reason():
    start = {"t": 1.0, "cgroup": "/x", "processes": [row(1, 0, 10, 100), row(9, 4242, 30, 50, comm="sh")]}
    end = {"t": 2.0, "cgroup": "/x", "processes": [row(1, 0, 10, 100)]}
    got, _, reason = read_io.kernel_delta({"start": start, "end": end})
    assert got is None
    assert "sh (pid 9, parent 4242)" in reason
    figures = read_io.kernel_figures({"start": start, "end": {"t": 2.0, "error": "PermissionError: no"}}, 10)
    assert figures["read_bytes"]["bytes"] is None and "PermissionError" in figures["reason"]
    assert "older" in read_io.kernel_figures(None, 10)["reason"]
