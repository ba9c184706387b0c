"""Transactions (WORKLOAD=booking, oltp): the clients' `transactions` merged into results.json, the
outcomes the lab passes to count, the nothing-lost check in results, reconciliation of MongoDB's
counters per booking, the report's opening answer and the fairness rows. Every expected figure is
computed here from the fixture's raw values (analysis/tests/txn_fixture.py), not by the code under test."""
import copy
import json
import os
import subprocess
import sys

import pytest
from hdrh.histogram import HdrHistogram

from analysis.figures import fairness, reconcile, results, schema, transactions
from analysis.render import answer, txn_report
from analysis.experiments import figures
from analysis.common.labels import fmt

from . import txn_fixture
from .txn_fixture import RAW


@pytest.fixture
def booking_bench(tmp_path):
    txn_fixture.build(str(tmp_path))
    return tmp_path


def _clients(db):
    return [(f"{db}-client-{i}.json", txn_fixture.client_result(db, i, c)) for i, c in enumerate(RAW[db], 1)]


def _percentile_ms(values_us, p):
    h = HdrHistogram(1, 60_000_000, 3)
    for v in values_us:
        h.record_value(v)
    return h.get_value_at_percentile(p) / 1000


def test_merge_sums_counts_merges_aborts_by_reason_and_the_last_attempt_histograms_exactly():
    m = transactions.merge(_clients("postgres"))
    assert (m["clients"], m["committed"], m["attempts"], m["retries"]) == (2, 58, 65, 7)
    assert m["aborts"] == {"deadlock_detected": 1, "serialization_failure": 6}
    assert m["aborted_attempts"] == 7
    assert m["retries_per_committed"] == pytest.approx(7 / 58)
    assert m["attempts_per_committed"] == pytest.approx(65 / 58)
    everything = RAW["postgres"][0]["last_us"] + RAW["postgres"][1]["last_us"]
    assert m["last_attempt_count"] == 58
    for k, p in (("p50", 50), ("p90", 90), ("p99", 99)):
        assert m["last_attempt_ms"][k] == pytest.approx(_percentile_ms(everything, p))
    # percentiles of the union are not an average of the clients' percentiles
    apart = [_percentile_ms(RAW["postgres"][i]["last_us"], 50) for i in (0, 1)]
    assert m["last_attempt_ms"]["p50"] != pytest.approx(sum(apart) / 2)
    # the settings the clients share, as they report them
    assert (m["isolation"], m["sessions"], m["retry"], m["max_attempts"]) == ("serializable", 3, "backoff", 10)


def test_merge_of_a_phase_without_transactions_is_none_and_disagreeing_settings_are_listed():
    assert transactions.merge([("a.json", {"workload": "ycsb"})]) is None
    a, b = _clients("postgres")
    b = (b[0], copy.deepcopy(b[1]))
    b[1]["transactions"]["sessions"] = 5
    assert transactions.merge([a, b])["sessions"] == [3, 5]


def test_outcomes_for_count_name_every_clients_transactions_and_need_every_client(booking_bench):
    doc, why = transactions.outcomes(_clients("mongodb"), 2, "mongodb")
    assert why is None
    assert doc == {"phase": "mongodb", "clients": [
        {"client_id": str(i), "workload": "booking", "key": "uuidv7", "seed": 7, "flights": 20, "day_range": 1,
         "committed_indices": [[0, c["committed"] - 1]], "in_doubt_indices": []} for i, c in enumerate(RAW["mongodb"], 1)]}
    doc, why = transactions.outcomes(_clients("mongodb")[:1], 2, "mongodb")
    assert doc is None and "1 of 2 client result files" in why
    out = booking_bench / "postgres.txn-outcomes.json"
    r = subprocess.run([sys.executable, "-m", "analysis", "txn-outcomes", "--bench-dir", str(booking_bench), "--phase",
                        "postgres", "--clients", "2", "--out", str(out)], capture_output=True, text=True, cwd=_root())
    assert r.returncode == 0 and r.stderr == "", r.stderr
    written = json.loads(out.read_text())
    assert [c["committed_indices"] for c in written["clients"]] == [[[0, 29]], [[0, 27]]]
    # a client result missing: no file (an older one removed), the reason on stderr
    os.remove(booking_bench / "clients" / "postgres-client-2.json")
    r = subprocess.run([sys.executable, "-m", "analysis", "txn-outcomes", "--bench-dir", str(booking_bench), "--phase",
                        "postgres", "--clients", "2", "--out", str(out)], capture_output=True, text=True, cwd=_root())
    assert r.returncode == 0 and not out.exists() and "committed bookings unknown" in r.stderr


