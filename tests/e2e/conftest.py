"""Runs the real lab (./runme.sh) on a tiny bench in its own compose project, once per session.

The lab's containers are removed at the end by their ids (every container of the test project);
the Docker engine itself belongs to the caller (lab/test.sh starts and stops it)."""
import json
import os
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path

import pytest
import requests

LAB_ROOT = Path(__file__).resolve().parents[2]
# Overridable so that two end-to-end runs on one engine (a developer's and CI's) do not collide.
PROJECT = os.environ.get("JSONBENCH_E2E_PROJECT", "jsonbench-e2e")
_BASE = int(os.environ.get("JSONBENCH_E2E_PORT_BASE", "25000"))
PORTS = {"PG_PORT": str(_BASE + 432), "MONGO_PORT": str(_BASE + 17), "MYSQL_PORT": str(_BASE + 306),
         "TIMESCALEDB_PORT": str(_BASE + 433),
         "PROMETHEUS_PORT": str(_BASE + 90),
         "GRAFANA_PORT": str(_BASE + 300)}
# Published ports bind here: a loopback address other than 127.0.0.1 by default, so every end-to-end
# run proves that host-side URLs (export, check) follow BIND_ADDRESS instead of assuming 127.0.0.1.
BIND_ADDRESS = os.environ.get("JSONBENCH_E2E_BIND_ADDRESS", "127.0.0.2")
TINY_BENCH = """\
DESCRIPTION="end-to-end test bench"
KEY=uuidv7
LAYOUT=clustered
FIELDS=10
FIELD_BYTES=1000
CLIENTS=2
RATE=50
DOCS={docs}
SEED=7
QUIET_S={quiet_s}
PERF_RECORD_S={perf_s}
"""


def image_os_of(image):
    """An image's OS and C library read here, not by lab/image-os.py: /etc/os-release's PRETTY_NAME
    with `cat` and glibc's version from the last word of `ldd --version`'s first line, each in a
    throwaway container of the image."""
    def run(entrypoint, *args):
        return subprocess.run(["docker", "run", "--rm", "--network", "none", "--entrypoint", entrypoint, image, *args],
                              capture_output=True, text=True, check=True, timeout=60).stdout
    pretty = next(line.split("=", 1)[1].strip('"') for line in run("cat", "/etc/os-release").splitlines()
                  if line.startswith("PRETTY_NAME="))
    return {"os": pretty, "libc": "glibc " + run("ldd", "--version").splitlines()[0].split()[-1]}


_STANDINS = []


def standins_choice():
    """Tests may choose stand-ins on their own, a bench run may not: ./runme.sh test exports
    JSONBENCH_STANDINS; a direct pytest run decides once here with the lab's own registry probe."""
    if "JSONBENCH_STANDINS" in os.environ:
        return os.environ["JSONBENCH_STANDINS"]
    if not _STANDINS:
        r = subprocess.run(["bash", "-c", f'. "{LAB_ROOT}/host/setup-host.sh"; use_standins'],
                           capture_output=True, text=True, timeout=120)
        _STANDINS.append("1" if r.returncode == 0 else "0")
    return _STANDINS[0]


def lab_env():
    env = dict(os.environ, COMPOSE_PROJECT_NAME=PROJECT, PROGRESS_EVERY_S="5", JSONBENCH_STANDINS=standins_choice(),
               BIND_ADDRESS=BIND_ADDRESS,
               **PORTS)
    # its own client image tag: another checkout's run on the same engine must not swap our client
    env.setdefault("JSONBENCH_CLIENT_TAG", PROJECT)
    return env


def project_containers():
    out = subprocess.run(
        ["docker", "ps", "-aq", "--filter", f"label=com.docker.compose.project={PROJECT}"],
        check=True, capture_output=True, text=True).stdout
    return out.split()


