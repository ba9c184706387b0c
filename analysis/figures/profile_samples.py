"""Whose samples a phase's `perf record` profile holds (D.perf / D.perf.gz, `perf script -F +pid`
text of the database container's cgroup): the server's, or another process's. Used by `check`
(a profile without the server's samples) and by reconciliation (any other process's sample makes
the phase suspect: something else ran in the measured cgroup)."""
import gzip
import re

from ..common import databases
from ..bench import folder


def server_comms(database):
    """A server's own process names, as perf record sees them: its manifest's, stand-ins included
    (SecantusDB's launcher script secantusd-py, whose comm every thread of it carries; FerretDB's
    binary in older runs). Empty for a database without a manifest."""
    return databases.server_processes(database)


def _samples(path, server):
    header = re.compile(r"^(\S.*?)\s+(\d+)(?:/\d+)?\s+(?:\[\d+\]\s+)?\d+\.\d+:")
    dso = re.compile(r"\(([^()]*/)?([^()/]+)\)\s*$")
    samples = []  # [comm, pid, a frame in the server's binary]
    f = gzip.open(path, "rt", errors="replace") if path.endswith(".gz") else open(path, errors="replace")
    with f:
        for line in f:
            m = header.match(line)
            if m:
                samples.append([m.group(1), m.group(2), False])
            elif samples and line[:1].isspace():
                d = dso.search(line)
                if d and d.group(2) in server:
                    samples[-1][2] = True
    server_pids = {pid for comm, pid, in_binary in samples if comm in server or in_binary}
    return [(comm, comm in server or in_binary or pid in server_pids) for comm, pid, in_binary in samples]


def perf_samples(path, server):
    """(samples, server samples, comms). A sample is the server's if its comm is a server name, a
    frame lies in the server's binary (mongod names its threads conn1, WTCheckpointThr, ...: their
    comm is not "mongod" but their frames are), or its process id is one of those samples' process."""
    s = _samples(path, server)
    return len(s), sum(1 for _, own in s if own), sorted({comm for comm, _ in s})


def foreign(bench_dir, phase_id, database):
    """{comm: samples} of the processes other than the server in the phase's profile; None without
    a profile (nothing to say)."""
    path = folder.of(bench_dir).phase(phase_id).profile_path()
    if path is None:
        return None
    out = {}
    for comm, own in _samples(path, server_comms(database)):
        if not own:
            out[comm] = out.get(comm, 0) + 1
    return dict(sorted(out.items()))
