"""`./runme.sh check` on the real stack: about 20 s of a tiny bench on each database in a temporary
copy, then the table of what will and will not be measured here; nothing of it left behind.

Removes the test project's containers before and after, as the session's lab_run fixture does
before its own run: in lab_run's users' stream (lab/test.sh) it runs before the first of them, by
name, so its removals come before that stack starts (tests/unit/test_e2e_module_order.py)."""
import os
import re
import signal
import subprocess
import sys
import time

from conftest import LAB_ROOT, PROJECT, lab_env, make_bench, remove_project

sys.path.insert(0, str(LAB_ROOT))
from analysis.render.check import ROWS  # noqa: E402  (the rows the table must name)


def compose_services():
    out = subprocess.run(["docker", "ps", "-a", "--filter", f"label=com.docker.compose.project={PROJECT}",
                          "--format", '{{.Label "com.docker.compose.service"}}'],
                         check=True, capture_output=True, text=True).stdout
    return set(out.split())


def project_volumes():
    out = subprocess.run(["docker", "volume", "ls", "-q", "--filter", f"label=com.docker.compose.project={PROJECT}"],
                         check=True, capture_output=True, text=True).stdout
    return set(out.split())


def footnote(out, label, db_column):
    """The footnote text of a 'not measured [n]' cell, or None when the cell holds a figure."""
    line = next(l for l in out.splitlines() if l.startswith(label))
    header = next(l for l in out.splitlines() if l.startswith("figure "))
    cell = line[header.index(db_column):].split("  ")[0]
    m = re.match(r"not measured \[(\d+)\]", cell)
    if not m:
        return None
    return next(l for l in out.splitlines() if l.strip().startswith(f"[{m.group(1)}] ")).strip()


# The check's length per database: 20 s by default (tests/unit/test_check_size.py), shorter here; the
# sizing rule (the bench's rate x CHECK_SECONDS per client) is the same.
CHECK_S = 6


def test_check_runs_each_database_prints_the_table_and_leaves_nothing(workdir):
    remove_project()
    bench = make_bench(workdir, "bench-e2e-smoke", docs=50, perf_s=0)
    tmp = workdir / "check-tmp"
    tmp.mkdir()
    env = dict(lab_env(), TMPDIR=str(tmp), CHECK_SECONDS=str(CHECK_S))
    t0 = time.monotonic()
    try:
        proc = subprocess.run([str(LAB_ROOT / "runme.sh"), "check", str(bench)], cwd=LAB_ROOT, env=env,
                              capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=900)
        elapsed = time.monotonic() - t0
        (workdir / "runme-check.log").write_text(proc.stdout + "\n--- stderr ---\n" + proc.stderr)
        print(proc.stdout[-5000:], proc.stderr[-3000:], f"took {elapsed:.0f} s")
        out = proc.stdout
        assert proc.returncode == 0, out[-3000:] + proc.stderr[-3000:]
        # CHECK_SECONDS per database at the bench's own rate: 50 docs/s x 6 s -> 300 docs per client.
        assert f"~{CHECK_S}s of load per database" in out
        assert f"2 clients x {50 * CHECK_S} docs at 50 docs/s" in out
        for row in ROWS:
            assert row.label in out, row.label
        for db in ("mongodb", "postgres"):
            for label, field in (("disk read bytes (block I/O)", "read_bytes"),
                                 ("disk write bytes (block I/O)", "write_bytes")):
                note = footnote(out, label, db)
                # Measured, or named with the reason results.json gives (this host: no block I/O
                # accounted to containers, so cAdvisor exports no disk series at all).
                assert note is None or (f"{label}: " in note and field in note and "block I/O" in note), \
                    (label, db, note)
        clients_row = next(l for l in out.splitlines() if l.startswith("client metrics in Prometheus"))
        assert clients_row.count(f"2 client(s), {2 * 50 * CHECK_S:,} docs") == 2, clients_row
        perf_row = next(l for l in out.splitlines() if l.startswith("perf samples, server comm"))
        assert re.search(r"\d+/\d+ (secantusd-py|mongod)", perf_row) and re.search(r"\d+/\d+ postgres", perf_row), perf_row
        docs_row = next(l for l in out.splitlines() if l.startswith("documents counted = acknowledged"))
        assert docs_row.count(f"{2 * 50 * CHECK_S:,} = {2 * 50 * CHECK_S:,}") == 2, docs_row
        assert "check bench-e2e-smoke-check: PASS" in out
        # Nothing of the check is left: no temporary folder, no database container or volume, the
        # bench folder untouched; the monitoring stays up as after a run.
        assert list(tmp.iterdir()) == []
        assert sorted(p.name for p in bench.iterdir()) == ["bench.env"]
        services = compose_services()
        assert not services & {"mongodb", "postgres", "client"}, services
        assert {"cadvisor", "prometheus"} <= services
        assert not {v for v in project_volumes() if v.endswith(("mongodb-data", "postgres-data"))}
    finally:
        remove_project()


def test_a_run_checks_first_and_stops_before_the_long_part_when_a_figure_is_missing(workdir):
    """cAdvisor stopped as the check begins: the check's phase has no CPU, memory or network; the
    run stops before its own phase, printing the table and how to skip the check."""
    remove_project()
    bench = make_bench(workdir, "bench-e2e-stop", docs=3000, perf_s=0, extra='DATABASES="postgres"\n')
    tmp = workdir / "stop-tmp"
    tmp.mkdir()
    env = dict(lab_env(), TMPDIR=str(tmp), CHECK_SECONDS=str(CHECK_S))
    proc = subprocess.Popen([str(LAB_ROOT / "runme.sh"), "--no-branch", str(bench)], cwd=LAB_ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            stdin=subprocess.DEVNULL, start_new_session=True)
    lines = []
    try:
        for line in proc.stdout:
            lines.append(line)
            if "check of bench-e2e-stop:" in line:
                cadvisor = subprocess.run(
                    ["docker", "ps", "-q", "--filter", f"label=com.docker.compose.project={PROJECT}",
                     "--filter", "label=com.docker.compose.service=cadvisor"],
                    check=True, capture_output=True, text=True).stdout.split()
                assert cadvisor, "no cAdvisor container to stop"
                subprocess.run(["docker", "stop", *cadvisor], check=True, capture_output=True)
                break
        rest, _ = proc.communicate(timeout=600)
        out = "".join(lines) + rest
        (workdir / "runme-check-stop.log").write_text(out)
        print(out[-5000:])
        assert proc.returncode == 1, out[-3000:]
        assert "check bench-e2e-stop-check: FAIL" in out
        assert re.search(r"^CPU user\s+MISSING", out, re.M), out[-3000:]
        assert "the run stops before the long part" in out
        assert f"to run anyway: ./runme.sh --no-check --no-branch {bench}" in out
        # The long part never started: no phase of the bench itself, no results.
        assert "bench-e2e-stop] postgres: phase starts" not in out
        assert not (bench / "results.json").exists()
        assert list(tmp.iterdir()) == []
        assert not compose_services() & {"mongodb", "postgres", "client"}
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(timeout=120)
        remove_project()