def _root():
    return os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_results_hold_the_transactions_with_cpu_per_committed_and_validate(booking_bench):
    res = results.build(str(booking_bench))
    schema.validate(res)
    by_db = {r["database"]: r for r in res["runs"]}
    pg = by_db["postgres"]
    t = pg["transactions"]
    cpu_s = pg["cpu"]["user_s"] + pg["cpu"]["system_s"]
    assert t["committed"] == 58 and t["cpu_us_per_committed"] == pytest.approx(cpu_s * 1e6 / 58)
    assert t["offered_per_s"] == 20
    # while the clients ran (30 in 3.0 s + 28 in 3.5 s), not over the window with its guard seconds
    assert t["committed_per_s"] == pytest.approx(30 / 3.0 + 28 / 3.5) and t["committed_per_s_reason"] is None
    assert t["committed_per_s"] > 58 / pg["window"]["seconds"]
    assert pg["booking_check"]["ok"] and pg["docs_expected_in_db"] == 58 == pg["docs_in_db"]
    assert by_db["mongodb"]["transactions"]["commit_retries"] == 1
    # the booking is one operation type: per_op is per committed booking, per_doc's insert costs are null
    assert pg["per_op"]["op"] == "booking" and pg["per_op"]["ops"] == 58
    assert pg["per_doc"]["cpu_us"] is None
    assert res["complete"], res["incomplete"]
    # the sweep/repeat figures carry the transaction figures
    f = figures.of_run(pg)
    assert f["transactions.retries_per_committed"] == pytest.approx(7 / 58)
    assert "transactions.cpu_us_per_committed" in figures.headline(list(f))


def test_cpu_per_committed_net_of_idle_beside_gross_and_null_with_the_reason(booking_bench):
    """The transactions' own CPU: the window's nanosecond counter net of the idle rate (as queries have it),
    over the committed transactions; gross stays beside it. Without the reading: null, saying why."""
    path = booking_bench / "postgres.metrics.json"
    m = json.loads(path.read_text())
    m["cpu_usage"] = {"metric": "container_cpu_usage_seconds_total", "gross_s": 0.30, "span_s": 10.0,
                      "idle": {"rate_cores": 0.01, "seconds": 4.0, "pairs": 3, "reason": None},
                      "net_s": 0.20, "reason": None}
    path.write_text(json.dumps(m))
    res = results.build(str(booking_bench))
    schema.validate(res)
    by_db = {r["database"]: r for r in res["runs"]}
    pg, mg = by_db["postgres"]["transactions"], by_db["mongodb"]["transactions"]
    assert pg["cpu_us_per_committed_net"] == pytest.approx(0.20 * 1e6 / 58) and pg["cpu_net_reason"] is None
    assert pg["cpu_us_per_committed"] != pg["cpu_us_per_committed_net"]
    assert mg["cpu_us_per_committed_net"] is None and mg["cpu_net_reason"] == "no cpu_usage in the metrics export"
    # the report says which figure it compares: one side has no net figure, so both are gross
    lines = "\n".join(txn_report.answer_lines(res))
    assert "CPU µs / committed tx, net / gross" in lines
    assert "(gross)" in lines and "mongodb: no cpu_usage in the metrics export" in lines
    assert "transactions.cpu_us_per_committed_net" in figures.headline(list(figures.of_run(by_db["postgres"])))


def test_a_failed_nothing_lost_check_fails_the_phase_and_the_run(tmp_path):
    """Client 1's booking 7 is not in PostgreSQL's tables (seat, payment and audit all without it, so
    every count agrees): the client's own check names it, and results fail the phase with that."""
    txn_fixture.build(str(tmp_path), ok=False)
    res = results.build(str(tmp_path))
    pg = next(r for r in res["runs"] if r["database"] == "postgres")
    check = pg["booking_check"]
    assert check["seats"] == check["payments"] == check["audit_seats"] == 57 and check["committed"] == 58
    assert check["lost_count"] == 1 and [(b["client_id"], b["i"]) for b in check["lost"]] == [("1", 7)]
    assert pg["status"] == "failed" and pg["reason"].startswith(
        "nothing-lost check failed: committed bookings lost: 1 (client 1 booking 7 id "), pg["reason"]
    assert not res["complete"] and any("nothing-lost check failed" in x for x in res["incomplete"])


