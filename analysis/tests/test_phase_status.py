"""A phase's status decided from the facts the lab records in D.phase.json (analysis/bench/phase_status.py):
one test per rule, with the reason texts the lab wrote when it decided in bash; the CLI the lab
calls (`phase-status`, `nothing-lost`); the schema (lab/phase.schema.json) refusing a wrong file,
naming the file and the key, where the lab's file is completed and where analysis reads one."""
import json
import os
import shutil

import pytest

from analysis.bench import phase_status
from analysis.__main__ import main
from analysis.common.errors import AnalysisError

FIXTURES = os.path.join(os.path.dirname(__file__), "fixtures")


def facts(**changes):
    f = {"client_exit_codes": [0, 0], "wait": {"expected_s": 18, "limit_s": 156, "timed_out": False},
         "lab_error_exit_code": None,
         "database": {"state": "running", "exit_code": None, "restarted_for_check": False},
         "count": {"outcome": "ok", "problems": None}, "interrupted": False}
    for key, value in changes.items():
        if isinstance(value, dict):
            f[key] = {**f[key], **value}
        else:
            f[key] = value
    return f


def decide(missing=(), **changes):
    return phase_status.decide(facts(**changes), list(missing))


def test_nothing_wrong_is_ok_with_no_reason():
    assert decide() == ("ok", "")


def test_wait_timed_out_fails_with_the_limit_and_the_expected_time():
    assert decide(wait={"timed_out": True}) == (
        "failed", "clients still running after 156s (expected 18s): stopped")


def test_a_client_exiting_non_zero_fails_naming_the_first_one():
    assert decide(client_exit_codes=[0, 137, 1]) == ("failed", "client-2 exited with code 137")


def test_an_unknown_exit_code_is_said_unknown():
    assert decide(client_exit_codes=[None, 0]) == ("failed", "client-1 exited with code unknown")


def test_a_timeout_is_not_replaced_by_the_stopped_clients_exit_codes():
    assert decide(wait={"timed_out": True}, client_exit_codes=[143, 143])[1].startswith("clients still running")


def test_runme_error_with_the_phase_open_fails_it_over_a_timeout():
    assert decide(lab_error_exit_code=1, wait={"timed_out": True}, client_exit_codes=[3]) == (
        "failed", "runme.sh stopped on an error (exit code 1)")


def test_database_stopped_fails_whatever_the_clients_say():
    assert decide(client_exit_codes=[1, 0], database={"state": "stopped", "exit_code": 137}) == (
        "failed", "the database container stopped during the phase (exit code 137)")


def test_database_restarted_during_the_phase_fails_it():
    assert decide(database={"state": "restarted"}) == ("failed", "the database container restarted during the phase")


def test_database_gone_fails_it():
    assert decide(database={"state": "gone"}) == ("failed", "the database container disappeared during the phase")


def test_restart_for_the_nothing_lost_check_is_added_to_the_reason():
    assert decide(database={"state": "stopped", "exit_code": 137, "restarted_for_check": True}) == (
        "failed", "the database container stopped during the phase (exit code 137); "
                  "restarted after the window for the nothing-lost check")


def test_an_interrupt_overrides_every_failure():
    assert decide(interrupted=True, client_exit_codes=[1], database={"state": "stopped", "exit_code": 0}) == (
        "interrupted", "interrupted by a signal")


def test_missing_result_files_fail_an_otherwise_ok_phase_naming_them():
    assert decide(missing=[1, 3]) == ("failed", "no result file from client(s) 1 3")


def test_missing_result_files_do_not_replace_an_earlier_reason():
    assert decide(missing=[2], client_exit_codes=[0, 137]) == ("failed", "client-2 exited with code 137")


def test_failed_nothing_lost_check_fails_an_ok_phase_with_its_problems():
    assert decide(count={"outcome": "check_failed", "problems": ["2 bookings lost", "seat 3 twice"]}) == (
        "failed", "nothing-lost check failed: 2 bookings lost; seat 3 twice")
    assert decide(count={"outcome": "check_failed", "problems": []}) == (
        "failed", "nothing-lost check failed: (no problem listed)")


def test_failed_nothing_lost_check_does_not_replace_an_interrupt():
    assert decide(interrupted=True, count={"outcome": "check_failed", "problems": ["x"]})[0] == "interrupted"


def test_a_failed_count_leaves_an_insert_phase_ok_for_the_completeness_check():
    # an insert workload's figures stand without the count: results.json's completeness names it
    assert decide(count={"outcome": "failed"}) == ("ok", "")