def remove_project():
    ids = project_containers()
    if ids:
        subprocess.run(["docker", "rm", "-f", "-v", *ids], check=False, capture_output=True)
    vols = subprocess.run(["docker", "volume", "ls", "-q", "--filter",
                           f"label=com.docker.compose.project={PROJECT}"],
                          capture_output=True, text=True).stdout.split()
    if vols:
        subprocess.run(["docker", "volume", "rm", *vols], check=False, capture_output=True)
    nets = subprocess.run(["docker", "network", "ls", "-q", "--filter",
                           f"label=com.docker.compose.project={PROJECT}"],
                          capture_output=True, text=True).stdout.split()
    if nets:
        subprocess.run(["docker", "network", "rm", *nets], check=False, capture_output=True)


def write_bench(parent: Path, name: str, text: str) -> Path:
    bench = parent / name
    bench.mkdir()
    (bench / "bench.env").write_text(text)
    return bench


def tiny_bench(docs: int, perf_s: int, quiet_s: int = 0, extra: str = "") -> str:
    """The tiny insert bench's bench.env. No quiet period unless asked for: nothing of an insert
    phase's figures needs one (the window's first guard seconds give its idle reading); the tests of
    the quiet period itself ask for it. EXTRA: more lines (e.g. DATABASES=postgres)."""
    return TINY_BENCH.format(docs=docs, perf_s=perf_s, quiet_s=quiet_s) + extra


def make_bench(parent: Path, name: str, docs: int, perf_s: int, quiet_s: int = 0, extra: str = "") -> Path:
    return write_bench(parent, name, tiny_bench(docs, perf_s, quiet_s, extra))


def results_of(bench: Path):
    return json.loads((bench / "results.json").read_text()) if (bench / "results.json").exists() else None


def phases_said(benches) -> str:
    """Each phase's status and reason from the benches' results.json, one line each (the lab's
    output is long; a failed fixture's message shows only its tail, where the first bench's verdicts
    are not)."""
    lines = []
    for bench in benches:
        results = results_of(bench)
        for r in (results or {}).get("runs", []):
            lines.append(f"{bench.name} {r['phase']}: {r['status']}" + (f" ({r['reason']})" if r.get("reason") else ""))
        if results is None:
            lines.append(f"{bench.name}: no results.json")
    return "\n".join(lines)


class Run:
    def __init__(self, bench: Path, proc: subprocess.CompletedProcess):
        self.bench = bench
        self.returncode = proc.returncode
        self.stdout = proc.stdout
        self.results = json.loads((bench / "results.json").read_text()) \
            if (bench / "results.json").exists() else None

    def phase(self, db):
        return json.loads((self.bench / f"{db}.phase.json").read_text())


@pytest.fixture(scope="session")
def workdir():
    d = Path(tempfile.mkdtemp(prefix="jsonbench-e2e-"))
    yield d
    shutil.rmtree(d, ignore_errors=True)


@pytest.fixture(scope="session")
def prometheus_url():
    return f"http://{BIND_ADDRESS}:{PORTS['PROMETHEUS_PORT']}"


def runme(workdir, *args, log):
    """`./runme.sh --no-branch --no-check ARGS` to the end; its output is kept in workdir/log."""
    proc = subprocess.run([str(LAB_ROOT / "runme.sh"), "--no-branch", "--no-check", *args],
                          cwd=LAB_ROOT, env=lab_env(), capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, timeout=1800)
    (workdir / log).write_text(proc.stdout + "\n--- stderr ---\n" + proc.stderr)
    print(proc.stdout[-6000:])
    print(proc.stderr[-6000:])
    return proc


