"""Whose samples a phase's `perf record` profile holds (D.perf / D.perf.gz, `perf script -F +pid`
text of the database container's cgroup, read into its samples by bench/perfscript.py through the
Phase): the server's, or another process's. Used by `check`
(a profile without the server's samples) and by reconciliation (any other process's sample makes
the phase suspect: something else ran in the measured cgroup)."""
from ..common import databases
from ..bench import folder


def server_comms(database):
    """A server's own process names, as perf record sees them: its manifest's, stand-ins included
    (SecantusDB's launcher script secantusd-py, whose comm every thread of it carries; FerretDB's
    binary in older runs). Empty for a database without a manifest."""
    return databases.server_processes(database)


def _samples(samples, server):
    """[(comm, whether the sample is the server's)] of a profile's samples (bench/perfscript.py)."""
    samples = [(comm, pid, any(b in server for b in binaries)) for comm, pid, binaries in samples]
    server_pids = {pid for comm, pid, in_binary in samples if comm in server or in_binary}
    return [(comm, comm in server or in_binary or pid in server_pids) for comm, pid, in_binary in samples]


def perf_samples(samples, server):
    """(samples, server samples, comms). A sample is the server's if its comm is a server name, a
    frame lies in the server's binary (mongod names its threads conn1, WTCheckpointThr, ...: their
    comm is not "mongod" but their frames are), or its process id is one of those samples' process."""
    s = _samples(samples, server)
    return len(s), sum(1 for _, own in s if own), sorted({comm for comm, _ in s})


def foreign(bench, phase_id, database):
    """{comm: samples} of the processes other than the server in the phase's profile; None without
    a profile (nothing to say). bench: a Bench (bench/folder.py) or its folder's path."""
    samples = folder.of(bench).phase(phase_id).profile_samples()
    if samples is None:
        return None
    out = {}
    for comm, own in _samples(samples, server_comms(database)):
        if not own:
            out[comm] = out.get(comm, 0) + 1
    return dict(sorted(out.items()))


def summary(perf):
    """results.json runs[] `profile`: the perf record profile's file for the Firefox Profiler, its
    samples and frequency, or why there is none (perf: the phase file's `perf`)."""
    p = perf.get("profile") or {}
    return {"file": p.get("file"), "samples": p.get("samples"), "frequency_hz": p.get("frequency_hz"),
            "reason": p.get("reason") if p else "the phase manifest has no perf.profile (older run)"}