def test_a_nothing_lost_check_that_looked_for_no_booking_does_not_make_the_run_complete(booking_bench):
    """count ran without the clients' outcomes (TXN_OUTCOMES): its check passes on consistent tables
    but looked for no booking; results say so rather than pass its `ok` through."""
    from types import SimpleNamespace
    from analysis.render import check
    path = booking_bench / "postgres.count.json"
    count = json.loads(path.read_text())
    count["booking_check"] = txn_fixture.booking_check("postgres", blind=True)
    assert count["booking_check"]["ok"] and count["booking_check"]["committed"] is None
    path.write_text(json.dumps(count))
    res = results.build(str(booking_bench))
    schema.validate(res)
    pg = next(r for r in res["runs"] if r["database"] == "postgres")
    assert not res["complete"]
    assert ("postgres: count's nothing-lost check ran without the clients' outcomes (TXN_OUTCOMES): no booking was "
            "looked for by id") in res["incomplete"]
    assert check.check_documents(SimpleNamespace(run=pg)).state == check.MISSING
    # a check made against other results (one client's bookings fewer) does not speak for these
    other = txn_fixture.booking_check("postgres")
    other.update(committed=30)
    count["booking_check"] = other
    path.write_text(json.dumps(count))
    res = results.build(str(booking_bench))
    assert any("looked for 30 committed and 0 in-doubt bookings, the client results hold 58 and 0" in x
               for x in res["incomplete"]), res["incomplete"]


