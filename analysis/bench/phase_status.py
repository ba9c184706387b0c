"""A phase's status, decided from the facts the lab recorded (docs/contracts.md §4 `D.phase.json`).

The lab (lab/driver/phase.py `Phase.finish`) only records what happened: the clients' exit codes, which
result files are missing, whether its wait for the clients timed out, the database container's
state after the window, the count's outcome, a signal, an error of runme.sh. `decide` turns those
facts into `status` (ok, failed, interrupted) and `reason`; `analysis phase-status` writes them into
the file and prints the verdict the lab shows. The file's schema is lab/phase.schema.json, checked
here where the lab's file is completed and where analysis reads one (`read`)."""
import json
import os

from ..common import file_schemas
from ..common.errors import AnalysisError
from ..common.fileio import read_json, write_json_atomic
from . import folder, plan

SCHEMA_NAME = folder.PHASE_SCHEMA


def _schema():
    return file_schemas.load(SCHEMA_NAME)


def check(doc, path, schema=None):
    """Raises AnalysisError naming the file and the key when doc does not match (the whole schema, or
    the part given)."""
    file_schemas.check(doc, SCHEMA_NAME, path, schema)


def read(path):
    """D.phase.json checked against its schema; None when the file does not exist (a phase that never
    got that far)."""
    return folder.read_phase_file(path)


# A transaction workload's count (booking, oltp: the plan's workload `transactions`) is its
# correctness check: nothing a client saw committed lost, the rows there. Without it the phase's
# figures are not known to be of work the database did.
COUNT_FAILED = ("count failed after the window: the transactions' correctness check (what the database "
                "holds: nothing lost) did not run")


# The rules, in the order the lab applied them when it decided in bash: a later rule may override an
# earlier one's verdict where it says so; the reasons are the lab's words (results.json, report.md).
def decide(facts, missing_clients, result_problems=(), count_checks=False, shortfalls=None):
    """(status, reason) of a phase from its facts (schema `$defs/facts`), its missing result files and
    what is wrong with those it has (result_problems: `result_problems`). count_checks: the workload's
    count is its correctness check (plan.workload_facts `transactions`), so a failed count fails it.
    shortfalls: {client number: what its result file says it did not do} (`client_shortfalls`), said
    after a failed client's exit code."""
    status, reason = "ok", ""
    wait = facts["wait"]
    if wait["timed_out"]:
        status, reason = "failed", f"clients still running after {wait['limit_s']}s (expected {wait['expected_s']}s): stopped"
    # runme.sh stopped on an error with the phase open (its EXIT trap finishes the phase)
    if facts["lab_error_exit_code"] is not None:
        status, reason = "failed", f"runme.sh stopped on an error (exit code {facts['lab_error_exit_code']})"
    if status == "ok":
        for i, code in enumerate(facts["client_exit_codes"], start=1):
            if code != 0:
                status, reason = "failed", f"client-{i} exited with code {'unknown' if code is None else code}"
                if (shortfalls or {}).get(i):
                    reason += f": {shortfalls[i]}"
                break
    # a database that stopped or restarted fails the phase whatever the clients say
    db = facts["database"]
    if db["state"] == "gone":
        status, reason = "failed", "the database container disappeared during the phase"
    elif db["state"] == "stopped":
        status, reason = "failed", f"the database container stopped during the phase (exit code {db['exit_code']})"
    elif db["state"] == "restarted":
        status, reason = "failed", "the database container restarted during the phase"
    if db["restarted_for_check"]:
        reason += "; restarted after the window for the nothing-lost check"
    if facts["interrupted"]:
        status, reason = "interrupted", "interrupted by a signal"
    if missing_clients and status == "ok":
        status, reason = "failed", "no result file from client(s) " + " ".join(str(c) for c in missing_clients)
    if result_problems and status == "ok":
        status, reason = "failed", "; ".join(result_problems)
    count = facts["count"]
    if count["outcome"] == "check_failed" and status == "ok":
        status, reason = "failed", "nothing-lost check failed: " + problems_text(count["problems"])
    if count["outcome"] == "failed" and count_checks and status == "ok":
        status, reason = "failed", COUNT_FAILED
    return status, reason


def problems_text(problems):
    """A failed nothing-lost check's problems as the lab says them."""
    return "; ".join(problems or ["(no problem listed)"])


def verdict(status, reason):
    """The words the lab prints after `<phase>: phase ` (and reads the status from)."""
    return status + (f" ({reason})" if reason else "")