def runme_watched(workdir, *args, log, on_line=None, env=None, timeout=1800):
    """`./runme.sh --no-branch --no-check ARGS` to the end, its output read as it comes: on_line(line)
    for every line, so a test can act at a given point of the run (a phase starts, a check begins).
    Returns the CompletedProcess (stdout and stderr merged); the output is kept in workdir/log."""
    proc = subprocess.Popen([str(LAB_ROOT / "runme.sh"), "--no-branch", "--no-check", *args], cwd=LAB_ROOT,
                            env=env or lab_env(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            stdin=subprocess.DEVNULL)
    lines = []
    try:
        for line in proc.stdout:
            lines.append(line)
            if on_line is not None:
                on_line(line)
        proc.wait(timeout=timeout)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    done = subprocess.CompletedProcess(proc.args, proc.returncode, "".join(lines), "")
    (workdir / log).write_text(done.stdout)
    print(done.stdout[-6000:])
    return done


def bench_fixture(*benches, log, before=None):
    """A module fixture: one ./runme.sh run of the benches given as (folder name, bench.env text), in
    that order, in a fresh test project (one stack start; each bench on fresh database volumes),
    the project removed afterwards. BEFORE(folder) may add files to a bench folder first. Yields
    (bench, proc, results) for one bench, else {name: (bench, results)} and proc."""
    @pytest.fixture(scope="module")
    def run(workdir):
        remove_project()
        dirs = [write_bench(workdir, name, text) for name, text in benches]
        for d in dirs:
            if before is not None:
                before(d)
        proc = runme(workdir, *map(str, dirs), log=log)
        print(phases_said(dirs))  # shown with a failed test's setup: every phase's verdict, whatever the tail held
        if len(dirs) == 1:
            yield dirs[0], proc, results_of(dirs[0])
        else:
            yield {d.name: (d, results_of(d)) for d in dirs}, proc
        remove_project()
    return run


@pytest.fixture(scope="session")
def lab_run(workdir):
    """The complete tiny run: both databases, 2 clients x 600 documents at 50 docs/s each.
    Its stack stays up for the session's users (test_database_stop, test_lab_*, test_only_*): a
    test module whose own fixture calls remove_project() must sort after them (pytest runs the
    files by name: test_queries_*, test_repeat_*, test_tsbs_*, test_ycsb_*)."""
    remove_project()
    bench = make_bench(workdir, "bench-e2e", docs=600, perf_s=3)
    proc = runme(workdir, str(bench), log="runme.log")
    yield Run(bench, proc)
    remove_project()


def default_signals():
    """preexec_fn of a run that a test interrupts: SIGINT and SIGTERM at their defaults, as in a terminal.
    A test runner started in the background of a script (`... &`) ignores SIGINT, its children inherit
    that, and bash cannot trap a signal ignored at its start: such a run never sees the Ctrl-C (seen
    in a clean-clone CI started that way: runme.sh ran to its end and exited 0)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def interrupt_run(workdir, after_text="phase starts", grace_s=20, sig=signal.SIGINT, name="bench-e2e-interrupt",
                  docs=3000, branch=False, quiet_s=0, extra=""):
    """Starts a run and, once `after_text` is printed, sends `sig` to its whole process group as a
    terminal's Ctrl-C does; returns (Run, seconds to exit)."""
    bench = make_bench(workdir, name, docs=docs, perf_s=0, quiet_s=quiet_s, extra=extra)
    proc = subprocess.Popen([str(LAB_ROOT / "runme.sh"), "--no-check", *([] if branch else ["--no-branch"]), str(bench)],
                            cwd=LAB_ROOT, env=lab_env(), stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, stdin=subprocess.DEVNULL,
                            start_new_session=True, preexec_fn=default_signals)
    lines = []
    deadline = time.monotonic() + 900
    try:
        for line in proc.stdout:
            lines.append(line)
            if after_text in line:
                time.sleep(grace_s)
                break
            if time.monotonic() > deadline:
                break
        os.killpg(proc.pid, sig)
        t0 = time.monotonic()
        rest, _ = proc.communicate(timeout=300)
        lines.append(rest)
        elapsed = time.monotonic() - t0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    done = subprocess.CompletedProcess(proc.args, proc.returncode, "".join(lines), "")
    (workdir / "runme-interrupt.log").write_text(done.stdout)
    return Run(bench, done), elapsed


def prom_query(url, expr, at):
    r = requests.get(f"{url}/api/v1/query", params={"query": expr, "time": at}, timeout=10)
    r.raise_for_status()
    return r.json()["data"]["result"]


def prom_query_range(url, expr, start, end, step=1):
    r = requests.get(f"{url}/api/v1/query_range",
                     params={"query": expr, "start": start, "end": end, "step": step}, timeout=10)
    r.raise_for_status()
    return [series for series in r.json()["data"]["result"] if series["values"]]
