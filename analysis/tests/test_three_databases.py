"""Any set of databases (issue 17, docs/layout.md step 8): a bench of three databases, built from the
recorded fixtures (analysis/tests/three_db_fixture.py: postgres's files again as `mysql`, its CPU x2
and its storage x1.5), through results, report, plots, compare, REPEAT and a sweep; and the original
pair's outputs as they were."""
import copy
import json
import os
import shutil

import matplotlib.image
import numpy as np
import pytest

from analysis.common import databases
from analysis.figures import results
from analysis.render import report
from analysis.experiments import compare, figures, repeat, sweep
from analysis.tests.three_db_fixture import CPU_FACTOR, STORAGE_FACTOR, THIRD, add_third

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")


@pytest.fixture
def three(tmp_path):
    """bench2 (both databases ok, hardware counters) with a third database."""
    dst = tmp_path / "bench2"
    shutil.copytree(os.path.join(FIXTURES, "bench2"), dst)
    return add_third(str(dst))


def test_results_hold_every_database_and_its_ratio_against_the_baseline(three):
    res = results.write(three)
    assert [r["phase"] for r in res["runs"]] == ["mongodb", "postgres", THIRD]
    assert all(r["status"] == "ok" for r in res["runs"]) and res["complete"]
    by = {r["database"]: r for r in res["runs"]}
    # the pair's ratio as it was; the third database's against the baseline's denominator
    assert (res["ratios"]["numerator"], res["ratios"]["denominator"]) == ("mongodb", "postgres")
    assert res["ratios"]["cpu_us"] == pytest.approx(by["mongodb"]["per_doc"]["cpu_us"] / by["postgres"]["per_doc"]["cpu_us"])
    other = res["other_ratios"][f"{THIRD}/postgres"]
    assert (other["numerator"], other["denominator"]) == (THIRD, "postgres")
    assert other["cpu_us"] == pytest.approx(CPU_FACTOR, rel=1e-9)
    assert other["storage_bytes"] == pytest.approx(STORAGE_FACTOR, rel=1e-3)
    assert other["instructions"] == pytest.approx(1.0)  # not scaled: the copy's own figure
    assert "other_load_ratios" not in res  # the insert workload has no load stage


def test_report_has_a_column_per_database_and_per_ratio(three, tmp_path):
    res = results.write(three)
    report.run([three], str(tmp_path))
    text = open(os.path.join(three, "report.md")).read()
    head = "| per document | mongodb | postgres | mysql | mongodb/postgres | mysql/postgres |"
    assert head in text
    cpu_row = next(ln for ln in text.splitlines() if ln.startswith("| CPU (µs/doc) |"))
    assert cpu_row.endswith(f"| {res['ratios']['cpu_us']:.2f}x | 2.00x |")
    assert "mysql against postgres (mysql/postgres), per insert:" in text
    assert "- **storage per document**: mysql used **1.50x** the storage per document of postgres" in text
    top = (tmp_path / "report.md").read_text()
    assert "a further database's ratio is against postgres (X/postgres)" in top
    assert "| bench2 | **ratio mysql/postgres** | 2.00x |" in top
    for ph in ("mongodb", "postgres", THIRD):
        assert f"![{ph} over time](plots/timeseries-{ph}.png)" in text


def _has_colour(png, hex_colour):
    img = matplotlib.image.imread(png)[:, :, :3]
    want = np.array([int(hex_colour[i:i + 2], 16) / 255 for i in (1, 3, 5)])
    return bool((np.abs(img - want).max(axis=2) < 2 / 255).sum() > 500)


def test_plots_show_three_series_in_their_manifest_colours(three, tmp_path):
    results.write(three)
    report.run([three], str(tmp_path))
    colours = databases.colors()
    assert THIRD in colours  # read from databases/mysql although the lab does not run it yet
    for png in ("per_doc.png", "memory.png"):
        path = os.path.join(three, "plots", png)
        for db in ("mongodb", "postgres", THIRD):
            assert _has_colour(path, colours[db]), f"{png}: no {db} series ({colours[db]})"
    assert os.path.exists(os.path.join(three, "plots", f"timeseries-{THIRD}.png"))


