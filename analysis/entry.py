"""The two moments the driver hands a bench folder to analysis, in-process: a phase finished (its
facts written into D.phase.json; lab/driver/phase.py `Phase.finish`) and a bench finished (every
planned phase run; lab/driver/bench.py `Bench.run`). Each runs the same steps as the CLI's commands
and writes the same files: a step that fails is said and the next one still runs.
Above every layer, beside the CLI (analysis/README.md "Layout")."""
import os

from .bench import folder, phase_status, phases, plan
from .collect import export
from .common.errors import AnalysisError
from .common.fileio import read_json, write_json_atomic
from .experiments import experiment_report
from .figures import results
from .render import flamegraph, report, summary

GZIP_OVER_BYTES = 20 * 1024 * 1024  # the CLI's --gzip-over-mb default


def _why(e):
    # an AnalysisError's message names the file and value; anything else is a fault: its type too
    return str(e) if isinstance(e, AnalysisError) else f"{type(e).__name__}: {e}"


def phase_finished(bench_dir, database, phase_id, prometheus_url, project=None, scrape_interval=1.0,
                   monitoring_host=None):
    """The phase's status decided from its facts (written into D.phase.json), then its window's
    metrics exported from Prometheus (D.metrics.json, timeseries/D.csv.gz). Returns (verdict: `ok` or
    `<status> (<reason>)`, or None when no status could be decided; the export's result or None;
    [what failed, one line each]). MONITORING_HOST: the context Prometheus runs on when the bench
    placed it (MONITORING_HOST): an export that fails is recorded in D.phase.json `metrics_export`
    with that host, for results.json's reason (figures/status.py)."""
    said, verdict, metrics = [], None, None
    path = os.path.join(bench_dir, f"{phase_id}.phase.json")
    if os.path.exists(path) and os.path.getsize(path):
        try:
            verdict = phase_status.complete(path)
        except Exception as e:  # noqa: BLE001  (the lab's bash goes on after any failed step)
            said.append(f"{phase_id}: no status: {_why(e)}")
    try:
        metrics = export.export(bench_dir, database, prometheus_url, project, scrape_interval, phase_id)
    except Exception as e:  # noqa: BLE001  (the lab's bash goes on after any failed step)
        said.append(f"{phase_id}: metrics export failed; the phase's other files are kept: {_why(e)}")
        if monitoring_host:
            said.extend(_record_export_failure(path, monitoring_host, prometheus_url, _why(e)))
    return verdict, metrics, said


def _record_export_failure(path, host, prometheus_url, why):
    """D.phase.json `metrics_export`: the monitoring host whose Prometheus did not answer, and why;
    [what failed] when the phase file cannot take it (the reason is then only said)."""
    try:
        doc = read_json(path)
        doc["metrics_export"] = {"host": host, "prometheus": prometheus_url, "reason": why}
        write_json_atomic(path, doc)
    except Exception as e:  # noqa: BLE001
        return [f"{os.path.basename(path)}: the export's failure could not be recorded: {_why(e)}"]
    return []


def bench_finished(bench_dir, lab_env=None, gzip_over_bytes=GZIP_OVER_BYTES):
    """results.json, a flame graph per phase that has a profile, report.md with its plots, and the
    summary lines. Returns (the summary lines or None, [what failed, one line each])."""
    said, lines = [], None
    try:
        results.write(bench_dir, lab_env)
    except Exception as e:  # noqa: BLE001  (the lab's bash goes on after any failed step)
        said.append(f"results.json could not be written: {_why(e)}")
    try:
        # one reading of the folder for both (results.json's own Bench is done: each step that
        # reads what an earlier one wrote reads the folder anew)
        bench = folder.Bench(bench_dir)
        planned = plan.phases(bench) or phases.phases_in(bench)
    except Exception as e:  # noqa: BLE001  (the lab's bash goes on after any failed step)
        planned = []
        said.append(f"no phases to draw flame graphs of: {_why(e)}")
    for phase_id in planned:
        profile = os.path.join(bench_dir, f"{phase_id}.perf")
        if os.path.exists(profile) and os.path.getsize(profile):
            try:
                flamegraph.run(profile, os.path.join(bench_dir, f"{phase_id}.svg"), None, gzip_over_bytes)
            except Exception as e:  # noqa: BLE001  (the lab's bash goes on after any failed step)
                said.append(f"{phase_id}: flame graph failed: {_why(e)}")
    try:
        plain, made = experiment_report.split([bench_dir])
        if plain or not made:
            report.run(plain, None)
    except Exception as e:  # noqa: BLE001  (the lab's bash goes on after any failed step)
        said.append(f"report failed: {_why(e)}")
    try:
        lines = summary.lines(bench_dir)
    except Exception as e:  # noqa: BLE001  (the lab's bash goes on after any failed step)
        said.append(f"summary failed: {_why(e)}")
    return lines, said