def test_the_report_opens_with_the_answer_per_isolation_level(booking_bench):
    res = results.build(str(booking_bench))
    lines = answer.answer_lines(res)
    assert lines[:3] == ["## The answer", "", "### Transactions (booking) per isolation level"]
    text = "\n".join(lines)
    pg = next(r for r in res["runs"] if r["database"] == "postgres")
    # (the recorded fixture's PostgreSQL was the lab's stand-in image)
    row = next(x for x in lines if x.startswith("| postgres (stand-in) (SERIALIZABLE) |"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[2] == "20"  # offered tx/s
    # net of idle / gross: the recorded fixture has no cpu_usage export, so no net figure
    assert cells[4] == f"n/a / {(pg['cpu']['user_s'] + pg['cpu']['system_s']) * 1e6 / 58:,.0f}"
    assert cells[5] == f"{7 / 58:.3g}"
    lat = _percentile_ms(RAW["postgres"][0]["latency_us"] + RAW["postgres"][1]["latency_us"], 50)
    assert cells[6].startswith(f"{lat:.3g} / ")
    last = _percentile_ms(RAW["postgres"][0]["last_us"] + RAW["postgres"][1]["last_us"], 99)
    assert cells[7].endswith(f" / {last:.3g}")
    assert cells[8] == "deadlock_detected 1, serialization_failure 6"
    assert cells[10] == "yes: seats 58 = payments 58, committed 58"
    assert "| mongodb (stand-in) (snapshot read concern, majority write concern) |" in text
    assert "**CPU per committed transaction** (gross):" in text


def test_fairness_states_isolation_retries_and_sessions():
    rows = {r["what"]: r for r in fairness.statements(
        {"mongodb": {"command": ["mongod", "--replSet", "rs0"]}, "postgres": {"command": ["postgres"]}},
        {"WORKLOAD": "booking", "ISOLATION": "serializable", "RETRY": "immediate", "MAX_ATTEMPTS": "7", "SESSIONS": "2"})}
    iso = rows["transaction isolation"]
    assert iso["postgres"] == "SERIALIZABLE (ISOLATION=serializable)" and not iso["aligned"]
    assert iso["mongodb"].startswith("snapshot read concern, majority write concern")
    assert "RETRY=immediate, MAX_ATTEMPTS=7" in rows["retries"]["postgres"]
    assert "immediate: no delay" in rows["retries"]["note"]
    assert rows["sessions per client"]["mongodb"] == "SESSIONS=2 connections, one session each"
    rr = {r["what"]: r for r in fairness.statements({"postgres": {"command": ["postgres"]}},
                                                    {"WORKLOAD": "oltp", "ISOLATION": "repeatable-read"})}
    assert rr["transaction isolation"]["aligned"] and rr["transaction isolation"]["mongodb"] == "not run in this bench"
    assert "transaction isolation" not in {r["what"] for r in fairness.statements({}, {"WORKLOAD": "ycsb"})}
    # the stand-in's service has an entrypoint, no command list: it still ran the transactions
    si = {r["what"]: r for r in fairness.statements({"mongodb": {"labels": {"jsonbench.stand_in": "SecantusDB 0.7.0b3"}}},
                                                    {"WORKLOAD": "booking"})}
    assert si["transaction isolation"]["mongodb"] == ("snapshot read concern, majority write concern, on a one-member "
                                                      "replica set (as the stand-in SecantusDB 0.7.0b3 implements it)")


def _mongod_readings(server, deltas, sessions_stmts=4):
    start = {"server": server, "taken_at": 1000.0, "counters": {
        "opcounters_insert": 100, "opcounters_query": 50, "opcounters_getmore": 0, "opcounters_update": 10,
        "opcounters_delete": 0, "opcounters_command": 500, "connections_current": 3, "connections_total_created": 40},
        "commands": {"count": 0, "distinct": 0, "aggregate": 0}, "unavailable": {},
        "reading": {"connections": 1, "statements": 2}, "run_session": {"statements": sessions_stmts}}
    end = json.loads(json.dumps(start))
    end["taken_at"] = 1030.0
    for k, v in deltas.items():
        end["counters"][k] += v
    return {"start": start, "end": end}


MONGOD = {"name": "mongod", "version": "8.0.4"}


def test_mongod_counters_per_booking_reconcile_and_foreign_reads_are_caught():
    clients = [c for _, c in _clients("mongodb")]  # 60 committed, 10 aborted attempts, 1 commit retry, 6 sessions
    sessions = 6
    # exactly the bookings' work: 2 inserts per attempt (the 10 aborted ones' refused at the audit
    # upsert), an aggregate (query on 8.0), an upsert and a commit per committed booking; the
    # sessions' set-up (4 each), the start reading (2), 3 connections per session + the reading
    deltas = {"opcounters_insert": 140, "opcounters_query": 60, "opcounters_update": 60,
              "opcounters_command": sessions * 4 + 2 + 60 + 1, "connections_total_created": 3 * (sessions + 1)}
    rec = reconcile.reconcile("mongodb", _mongod_readings(MONGOD, deltas), clients)
    assert rec["verdict"] == "ok", rec["reasons"]
    c = rec["checks"]
    assert (c["inserts"]["expected"], c["reads"]["expected"], c["other_writes"]["expected"]) == (140, 60, 60)
    # mongod may or may not count the 10 refused upserts: tolerated, not expected
    assert c["other_writes"]["tolerance"] >= 10 and c["inserts"]["tolerance"] == 0
    assert c["commands"]["expected"] == sessions * 4 + 2 + 61
    assert c["connections_created"]["expected"] == 3 * (sessions + 1)
    foreign = dict(deltas, opcounters_query=60 + 10 + 50)  # 50 finds nobody in the lab sent
    rec = reconcile.reconcile("mongodb", _mongod_readings(MONGOD, foreign), clients)
    assert rec["verdict"] == "suspect" and any(r.startswith("reads 120 > expected 60") for r in rec["reasons"])


def test_on_secantus_the_booking_counters_that_mean_something_else_are_null_with_the_reason():
    clients = [c for _, c in _clients("mongodb")]
    sec = {"name": "secantus", "version": "8.2.11"}
    rec = reconcile.reconcile("mongodb", _mongod_readings(sec, {"opcounters_insert": 140, "opcounters_update": 70,
                                                                "opcounters_command": 200,
                                                                "connections_total_created": 21}), clients)
    c = rec["checks"]
    # it counts insert commands, not documents: a booking's are insertOne, so they count; refused writes
    # count too (measured), so the 10 refused audit upserts are expected
    assert c["inserts"]["verdict"] == "ok" and c["inserts"]["expected"] == 140 and c["inserts"]["tolerance"] == 0
    assert c["reads"]["verdict"] == "unavailable" and "aggregates under opcounters.command" in c["reads"]["reason"]
    assert c["commands"]["verdict"] == "unavailable"
    assert c["other_writes"]["verdict"] == "ok" and c["other_writes"]["expected"] == 70
    # a client result from before transactions.writes: inserts cannot be told from insertMany's
    older = [dict(x, transactions={k: v for k, v in x["transactions"].items() if k != "writes"}) for x in clients]
    c = reconcile.reconcile("mongodb", _mongod_readings(sec, {"opcounters_update": 60}), older)["checks"]
    assert c["inserts"]["verdict"] == "unavailable" and "not documents" in c["inserts"]["reason"]
    oltp = [dict(x, workload="oltp") for x in clients]
    c = reconcile.reconcile("mongodb", _mongod_readings(MONGOD, {}), oltp)["checks"]
    assert all(c[k]["verdict"] == "unavailable" and "WORKLOAD=oltp" in c[k]["reason"]
               for k in ("inserts", "reads", "other_writes", "commands"))


def test_the_check_shows_commits_retries_and_cpu_and_a_failed_nothing_lost_check_as_missing(tmp_path):
    from types import SimpleNamespace
    from analysis.render import check
    txn_fixture.build(str(tmp_path), ok=False)
    res = results.build(str(tmp_path))
    by_db = {r["database"]: SimpleNamespace(run=r) for r in res["runs"]}
    cell = check.check_transactions(by_db["mongodb"])
    assert cell.state == check.OK and cell.text.startswith("60 committed, 0.17 retries each")
    assert check.check_documents(by_db["mongodb"]).state == check.OK
    lost = check.check_documents(by_db["postgres"])
    assert lost.state == check.MISSING and "committed bookings lost: 1 (client 1 booking 7 id" in lost.text
    none = dict(by_db["postgres"].run, transactions=None)
    assert check.check_transactions(SimpleNamespace(run=none)).state == check.NOT_CHECKED


def test_the_study_grid_is_a_sweep_isolation_as_categories_and_clients_as_numbers():
    """`--sweep ISOLATION=...` and `--sweep CLIENTS=...` against the client's own bench keys (as
    lab/driver/request.py bench_key_specs gives them to sweep_args)."""
    from analysis.experiments import sweep_args
    from analysis.common.errors import AnalysisError
    from lab.driver.request import bench_key_specs
    specs = bench_key_specs(str(_root()))
    assert sweep_args.parse("ISOLATION=read-committed,repeatable-read,serializable", specs) == (
        "ISOLATION", ["read-committed", "repeatable-read", "serializable"])
    assert sweep_args.parse("CLIENTS=2,4,8", specs) == ("CLIENTS", ["2", "4", "8"])
    with pytest.raises(AnalysisError, match="'snapshot' is not a value of ISOLATION; ISOLATION takes"):
        sweep_args.parse("ISOLATION=read-committed,snapshot", specs)


def test_an_isolation_sweep_gives_the_transaction_figures_per_isolation_level(tmp_path):
    """`--sweep ISOLATION=read-committed,serializable` over two booking points: the sweep's series
    hold CPU per committed transaction and retries per committed transaction at each level, in the
    order given, as each point's results.json has them."""
    from analysis.experiments import sweep
    sweep_dir = tmp_path / "txn-booking" / "sweep-ISOLATION"
    sweep_dir.mkdir(parents=True)
    (sweep_dir / "values").write_text("serializable\nread-committed\n")
    want = {}
    for iso in ("serializable", "read-committed"):
        point = sweep_dir / f"ISOLATION={iso}"
        txn_fixture.build(str(point))
        env = (point / "run.env").read_text().replace("ISOLATION=serializable", f"ISOLATION={iso}")
        (point / "run.env").write_text(env)
        (point / "bench.env").write_text(env)
        res = results.build(str(point))
        pg = next(r for r in res["runs"] if r["database"] == "postgres")
        if iso == "read-committed":  # fewer conflicts at READ COMMITTED in this made-up point
            pg["transactions"]["retries_per_committed"] = 1 / 58
        want[iso] = (pg["transactions"]["cpu_us_per_committed"], pg["transactions"]["retries_per_committed"])
        (point / "results.json").write_text(json.dumps(res))
    out = sweep.write(str(sweep_dir))
    assert out["values"] == ["serializable", "read-committed"] and out["categorical"] is True
    cpu = out["series"]["postgres"]["transactions.cpu_us_per_committed"]
    retries = out["series"]["postgres"]["transactions.retries_per_committed"]
    assert [(p["value"], p["mean"]) for p in cpu] == [(v, want[v][0]) for v in ("serializable", "read-committed")]
    assert [(p["value"], p["mean"]) for p in retries] == [(v, want[v][1]) for v in ("serializable", "read-committed")]
    # the sweep's report opens with the transaction figures per isolation level
    report = (sweep_dir / "report.md").read_text()
    answer = report[report.index("## The answer"):].splitlines()
    first = [x for x in answer if x.startswith("- ")][:2]
    assert first[0].startswith("- committed transactions/s, ISOLATION serializable -> read-committed:"), first
    # no net-of-idle figure in the recorded fixture (no cpu_usage export): the gross one comes next
    assert first[1].startswith("- CPU (µs/committed transaction, gross), ISOLATION serializable -> read-committed:"), first


def test_the_study_grid_isolation_x_clients_is_one_sweep_folder_with_a_table_per_point(tmp_path):
    """Two --sweep keys make a grid (lab/driver/experiments.py: sweep-ISOLATION+CLIENTS/ISOLATION=<v>+CLIENTS=<w>/,
    the first key slowest): every point is a category "v, w" in the order given, and the report opens
    with one row per point and database (committed/s, CPU and retries per committed transaction, latency)
    taken from each point's own results.json."""
    from analysis.experiments import sweep
    sweep_dir = tmp_path / "txn-booking" / "sweep-ISOLATION+CLIENTS"
    sweep_dir.mkdir(parents=True)
    order = [("read-committed", 2), ("read-committed", 8), ("serializable", 2), ("serializable", 8)]
    (sweep_dir / "values").write_text("".join(f"{i}+{c}\n" for i, c in order))
    (sweep_dir / "ISOLATION=bogus").mkdir()  # not a point of this grid: ignored
    want = {}
    for n, (iso, clients) in enumerate(order):
        point = sweep_dir / f"ISOLATION={iso}+CLIENTS={clients}"
        txn_fixture.build(str(point))
        env = (point / "run.env").read_text().replace("ISOLATION=serializable", f"ISOLATION={iso}") \
            .replace("CLIENTS=2", f"CLIENTS={clients}")
        (point / "run.env").write_text(env)
        (point / "bench.env").write_text(env)
        res = results.build(str(point))
        pg = next(r for r in res["runs"] if r["database"] == "postgres")
        pg["transactions"]["committed_per_s"] = 10.0 + n  # tells the points apart in the table
        want[f"{iso}, {clients}"] = (pg["transactions"]["committed_per_s"], pg["transactions"]["cpu_us_per_committed"])
        (point / "results.json").write_text(json.dumps(res))
    out = sweep.write(str(sweep_dir))
    assert out["key"] == "ISOLATION+CLIENTS" and out["categorical"] is True
    assert out["values"] == ["read-committed, 2", "read-committed, 8", "serializable, 2", "serializable, 8"]
    assert [p["folder"] for p in out["points"]] == [f"ISOLATION={i}+CLIENTS={c}" for i, c in order]
    assert out["description"].endswith("grid of ISOLATION x CLIENTS over read-committed, 2; read-committed, 8; "
                                       "serializable, 2; serializable, 8")
    got = {p["value"]: p["mean"] for p in out["series"]["postgres"]["transactions.committed_per_s"]}
    assert got == {v: w[0] for v, w in want.items()}
    report = (sweep_dir / "report.md").read_text()
    answer = report[report.index("## The answer"):]
    assert answer.splitlines()[2] == "### Transactions per ISOLATION, CLIENTS"
    table = answer[answer.index("### Transactions per"):].split("\n\n")[2].splitlines()
    rows = [x for x in table if "| postgres |" in x]
    assert len(table) == 2 + 8, table  # heading, rule, 4 points x 2 databases
    assert [r.split(" | ")[0][2:] for r in rows] == list(want)
    for row, (v, (committed, cpu)) in zip(rows, want.items()):
        cells = row.split(" | ")
        # CPU net of idle (none in the recorded fixture: no cpu_usage export), then gross
        assert cells[2] == fmt(20) and cells[3] == fmt(committed) and cells[4] == "n/a" and cells[5] == fmt(cpu), row
    # a grid has no first and last value: each ratio is given at every point
    assert "- committed transactions/s, mongodb/postgres by ISOLATION, CLIENTS: read-committed, 2: " in answer
    assert "One complete bench per combination of ISOLATION and CLIENTS (folders `ISOLATION=<value>+CLIENTS=<value>/`)" in report
    assert "[ISOLATION=serializable+CLIENTS=8/report.md](ISOLATION=serializable+CLIENTS=8/report.md)" in report
    for p in out["plots"]:
        assert (sweep_dir / p).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_client_result_without_elapsed_s_gives_no_committed_rate_and_says_why():
    c = txn_fixture.client_result("postgres", 1, RAW["postgres"][0])
    del c["elapsed_s"]
    t = transactions.with_costs(transactions.merge([("clients/postgres-client-1.json", c)]), 0.5, 10)
    assert t["committed_per_s"] is None
    assert t["reason"] == "committed_per_s: clients/postgres-client-1.json: no elapsed_s in the client result"