def test_compare_two_three_database_runs(three, tmp_path):
    results.write(three)
    other = str(tmp_path / "x" / "bench2")
    shutil.copytree(three, other)
    path = os.path.join(other, "results.json")
    r = json.load(open(path))
    for run in r["runs"]:
        if run["database"] == THIRD:
            run["per_doc"]["cpu_us"] *= 1.2
    json.dump(r, open(path, "w"))
    rows, unmatched = compare.compare(compare.load(three), compare.load(other))
    assert {row["database"] for row in rows} == {"mongodb", "postgres", THIRD} and not unmatched
    cpu = {row["database"]: row for row in rows if row["figure"] == "cpu_us"}
    assert cpu[THIRD]["change_pct"] == pytest.approx(20.0) and cpu[THIRD]["beyond_noise"] is True
    assert cpu["postgres"]["change_pct"] == 0 and cpu["mongodb"]["change_pct"] == 0
    assert "| bench2 | mysql | CPU (µs/doc) |" in compare.run(three, other)


def _repeat_bench(root, three, cpu):
    """REPEAT=len(cpu) of the three-database bench; repetition i has CPU per document cpu[i] = (mongodb,
    postgres, mysql)."""
    base = results.build(three)
    bench = root / "bench9"
    bench.mkdir(parents=True)
    shutil.copy(os.path.join(three, "bench.env"), bench / "bench.env")
    (bench / "run.env").write_text(open(os.path.join(three, "run.env")).read() + f"REPEAT={len(cpu)}\n")
    for i, values in enumerate(cpu, 1):
        rep = bench / f"repeat-{i}"
        rep.mkdir()
        r = copy.deepcopy(base)
        r["bench"] = f"repeat-{i}"
        for run in r["runs"]:
            run["per_doc"]["cpu_us"] = dict(zip(("mongodb", "postgres", THIRD), values))[run["database"]]
        (rep / "results.json").write_text(json.dumps(r))
    return bench


def test_repeat_of_three_databases(three, tmp_path):
    bench = _repeat_bench(tmp_path, three, [(200.0, 100.0, 300.0), (220.0, 100.0, 330.0), (210.0, 105.0, 315.0)])
    res = repeat.write(str(bench))
    assert list(res["figures"]) == ["mongodb", "postgres", THIRD]
    assert list(res["ratios"]) == ["mongodb/postgres", f"{THIRD}/postgres"]
    assert res["ratios"]["mongodb/postgres"]["per_doc.cpu_us"]["values"] == pytest.approx([2.0, 2.2, 2.0])
    third = res["ratios"][f"{THIRD}/postgres"]["per_doc.cpu_us"]
    assert third["values"] == pytest.approx([3.0, 3.3, 3.0]) and third["includes_no_difference"] is False
    text = (bench / "report.md").read_text()
    assert "**mysql vs postgres**" in text and "mysql/postgres ratio" in text
    assert "| figure | mongodb (mean ± CI) | postgres (mean ± CI) | mysql (mean ± CI) |" in text


def test_sweep_of_three_databases(three, tmp_path):
    sweep_dir = tmp_path / "bench9" / "sweep-FIELD_BYTES"
    sweep_dir.mkdir(parents=True)
    base = results.build(three)
    for value, cpu in ((50, (100.0, 80.0, 160.0)), (200, (150.0, 100.0, 250.0))):
        point = sweep_dir / f"FIELD_BYTES={value}"
        point.mkdir()
        shutil.copy(os.path.join(three, "bench.env"), point / "bench.env")
        (point / "run.env").write_text(open(os.path.join(three, "run.env")).read() + f"FIELD_BYTES={value}\n")
        r = copy.deepcopy(base)
        for run in r["runs"]:
            run["per_doc"]["cpu_us"] = dict(zip(("mongodb", "postgres", THIRD), cpu))[run["database"]]
        (point / "results.json").write_text(json.dumps(r))
    res = sweep.write(str(sweep_dir))
    assert [s["mean"] for s in res["series"][THIRD]["per_doc.cpu_us"]] == [160.0, 250.0]
    assert [s["mean"] for s in res["ratios"][f"{THIRD}/postgres"]["per_doc.cpu_us"]] == pytest.approx([2.0, 2.5])
    assert [s["mean"] for s in res["ratios"]["mongodb/postgres"]["per_doc.cpu_us"]] == pytest.approx([1.25, 1.5])
    text = (sweep_dir / "report.md").read_text()
    assert "| 200 | 150 | 100 | 250 | 1.500x | 2.500x |" in text
    cpu_png = str(sweep_dir / "plots" / "cpu.png")
    for db in ("mongodb", "postgres", THIRD):
        assert _has_colour(cpu_png, databases.colors()[db]), f"sweep cpu.png: no {db} series"


