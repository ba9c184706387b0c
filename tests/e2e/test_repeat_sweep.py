"""REPEAT and sweeps through ./runme.sh on the real lab: a REPEAT=2 bench (repeat-1, repeat-2, each a
complete bench folder, and the summary with its intervals), the shipped storage-forms bench's paired
sweep at small sizes (one bench folder per pair of forms and the sweep report with its plots), and a
run interrupted in its second repetition, which keeps the first and leaves no database or client
container."""
import json
import os
import signal
import subprocess
import sys
import time

import pytest

from conftest import LAB_ROOT, default_signals, lab_env, make_bench, project_containers, remove_project, runme

sys.path.insert(0, str(LAB_ROOT))

TINY = ["--set", "DOCS=100", "--set", "PERF_RECORD_S=0"]  # 2 s of load per phase at 50 docs/s per client


@pytest.fixture(scope="module")
def repeat_run(workdir):
    remove_project()
    bench = make_bench(workdir, "bench-e2e-repeat", docs=100, perf_s=0)
    proc = runme(workdir, *TINY, "--set", "REPEAT=2", str(bench), log="runme-repeat.log")
    yield bench, proc
    remove_project()


def test_repeat_runs_each_repetition_into_its_own_bench_folder(repeat_run):
    bench, proc = repeat_run
    assert proc.returncode == 0, proc.stderr[-3000:]
    log = proc.stdout
    # interleaved: every database of repetition 1, then of repetition 2, fresh volumes for each
    order = [line for line in log.splitlines() if "repetition " in line or "phase starts" in line]
    assert "repetition 1 of 2" in order[0] and "mongodb: phase starts" in order[1]
    assert "postgres: phase starts" in order[2] and "repetition 2 of 2" in order[3]
    assert "mongodb: phase starts" in order[4] and "postgres: phase starts" in order[5]
    assert log.count("fresh database volumes") == 2
    for k in (1, 2):
        rep = bench / f"repeat-{k}"
        # its plan (the only one: no run.env, no plan.txt) is the folder's keys with REPEAT=1
        plan = json.loads((rep / "plan.json").read_text())
        assert plan["settings"]["given"]["REPEAT"] == "1" and plan["repetitions"] == 1 and plan["bench"] == f"repeat-{k}"
        assert not (rep / "run.env").exists() and not (rep / "plan.txt").exists()
        res = json.loads((rep / "results.json").read_text())
        assert res["config"]["run"] == plan["settings"]["given"]
        assert res["complete"], res["incomplete"]
        assert [r["database"] for r in res["runs"]] == ["mongodb", "postgres"]
        assert (rep / "report.md").exists() and (rep / "host.json").exists()
    # the two repetitions ran on different containers (fresh each time)
    ids = [json.loads((bench / f"repeat-{k}" / "postgres.phase.json").read_text())["container_id"] for k in (1, 2)]
    assert ids[0] != ids[1]


def test_repeat_summary_gives_mean_and_interval_of_every_figure(repeat_run):
    bench, proc = repeat_run
    res = json.loads((bench / "results.json").read_text())
    assert res["kind"] == "repeat" and res["repeat"] == 2 and res["complete"]
    reps = [json.loads((bench / f"repeat-{k}" / "results.json").read_text()) for k in (1, 2)]
    cpu = res["figures"]["postgres"]["per_doc.cpu_us"]
    values = [next(r for r in x["runs"] if r["database"] == "postgres")["per_doc"]["cpu_us"] for x in reps]
    assert cpu["values"] == values and cpu["n"] == 2
    assert cpu["mean"] == pytest.approx(sum(values) / 2)
    # user + system CPU advances in 10 ms ticks: two repetitions can count the same ticks, and then
    # their per-document figures differ only by the rounding of the marks' subtraction (1e-16), which
    # the summary counts as no spread (ci.py: relative 1e-12)
    if values[0] != pytest.approx(values[1], rel=1e-12, abs=0):
        assert cpu["ci"]["low"] <= cpu["mean"] <= cpu["ci"]["high"]
    else:
        assert cpu["ci"] is None and "identical values" in cpu["reason"], cpu
    ratio = res["ratios"]["mongodb/postgres"]["per_doc.cpu_us"]
    assert ratio["n"] == 2
    # the same holds for the ratio: both databases can count the same ticks in both repetitions, and
    # then the ratios have no spread, no interval and no verdict (null, with the reason)
    if ratio["values"][0] != pytest.approx(ratio["values"][1], rel=1e-12, abs=0):
        assert ratio["includes_no_difference"] in (True, False), ratio
    else:
        assert ratio["ci"] is None and ratio["includes_no_difference"] is None, ratio
        assert "identical values" in ratio["reason"], ratio
    report = (bench / "report.md").read_text()
    assert report.startswith("# bench-e2e-repeat: end-to-end test bench (REPEAT=2)")
    assert "## The answer" in report and "CPU (µs/doc)" in report
    # nothing of a plain bench's files at the top: those are the repetitions'
    assert not list(bench.glob("*.phase.json"))


