"""plots.py on the exported time series: rates per series (device, interface) and a panel the host
cannot fill that says why (issue 25). Inputs are built from the recorded ci-standin-run fixture."""
import csv
import gzip
import io
import json
import os
import shutil

import matplotlib.pyplot as plt
import pytest

from analysis.figures import results
from analysis.render import plots

FIXTURE = os.path.join(os.path.dirname(__file__), "fixtures", "ci-standin-run")
RX = "container_network_receive_bytes_total"


def rows_of(path):
    with gzip.open(path, "rt") as f:
        return list(csv.DictReader(f))


def write_rows(path, rows, fields):
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=fields, lineterminator="\n")
    w.writeheader()
    w.writerows(rows)
    with gzip.open(path, "wt") as f:
        f.write(buf.getvalue())


ETH1_OFFSET = 5_000_000.0  # eth1's counter stands elsewhere: a sum without it drops by that much


def two_interfaces(tmp_path, drop_eth1_at):
    """The fixture's postgres series with its network over two interfaces, as export writes them:
    eth0 the recorded counter, eth1 half of it plus ETH1_OFFSET; one eth1 sample missing (a scrape
    without it)."""
    src = rows_of(os.path.join(FIXTURE, "timeseries", "postgres.csv.gz"))
    out = []
    for r in src:
        if r["metric"] == RX and r["service"] == "postgres":
            out.append({**r, "series": "eth0"})
            out.append({**r, "series": "eth1", "value": repr(float(r["value"]) / 2 + ETH1_OFFSET)})
        else:
            out.append({**r, "series": ""})
    db_rx = sorted(float(r["time"]) for r in src if r["metric"] == RX and r["service"] == "postgres")
    missing = f"{db_rx[drop_eth1_at]:.3f}"
    out = [r for r in out if not (r["series"] == "eth1" and r["metric"] == RX and r["time"] == missing)]
    path = tmp_path / "postgres.csv.gz"
    write_rows(path, out, ["time", "metric", "service", "container", "series", "value"])
    return path, src


def test_a_missed_sample_on_one_interface_is_no_spike_in_the_rate(tmp_path):
    path, src = two_interfaces(tmp_path, drop_eth1_at=8)
    start = min(float(r["time"]) for r in src)
    rates = plots._rates(plots.load_timeseries(path), RX, start)
    db = rates[rates.service == "postgres"]
    # the true rate: 1.5 times the recorded interface's; its highest one-second rate
    one = sorted((float(r["time"]), float(r["value"])) for r in src if r["metric"] == RX and r["service"] == "postgres")
    true_max = max((v1 - v0) / (t1 - t0) for (t0, v0), (t1, v1) in zip(one, one[1:]))
    assert db.rate.max() <= 1.5 * true_max * 1.001, db.rate.max()
    assert db.rate.min() >= 0


def test_old_exports_without_a_series_column_still_plot(tmp_path):
    path = os.path.join(FIXTURE, "timeseries", "postgres.csv.gz")
    assert "series" not in rows_of(path)[0]
    df = plots.load_timeseries(path)
    r = plots._rates(df, RX, df.time.min())
    assert (r[r.service == "postgres"].rate > 0).any()


@pytest.fixture
def standin_result(tmp_path):
    """The recorded stand-in run (this kind of host: cAdvisor exports no block I/O bytes for any
    container), its metrics with the disk_devices record today's export writes on this host."""
    bench = tmp_path / "ci-standin-run"
    shutil.copytree(FIXTURE, bench)
    for db in ("mongodb", "postgres"):
        path = bench / f"{db}.metrics.json"
        m = json.loads(path.read_text())
        m["disk_devices"] = {"counted": ["vda"], "series_devices": [], "excluded": [], "reason": None}
        path.write_text(json.dumps(m))
    return bench, results.build(str(bench))


def test_the_disk_panel_of_a_host_without_block_io_accounting_says_so(standin_result):
    bench, res = standin_result
    run = next(r for r in res["runs"] if r["database"] == "postgres")
    assert run["disk"]["write_bytes"] is None and "accounts no block I/O" in run["disk"]["reason"]
    fig = plots.timeseries_figure(res, run, os.path.join(bench, "timeseries", "postgres.csv.gz"))
    try:
        disk = fig.axes[2]
        assert disk.get_title() == "disk (database)"
        assert not disk.get_lines() and disk.get_legend() is None  # no empty lines under a legend
        said = " ".join(t.get_text() for t in disk.texts)
        assert "no block I/O" in said, said
        net = fig.axes[3]
        assert net.get_lines() and not net.texts  # the host's network series are drawn as before
    finally:
        plt.close(fig)


def test_the_per_document_disk_panel_says_why_it_is_empty(standin_result, tmp_path):
    _, res = standin_result
    fig = plots.per_doc_figure(res)
    try:
        disk = next(ax for ax in fig.axes if ax.get_title() == "disk bytes written per document")
        said = " ".join(t.get_text() for t in disk.texts)
        assert "no block I/O" in said, said
    finally:
        plt.close(fig)