def test_a_failed_count_fails_a_transaction_phase():
    """booking/oltp (the plan's workload `transactions`): the count is the phase's correctness check
    (nothing lost, the rows there); without it the phase's figures are not known to be of work done."""
    assert phase_status.decide(facts(count={"outcome": "failed"}), [], count_checks=True) == (
        "failed", phase_status.COUNT_FAILED)
    assert "correctness check" in phase_status.COUNT_FAILED
    # an earlier verdict keeps its reason; a count that ran leaves the phase ok
    assert phase_status.decide(facts(count={"outcome": "failed"}, client_exit_codes=[0, 3]), [], count_checks=True) == (
        "failed", "client-2 exited with code 3")
    assert phase_status.decide(facts(), [], count_checks=True) == ("ok", "")


def test_phase_status_of_a_booking_phase_whose_count_failed_is_failed(tmp_path, capsys):
    """The CLI the lab calls reads the workload's facts from the folder's plan.json (written by the real
    `node client plan --json`)."""
    from . import txn_fixture
    from .test_plan import write_plan
    txn_fixture.build(str(tmp_path))
    write_plan(str(tmp_path))
    path = lab_phase_file(tmp_path, count={"outcome": "failed"})
    assert main(["phase-status", "--phase-file", str(path)]) == 0
    assert capsys.readouterr().out == f"failed ({phase_status.COUNT_FAILED})\n"


def lab_phase_file(tmp_path, **changes):
    """A D.phase.json as the lab writes it before the verdict (the recorded fixture's fields + facts)."""
    with open(os.path.join(FIXTURES, "ci-standin-run", "postgres.phase.json")) as f:
        doc = json.load(f)
    del doc["status"], doc["reason"]
    doc.update(phase="postgres", stage="run", idle={"quiet": {"start": 1.0, "end": 2.0}, "guard": {"start": 2.0, "end": None}},
               settled_after=None, query=None, cgroup_processes=None, pooler=None, facts=facts(**changes),
               image_os={"image": "sha256:" + "0" * 64, "os": "Debian GNU/Linux 13 (trixie)", "libc": "glibc 2.41", "reason": None})
    path = tmp_path / "postgres.phase.json"
    path.write_text(json.dumps(doc, indent=2) + "\n")
    return path


def test_phase_status_command_writes_the_verdict_where_the_lab_did_and_prints_it(tmp_path, capsys):
    path = lab_phase_file(tmp_path, client_exit_codes=[0, 2])
    assert main(["phase-status", "--phase-file", str(path)]) == 0
    assert capsys.readouterr().out == "failed (client-2 exited with code 2)\n"
    doc = json.loads(path.read_text())
    assert (doc["status"], doc["reason"]) == ("failed", "client-2 exited with code 2")
    keys = list(doc)
    assert keys[keys.index("cgroup_cpu_seconds") + 1: keys.index("cgroup_cpu_seconds") + 3] == ["status", "reason"]
    assert phase_status.read(str(path)) == doc


def test_a_failed_clients_reason_says_what_its_result_file_says_it_did_not_do(tmp_path, capsys):
    """A client exits 1 when fewer than all its operations succeeded; the reason says which of errors,
    drops (fell behind the rate) or giving up it was, from the client's own result file (a real one of
    the recorded run, changed as a client that fell behind writes it)."""
    clients = tmp_path / "clients"
    shutil.copytree(os.path.join(FIXTURES, "ci-standin-run", "clients"), clients)
    result = json.loads((clients / "postgres-client-2.json").read_text())
    target = result["docs_target"]
    result.update(docs_ok=target - 4, errors=0, dropped=4, queue_bound=100, target_sustained=False)
    (clients / "postgres-client-2.json").write_text(json.dumps(result))
    path = lab_phase_file(tmp_path, client_exit_codes=[0, 1])
    assert main(["phase-status", "--phase-file", str(path)]) == 0
    rate = result["target_rate"]
    said = (f"client-2 exited with code 1: {target - 4} of {target} operations ok; 4 dropped: the database fell more "
            f"than 100 operations behind the rate of {rate}/s")
    assert capsys.readouterr().out == f"failed ({said})\n"
    assert json.loads(path.read_text())["reason"] == said


def test_a_shortfall_names_errors_with_the_first_one_and_giving_up():
    result = {"docs_ok": 7, "docs_target": 10, "errors": 2, "dropped": 0, "not_sent": 1,
              "error_samples": ["booking: E11000 duplicate key", "booking: E11000 duplicate key"],
              "gave_up": "no connection for 4.0 s (limit 4 s): connect ECONNREFUSED"}
    assert phase_status.shortfall(result) == (
        "7 of 10 operations ok; 2 failed (first: booking: E11000 duplicate key); "
        "gave up: no connection for 4.0 s (limit 4 s): connect ECONNREFUSED; 1 not sent")
    assert phase_status.shortfall({**result, "docs_ok": 10}) == ""
    assert phase_status.decide(facts(client_exit_codes=[1]), [], shortfalls={1: "x"}) == ("failed", "client-1 exited with code 1: x")


