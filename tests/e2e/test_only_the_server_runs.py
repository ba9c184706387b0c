"""Nothing but the database server runs in a measured database container during a window
(issue 9, section 1), checked on the shared tiny run in two independent ways:

- the phase manifest's `cgroup_processes`: the container cgroup's processes and their comm, read
  from the host every second of the window by the driver's probe (lab/driver/cgroup_processes.py);
- the comms of the phase's perf record (`perf script -F +pid`: each sample header starts with the
  thread's comm, then pid/tid). A real mongod names its threads (conn12, WTJournalFlusher, ...), so
  a sample whose comm is not the server's is still the server's when its pid is one the cgroup
  listing saw under the server's comm; anything else (a healthcheck's runc:[2:INIT], pg_isready,
  mongosh, bash) fails the test."""
import json
import re

import pytest

DATABASES = ["mongodb", "postgres"]
# "comm pid/tid [cpu] time: period event:" (comm may hold spaces; the first pid/tid ends it)
SAMPLE_HEADER = re.compile(r"^(\S.*?)\s+(\d+)/(\d+)\s+(?:\[\d+\]\s+)?\d+\.\d+:")


def perf_samples(path):
    out = []
    for line in path.read_text(errors="replace").splitlines():
        m = SAMPLE_HEADER.match(line)
        if m:
            out.append((m.group(1), int(m.group(2))))
    return out


@pytest.mark.parametrize("db", DATABASES)
def test_cgroup_holds_only_the_server_during_the_window(lab_run, db):
    phase = lab_run.phase(db)
    procs = phase.get("cgroup_processes")
    assert procs, phase
    window_s = phase["window"]["end"] - phase["window"]["start"]
    # one sample a second for the whole window (a little slack for start-up of the reader)
    assert procs["samples"] >= window_s - 3, (procs["samples"], window_s)
    assert procs["foreign"] == [], json.dumps(procs, indent=1)
    assert set(procs["comms"]) == set(procs["server"]), procs["comms"]
    print(f"{db}: {procs['samples']} samples over {window_s:.1f}s: {procs['comms']}")


@pytest.mark.parametrize("db", DATABASES)
def test_perf_record_holds_only_the_server(lab_run, db):
    phase = lab_run.phase(db)
    perf = lab_run.bench / f"{db}.perf"
    if phase["perf"]["reason"]:
        pytest.skip(f"perf is off on this host: {phase['perf']['reason']}")
    assert perf.exists(), f"no {perf.name}: {phase['perf']}"
    samples = perf_samples(perf)
    assert samples, f"{perf} ({perf.stat().st_size} bytes) holds no sample header: {perf.read_text()[:500]!r}"
    procs = phase["cgroup_processes"]
    server_pids = {p["pid"] for p in procs["processes"] if p["comm"] in procs["server"]}
    foreign = {}
    for comm, pid in samples:
        if comm not in procs["server"] and pid not in server_pids:
            foreign[f"{comm} ({pid})"] = foreign.get(f"{comm} ({pid})", 0) + 1
    comms = sorted({c for c, _ in samples})
    assert not foreign, f"{db}: {len(samples)} samples; not the server: {foreign}; all comms: {comms}"
    print(f"{db}: {len(samples)} perf samples, comms {comms}")
