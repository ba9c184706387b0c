"""REPEAT and sweeps through ./runme.sh on the real lab: a REPEAT=2 bench (repeat-1, repeat-2, each a
complete bench folder, and the summary with its intervals), a 2-point sweep (one bench folder per
value and the sweep report with its plots), and a run interrupted in its second repetition, which
keeps the first and leaves no database or client container."""
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


def test_a_storage_forms_sweep_gives_its_report_and_compares_the_documents_across_forms(workdir):
    """The sweep's mechanics (a bench folder per value, the series, the plots and the report) on the
    storage-forms question (issue 28, Dolgov's): the same documents stored as PostgreSQL jsonb and as
    its relational table, each point's storage and CPU per document side by side, and every document
    read back (DIGEST=documents) equal across the two forms. PostgreSQL alone: the mechanics are the
    same for any number of databases (the REPEAT run above covers two; MySQL's relational form is the
    three-database e2e's)."""
    remove_project()
    # 10 fields of 100 characters: below PostgreSQL's ~2 KB TOAST threshold, so each form's storage is
    # its own rows, uncompressed (storage-forms/bench.env's documents)
    bench = make_bench(workdir, "bench-e2e-sweep", docs=100, perf_s=0,
                       extra="DATABASES=postgres\nDIGEST=documents\n")
    forms = ["jsonb", "relational"]
    try:
        proc = runme(workdir, *TINY, "--set", "FIELD_BYTES=100", "--sweep", f"POSTGRES_FORM={','.join(forms)}",
                     str(bench), log="runme-sweep.log")
        assert proc.returncode == 0, proc.stderr[-3000:]
        sweep_dir = bench / "sweep-POSTGRES_FORM"
        digests = {}
        for form in forms:
            point = sweep_dir / f"POSTGRES_FORM={form}"
            # the sweep's value is the point's form in its plan (what the clients read)
            plan = json.loads((point / "plan.json").read_text())
            assert plan["settings"]["given"]["POSTGRES_FORM"] == form and plan["settings"]["values"]["POSTGRES_FORM"] == form
            res = json.loads((point / "results.json").read_text())
            assert res["complete"], res["incomplete"]
            (run,) = res["runs"]
            assert run["form"] == form and run["status"] == "ok", (run["form"], run["status"], run.get("reason"))
            # count's own digest of what it read back, the independent side of the sweep's comparison
            digests[form] = json.loads((point / "postgres.count.json").read_text())["digest"]["sha256"]
        res = json.loads((sweep_dir / "results.json").read_text())
        assert res["kind"] == "sweep" and res["values"] == forms and res["categorical"] and res["complete"], res["incomplete"]
        storage = {s["value"]: s["mean"] for s in res["series"]["postgres"]["per_doc.storage_bytes"]}
        cpu = {s["value"]: s["mean"] for s in res["series"]["postgres"]["per_doc.cpu_us"]}
        # a relational row holds the values only: no key names, no jsonb header and offsets (10 x 100 B
        # values; jsonb adds about 150 B a document)
        assert 1000 < storage["relational"] < storage["jsonb"], storage
        assert all(v > 0 for v in cpu.values()), cpu
        (docs,) = res["documents"]
        assert docs["stage"] == "run" and docs["equal"] is True and docs["keys_equal"] is True, docs
        assert docs["digests"] == {f"{form}: postgres": digests[form] for form in forms}
        assert len(set(digests.values())) == 1 and docs["documents"] == {f"{f}: postgres": 2 * 100 for f in forms}
        print("storage forms sweep per document: " + ", ".join(
            f"{f} {storage[f]:.0f} B stored, {cpu[f]:.0f} us CPU" for f in forms) + f"; digests equal ({digests['jsonb'][:12]})")
        assert "plots/categories.png" in res["plots"]
        assert (sweep_dir / "plots" / "categories.png").read_bytes()[:4] == b"\x89PNG"
        report = (sweep_dir / "report.md").read_text()
        assert "## Documents across the points" in report and "| run | 2 | 200 | equal on all 2 (digest" in report
        # the sweep wrote only into its own folder
        assert not (bench / "run.env").exists() and not (bench / "plan.json").exists()
        (sweep_dir / "report.md").unlink()
        p = subprocess.run([str(LAB_ROOT / "runme.sh"), "report", str(sweep_dir)], cwd=LAB_ROOT, env=lab_env(),
                           capture_output=True, text=True, timeout=300)
        assert p.returncode == 0, p.stderr
        assert (sweep_dir / "report.md").exists()
    finally:
        remove_project()


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