def test_report_regenerates_a_repeat_bench(repeat_run):
    bench, _ = repeat_run
    (bench / "report.md").unlink()
    (bench / "repeat-1" / "report.md").unlink()
    p = subprocess.run([str(LAB_ROOT / "runme.sh"), "report", str(bench)], cwd=LAB_ROOT, env=lab_env(),
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    assert (bench / "report.md").exists() and (bench / "repeat-1" / "report.md").exists()


# The shipped storage-forms bench at small sizes: its own bench.env (the paired sweep, the load then
# the read-only run, DIGEST=documents), only the sizes and waits made small.
FORMS_SMALL = ["--set", "RECORDS=200", "--set", "OPS=100", "--set", "CLIENTS=2", "--set", "QUIET_S=0",
               "--set", "PERF_RECORD_S=0"]


def test_the_storage_forms_bench_gives_every_form_its_figures_and_equal_documents(workdir):
    """The sweep's mechanics (a bench folder per point, the series, the plots and the report) on the
    storage-forms question (issue 28, Dolgov's), as the shipped `storage-forms` bench asks it: the same
    documents stored as PostgreSQL jsonb, json and its relational table beside MySQL JSON and its
    relational table, each form's storage and CPU per document, and every document read back after
    the load and after the read-only run (DIGEST=documents) equal across every form at every point."""
    remove_project()
    bench = workdir / "storage-forms"
    bench.mkdir()
    (bench / "bench.env").write_text((LAB_ROOT / "storage-forms" / "bench.env").read_text())
    try:
        proc = runme(workdir, *FORMS_SMALL, str(bench), log="runme-storage-forms.log")
        assert proc.returncode == 0, proc.stderr[-3000:]
        check_storage_forms(bench)
    finally:
        remove_project()


FORM_PAIRS = [("jsonb", "json"), ("json", "json"), ("relational", "relational")]  # storage-forms/bench.env's SWEEP


def check_storage_forms(bench):
    sweep_dir = bench / "sweep-POSTGRES_FORM+MYSQL_FORM"
    digests, reads = {}, {}
    for pg, my in FORM_PAIRS:
        point = sweep_dir / f"POSTGRES_FORM={pg}+MYSQL_FORM={my}"
        # the point's forms are in its plan (what the clients read)
        values = json.loads((point / "plan.json").read_text())["settings"]["values"]
        assert (values["POSTGRES_FORM"], values["MYSQL_FORM"]) == (pg, my), values
        res = json.loads((point / "results.json").read_text())
        assert res["complete"], res["incomplete"]
        forms = {"postgres": pg, "mysql": my}
        assert sorted((r["database"], r["stage"]) for r in res["runs"]) == \
            [(db, st) for db in ("mysql", "postgres") for st in ("load", "run")], res["runs"]
        for run in res["runs"]:
            assert run["form"] == forms[run["database"]] and run["status"] == "ok", \
                (run["database"], run["stage"], run["status"], run.get("reason"))
            # count's own digest of what it read back: the independent side of the comparison
            count = json.loads((point / f"{run['phase']}.count.json").read_text())
            digests[(pg, my, run["database"], run["stage"])] = count["digest"]["sha256"]
            # the read-only run read by key OPS times per client (the clients' own result files)
            if run["stage"] == "run":
                reads[(pg, my, run["database"])] = sum(json.loads(f.read_text())["docs_ok"]
                                                       for f in (point / "clients").glob(f"{run['phase']}-client-*.json"))
    assert set(reads.values()) == {2 * 100}, reads
    # one set of documents across every form, point and stage (the run only reads)
    assert len(set(digests.values())) == 1, digests
    res = json.loads((sweep_dir / "results.json").read_text())
    labels = [f"{pg}, {my}" for pg, my in FORM_PAIRS]
    assert res["kind"] == "sweep" and res["values"] == labels, res["values"]
    assert res["categorical"] and res["complete"], res["incomplete"]
    # each form's storage and CPU per document, from its load phase; each read's CPU from the run's
    series = lambda name, figure: {s["value"]: s["mean"] for s in res["series"][name][figure]}  # noqa: E731
    storage = {db: series(f"{db}-load", "per_doc.storage_bytes") for db in ("postgres", "mysql")}
    cpu = {db: series(f"{db}-load", "per_doc.cpu_us") for db in ("postgres", "mysql")}
    read_cpu = {db: series(db, "per_op.cpu_us") for db in ("postgres", "mysql")}
    assert all(set(x[db]) == set(labels) for x in (storage, cpu, read_cpu) for db in x), (storage, cpu, read_cpu)
    # a relational row holds the values only: no key names, no jsonb header and offsets (10 x 100 B
    # values); every form stores at least the values
    assert 1000 < storage["postgres"]["relational, relational"] < storage["postgres"]["jsonb, json"], storage
    assert all(v > 1000 for db in storage.values() for v in db.values()), storage
    assert all(v > 0 for x in (cpu, read_cpu) for db in x.values() for v in db.values()), (cpu, read_cpu)
    compared = {c["stage"]: c for c in res["documents"]}
    assert set(compared) == {"load", "run"}, compared
    for c in compared.values():
        assert c["equal"] is True and c["keys_equal"] is True, c
        assert len(c["digests"]) == 6 and set(c["documents"].values()) == {200}, c
        assert set(c["digests"].values()) == set(digests.values()), (c["digests"], digests)
    print("storage-forms per document: " + "; ".join(
        f"{db} {v}: {storage[db][v]:.0f} B stored, {cpu[db][v]:.0f} us CPU, {read_cpu[db][v]:.0f} us per read"
        for db in storage for v in labels) + f"; every digest equal ({next(iter(digests.values()))[:12]})")
    assert "plots/categories.png" in res["plots"]
    assert (sweep_dir / "plots" / "categories.png").read_bytes()[:4] == b"\x89PNG"
    report = (sweep_dir / "report.md").read_text()
    assert "## Documents across the points" in report and "| load | 6 | 200 | equal on all 6 (digest" in report
    # the sweep wrote only into its own folder
    assert not (bench / "run.env").exists() and not (bench / "plan.json").exists()
    (sweep_dir / "report.md").unlink()
    p = subprocess.run([str(LAB_ROOT / "runme.sh"), "report", str(sweep_dir)], cwd=LAB_ROOT, env=lab_env(),
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    assert (sweep_dir / "report.md").exists()


def test_interrupted_repetition_keeps_the_finished_one_and_no_container(workdir):
    remove_project()
    # PostgreSQL alone: a repetition of one phase is enough to stop in the second
    bench = make_bench(workdir, "bench-e2e-repeat-stop", docs=100, perf_s=0, extra="DATABASES=postgres\nREPEAT=3\n")
    proc = subprocess.Popen([str(LAB_ROOT / "runme.sh"), "--no-branch", "--no-check", str(bench)], cwd=LAB_ROOT,
                            env=lab_env(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            stdin=subprocess.DEVNULL, start_new_session=True, preexec_fn=default_signals)
    lines = []
    try:
        deadline = time.monotonic() + 900
        second = False
        for line in proc.stdout:
            lines.append(line)
            second = second or "repetition 2 of 3" in line
            # in repetition 2's phase: a fixed sleep could land in its init, whose failure exits 1, not 130
            if (second and "postgres: phase starts" in line) or time.monotonic() > deadline:
                break
        time.sleep(2)
        os.killpg(proc.pid, signal.SIGINT)  # as a terminal's Ctrl-C
        rest, _ = proc.communicate(timeout=300)
        lines.append(rest)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    log = "".join(lines)
    (workdir / "runme-repeat-stop.log").write_text(log)
    try:
        assert proc.returncode == 130, log[-3000:]
        assert database_and_client_containers() == []
        first = json.loads((bench / "repeat-1" / "results.json").read_text())
        assert first["complete"], first["incomplete"]
        res = json.loads((bench / "results.json").read_text())  # summary of what finished, written on the way out
        assert res["kind"] == "repeat" and not res["complete"]
        # the summary holds the finished repetition's figures: its latency (from the clients' own
        # histograms, always there) and its CPU per document when the window had one (a short window
        # on a busy host may lack a cAdvisor sample: then absent in both, with the run's reason)
        pg_first = next(r for r in first["runs"] if r["database"] == "postgres")
        figs = res["figures"].get("postgres", {})
        assert figs["latency_ms.p50"]["values"][0] == pg_first["latency_ms"]["p50"], (sorted(figs), res.get("notes"))
        if pg_first["per_doc"]["cpu_us"] is not None:
            assert figs["per_doc.cpu_us"]["values"][0] == pg_first["per_doc"]["cpu_us"]
        else:
            assert (figs.get("per_doc.cpu_us") or {}).get("mean") is None, figs.get("per_doc.cpu_us")
        assert any(i.startswith("repeat-3: not run") for i in res["incomplete"])
        assert not (bench / "repeat-3").exists()
    finally:
        remove_project()


def database_and_client_containers():
    """Database and client containers of the test project still present (the monitoring may stay)."""
    out = []
    for cid in project_containers():
        svc = subprocess.run(["docker", "inspect", "-f", '{{index .Config.Labels "com.docker.compose.service"}}', cid],
                             capture_output=True, text=True).stdout.strip()
        if svc in ("mongodb", "postgres", "client"):
            out.append(f"{svc} {cid}")
    return out