def test_ratio_pairs_add_each_further_database_against_the_denominator():
    keys = ["mongodb-load", "mongodb", "postgres-load", "postgres", "mysql-load", "mysql"]
    assert figures.ratio_pairs(keys) == [("mongodb-load", "postgres-load"), ("mongodb", "postgres"),
                                         ("mysql-load", "postgres-load"), ("mysql", "postgres")]
    assert figures.ratio_pairs(["mongodb", "postgres"]) == [("mongodb", "postgres")]
    assert figures.ratio_pairs(["mysql", "mongodb"]) == []  # no denominator ran: no ratio


def test_the_third_database_is_known_by_its_manifest():
    """mysql's phases are read with its manifest's names (the lab runs it: databases.names())."""
    from analysis.figures import profile_samples
    assert THIRD in databases.names()
    assert profile_samples.server_comms(THIRD) == {"mysqld", "mariadbd"}
    assert databases.others(["mongodb", "postgres", THIRD, "postgres"]) == [THIRD]


def test_query_answers_are_compared_on_every_database():
    from analysis.figures import queries
    from analysis.tests.test_queries import query_run
    runs = [query_run("mongodb", "olap-a", ["a", "b", "c"], cpu_s=3.0), query_run("postgres", "olap-a", ["a", "b", "c"]),
            query_run(THIRD, "olap-a", ["a", "b", "c"], cpu_s=2.0)]
    q = queries.compare(runs)["olap-a"]
    assert q["status"] == "ok" and q["answers_equal"] is True
    assert q["ratio"]["cpu_us"] == 3.0 and q["other_ratios"][f"{THIRD}/postgres"]["cpu_us"] == 2.0
    text = "\n".join(queries.report_lines({"queries": {"olap-a": q}}))
    assert "|  | mongodb | postgres | mysql | mongodb/postgres | mysql/postgres |" in text
    assert "**answers equal** (same digest on all)" in text
    assert "| answer digest | `abc` | `abc` | `abc` | equal | equal |" in text
    # the pair agrees, the third does not: the comparison fails and says which database differs
    runs[2] = query_run(THIRD, "olap-a", ["a", "x", "c"], rows={1: [["repo-1", 9]]})
    q = queries.compare(runs)["olap-a"]
    assert q["status"] == "answers differ" and q["answers_equal"] is False and q["ratio"] is None
    assert q["differ"] == [THIRD] and "answers differ from postgres's on mysql, equal on mongodb" in q["reason"]
    assert q["first_difference"]["k"] == 1 and q["first_difference"][THIRD]["answer"] == [["repo-1", 9]]
    text = "\n".join(queries.report_lines({"queries": {"olap-a": q}}))
    # mongodb's answers equal postgres's, mysql's do not
    assert "| answer digest | `abc` | `abc` | `axc` | equal | differ |" in text and "mysql (1 rows, digest `x`)" in text
    # without the numerator: the third against the denominator alone
    q = queries.compare([runs[1], query_run(THIRD, "olap-a", ["a", "b", "c"], cpu_s=2.0)])["olap-a"]
    assert q["status"] == "ok" and q["ratio"] is None and q["other_ratios"][f"{THIRD}/postgres"]["cpu_us"] == 2.0


def test_stand_in_wording_and_fairness_columns_name_the_third_database(tmp_path):
    b = str(tmp_path / "bench1")
    shutil.copytree(os.path.join(FIXTURES, "ci-standin-run"), b)
    add_third(b)
    results.write(b)
    report.run([b], str(tmp_path))
    text = open(os.path.join(b, "report.md")).read()
    assert "ratios that involve them say nothing about MongoDB vs PostgreSQL vs MySQL." in text
    assert "| what | mongodb | postgres | mysql | aligned (mongodb, postgres) | note |" in text
    row = next(ln for ln in text.splitlines() if ln.startswith("| checkpoint interval |"))
    assert "| not stated yet (the lab reads no fairness settings of this database) |" in row