def _with_verdict(doc, status, reason):
    # where the lab wrote them when it decided in bash (after cgroup_cpu_seconds): the same key order
    out = {k: v for k, v in doc.items() if k not in ("status", "reason")}
    keys = list(out)
    at = keys.index("cgroup_cpu_seconds") + 1 if "cgroup_cpu_seconds" in keys else len(keys)
    items = list(out.items())
    return dict(items[:at] + [("status", status), ("reason", reason)] + items[at:])


def complete(path):
    """Decides the status of the lab's D.phase.json from its facts, writes `status` and `reason` into
    it (the file checked against the schema first and after) and returns the verdict."""
    if not os.path.exists(path):
        raise AnalysisError(f"{path}: no such phase file")
    doc = read_json(path)
    if not isinstance(doc, dict) or "facts" not in doc:
        raise AnalysisError(f"{path}: no 'facts' to decide the status from ({SCHEMA_NAME})")
    schema = _schema()
    part = {"$defs": schema["$defs"], "type": "object", "required": ["facts", "missing_clients"],
            "properties": {"facts": schema["properties"]["facts"],
                           "missing_clients": schema["properties"]["missing_clients"]}}
    check(doc, path, part)
    bench_dir = os.path.dirname(path)
    status, reason = decide(doc["facts"], doc["missing_clients"], result_problems(bench_dir, doc),
                            count_checks=plan.workload_facts(bench_dir)["transactions"],
                            shortfalls=client_shortfalls(bench_dir, doc))
    doc = _with_verdict(doc, status, reason)
    check(doc, path)
    write_json_atomic(path, doc)
    return verdict(doc["status"], doc["reason"])


def _client_results(bench_dir, doc):
    """(client number, its result file's name, its path) for each of the phase's clients with a file."""
    for i in range(1, int(doc.get("clients") or 0) + 1):
        name = os.path.join("clients", f"{doc.get('phase')}-client-{i}.json")
        path = os.path.join(bench_dir, name)
        if os.path.exists(path):  # a missing file is missing_clients' rule
            yield i, name, path


def shortfall(result):
    """What a client's result says it did not do, in the lab's words ("" when it did everything): a
    client exits 1 when fewer than all its operations succeeded, and its exit code alone does not say
    whether the database refused some, fell behind the rate, or went away."""
    ok, target = result.get("docs_ok"), result.get("docs_target")
    if not isinstance(ok, int) or not isinstance(target, int) or (ok >= target and not result.get("interrupted")):
        return ""
    said = [f"{ok} of {target} operations ok"]
    if result.get("errors"):
        samples = result.get("error_samples") or []
        said.append(f"{result['errors']} failed" + (f" (first: {samples[0]})" if samples else ""))
    if result.get("dropped"):
        said.append(f"{result['dropped']} dropped: the database fell more than {result.get('queue_bound')} operations "
                    f"behind the rate of {result.get('target_rate')}/s")
    if result.get("gave_up"):
        said.append(f"gave up: {result['gave_up']}")
    if result.get("not_sent"):
        said.append(f"{result['not_sent']} not sent")
    return "; ".join(said)


def client_shortfalls(bench_dir, doc):
    """{client number: shortfall} of the phase's clients whose result file is readable; a file that is
    not JSON is `result_problems`' to say."""
    out = {}
    for i, _, path in _client_results(bench_dir, doc):
        try:
            result = read_json(path)
        except AnalysisError:
            continue
        said = shortfall(result) if isinstance(result, dict) else ""
        if said:
            out[i] = said
    return out


def result_problems(bench_dir, doc):
    """What is wrong with the phase's client result files, checked here as the phase ends (outside its
    window: a client checking its own file would spend CPU inside the window) against
    client/src/result.schema.json: one line per file that is not JSON or does not match."""
    out = []
    for _, name, path in _client_results(bench_dir, doc):
        try:
            file_schemas.client(read_json(path), "result", name)
        except AnalysisError as e:
            out.append(str(e).replace(path, name))
    return out


def nothing_lost_problems(count_output_path):
    """The problems of a failed nothing-lost check in `node client count`'s output (its last line,
    `booking_check`), or None when the output holds no failed check (count failed otherwise)."""
    try:
        with open(count_output_path, encoding="utf-8") as f:
            lines = f.read().strip().splitlines()
        check_ = json.loads(lines[-1]).get("booking_check") or {}
    except (OSError, ValueError, IndexError, AttributeError):
        return None
    if check_.get("ok", True):
        return None
    return list(check_.get("problems") or [])