def test_phase_status_ok_prints_ok_alone(tmp_path, capsys):
    path = lab_phase_file(tmp_path)
    assert main(["phase-status", "--phase-file", str(path)]) == 0
    assert capsys.readouterr().out == "ok\n"


def test_wrong_facts_are_refused_naming_the_file_and_the_key(tmp_path, capsys):
    path = lab_phase_file(tmp_path, database={"state": "sleeping"})
    before = path.read_text()
    assert main(["phase-status", "--phase-file", str(path)]) == 2
    err = capsys.readouterr().err
    assert str(path) in err and "lab/phase.schema.json" in err and "facts/database/state" in err, err
    assert path.read_text() == before  # nothing decided, nothing written


def test_a_lab_file_without_a_field_the_lab_writes_is_refused(tmp_path):
    path = lab_phase_file(tmp_path)
    doc = json.loads(path.read_text())
    del doc["window"]
    path.write_text(json.dumps(doc))
    with pytest.raises(AnalysisError, match=r"postgres.phase.json: does not match lab/phase.schema.json .*window"):
        phase_status.complete(str(path))


def test_reading_a_wrong_phase_file_is_refused_naming_the_file_and_the_key(tmp_path):
    doc = json.load(open(os.path.join(FIXTURES, "ci-standin-run", "postgres.phase.json")))
    doc["missing_clients"] = ["2"]
    path = tmp_path / "postgres.phase.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(AnalysisError) as e:
        phase_status.read(str(path))
    assert str(path) in str(e.value) and "'missing_clients/0'" in str(e.value)


def test_every_recorded_fixture_phase_file_reads():
    found = 0
    for root, _, files in os.walk(FIXTURES):
        for name in files:
            if name.endswith(".phase.json"):
                assert phase_status.read(os.path.join(root, name)) is not None
                found += 1
    assert found >= 8


def test_results_refuses_a_wrong_phase_file(tmp_path):
    from analysis.figures import results
    import shutil
    bench = tmp_path / "b"
    shutil.copytree(os.path.join(FIXTURES, "ci-standin-run"), bench)
    doc = json.loads((bench / "postgres.phase.json").read_text())
    doc["window"] = {"start": "soon", "end": 2}
    (bench / "postgres.phase.json").write_text(json.dumps(doc))
    with pytest.raises(AnalysisError, match="postgres.phase.json: does not match lab/phase.schema.json at 'window/start'"):
        results.write(str(bench))


def count_output(tmp_path, last):
    path = tmp_path / "postgres.count.json.tmp"
    path.write_text("a line count printed first\n" + json.dumps(last) + "\n")
    return str(path)


def test_nothing_lost_prints_the_problems_as_json_then_as_the_lab_says_them(tmp_path, capsys):
    path = count_output(tmp_path, {"documents": 3, "booking_check": {"ok": False, "problems": ["a lost", "b twice"]}})
    assert main(["nothing-lost", "--count-output", path]) == 0
    assert capsys.readouterr().out == '["a lost", "b twice"]\na lost; b twice\n'


def test_nothing_lost_without_a_failed_check_exits_1(tmp_path, capsys):
    for last in ({"documents": 3, "booking_check": {"ok": True, "problems": []}}, {"documents": 3}):
        assert main(["nothing-lost", "--count-output", count_output(tmp_path, last)]) == 1
    (tmp_path / "garbage").write_text("Error: connection refused\n")
    assert main(["nothing-lost", "--count-output", str(tmp_path / "garbage")]) == 1
    assert capsys.readouterr().out == ""


def test_a_result_file_outside_its_schema_fails_the_phase_naming_it(tmp_path):
    """The lab checks every client result file as the phase ends (`run` does not: inside its window):
    one that is not what analysis reads fails an otherwise ok phase, naming the file, where and what."""
    bench = tmp_path / "b"
    shutil.copytree(os.path.join(FIXTURES, "timescaledb-compress"), bench)
    doc = json.loads((bench / "timescaledb.phase.json").read_text())
    assert phase_status.result_problems(str(bench), doc) == []
    client = bench / "clients" / "timescaledb-client-2.json"
    result = json.loads(client.read_text())
    result["docs_ok"] = "3900"
    client.write_text(json.dumps(result))
    (bench / "clients" / "timescaledb-client-1.json").write_text("{")
    problems = phase_status.result_problems(str(bench), doc)
    assert problems[0].startswith("clients/timescaledb-client-1.json: not valid JSON")
    assert problems[1] == ("clients/timescaledb-client-2.json: does not match client/src/result.schema.json "
                           "at 'docs_ok': '3900' is not of type 'integer'")
    assert phase_status.decide(facts(), [], problems) == ("failed", "; ".join(problems))
    assert phase_status.decide(facts(), [], []) == ("ok", "")