def test_transactions_answer_sets_the_third_database_against_the_denominator(tmp_path):
    from analysis.render import txn_report
    from analysis.tests import txn_fixture
    txn_fixture.build(str(tmp_path))
    res = results.build(str(tmp_path))
    pg = next(r for r in res["runs"] if r["database"] == "postgres")
    third = copy.deepcopy(pg)
    third.update(database=THIRD, phase=THIRD)
    for k in ("cpu_us_per_committed", "cpu_us_per_committed_net"):
        if third["transactions"].get(k):
            third["transactions"][k] *= 3
    res["runs"].append(third)
    text = "\n".join(txn_report.answer_lines(res))
    row = next(ln for ln in text.splitlines() if ln.startswith(f"| {THIRD} "))
    # not MongoDB's read concern, and not PostgreSQL's words either: MySQL's folder states what
    # ISOLATION means on InnoDB (its `transaction_isolation`, docs/contracts.md "A database's analysis hooks")
    assert "(SERIALIZABLE (REPEATABLE READ with every plain SELECT a locking read, FOR SHARE)) |" in row
    sentences = [ln for ln in text.splitlines() if ln.startswith("**CPU per committed transaction**")]
    assert len(sentences) == 2 and "mongodb" in sentences[0]
    assert f"{THIRD}{' (stand-in)' if third.get('stand_in') else ''} spent **3.00x** the CPU of postgres" in sentences[1]


def test_repeat_of_three_databases_keeps_each_query_ratio_with_its_interval():
    from analysis.figures import queries
    from analysis.tests.test_queries import query_run
    per_rep, figs = [], []
    for m_cpu, my_cpu in ((3.0, 2.0), (3.3, 2.2)):
        runs = [query_run("mongodb", "olap-a", ["a", "b", "c"], cpu_s=m_cpu), query_run("postgres", "olap-a", ["a", "b", "c"]),
                query_run(THIRD, "olap-a", ["a", "b", "c"], cpu_s=my_cpu)]
        for r in runs:
            r["per_op"] = {"cpu_us": r["query"]["per_query"]["cpu_us"]}
        per_rep.append({"queries": queries.compare(runs), "runs": runs})
    _, ratios, _ = repeat.summarise_results(per_rep)
    assert list(ratios) == ["mongodb-q-olap-a/postgres-q-olap-a", f"{THIRD}-q-olap-a/postgres-q-olap-a"]
    s = queries.repeat_summary(per_rep, ratios)["olap-a"]
    assert s["status"] == "ok" and s["ratio"]["cpu_us"]["values"] == pytest.approx([3.0, 3.3])
    assert s["other_ratios"][f"{THIRD}/postgres"]["cpu_us"]["values"] == pytest.approx([2.0, 2.2])
    text = "\n".join(queries.repeat_report_lines({"olap-a": s}))
    assert f"| olap-a ({THIRD}/postgres) | yes, yes | ok |" in text


def test_a_workload_with_a_load_stage_has_load_ratios_for_the_third_database(tmp_path):
    from analysis.tests import ycsb_fixture
    b = str(tmp_path / "ycsb")
    os.makedirs(b)
    ycsb_fixture.build(b)
    add_third(b)
    res = results.write(b)
    assert [r["phase"] for r in res["runs"]] == ["mongodb-load", "mongodb", "postgres-load", "postgres",
                                                 f"{THIRD}-load", THIRD]
    third = next(r for r in res["runs"] if r["phase"] == THIRD)
    # its counters have no semantics in analysis yet: said, not guessed with another server's
    assert third["status"] == "ok" and third["reconciliation"]["verdict"] == "unavailable"
    assert third["wal"]["bytes"] is None and third["wal"]["reason"]
    assert res["other_load_ratios"][f"{THIRD}/postgres"]["cpu_us"] == pytest.approx(CPU_FACTOR)
    assert res["other_load_ratios"][f"{THIRD}/postgres"]["storage_bytes"] == pytest.approx(STORAGE_FACTOR, rel=1e-3)
    assert res["other_ratios"][f"{THIRD}/postgres"]["per_op"]["cpu_us"] == pytest.approx(CPU_FACTOR)
    report.run([b], str(tmp_path / "out"))
    text = open(os.path.join(b, "report.md")).read()
    assert "mysql (stand-in) against postgres (stand-in) (mysql/postgres), per operation of the mix" in text
    assert "| mongodb/postgres (stand-in involved) | mysql/postgres (stand-in involved) |" in text


def test_the_pair_alone_gets_no_new_keys(tmp_path):
    """The original study's benches: results.json as before (no other_ratios), one ratio column."""
    b = str(tmp_path / "bench2")
    shutil.copytree(os.path.join(FIXTURES, "bench2"), b)
    res = results.write(b)
    assert "other_ratios" not in res and "other_load_ratios" not in res
    report.run([b], str(tmp_path))
    text = open(os.path.join(b, "report.md")).read()
    assert "| per document | mongodb | postgres | mongodb/postgres |" in text and "mysql" not in text
