"""A phase's status, reason and notes in results.json (runs[] `status`, `reason`, `notes`; the
bench's `notes`). The lab's verdict (D.phase.json, bench/phase_status.py) held to what the figures
show: a failed nothing-lost check or a missing count of a transaction workload fails an ok phase,
work the lab did not send (reconciliation) or cAdvisor's CPU against the cgroup's makes it suspect.
The notes say what is missing or uncertain in the phase's figures."""
from . import transactions


def _created_in_window(note):
    return "no sample at window start: the container was created in the window" in note


def _one_created_in_window_note(notes):
    """Every phase starts its clients inside its window, so their counters have no sample before
    it: one note for all of them instead of one per client container."""
    created = [n for n in notes if _created_in_window(n)]
    if not created:
        return notes
    kept = [n for n in notes if not _created_in_window(n)]
    return kept + [f"{len(created)} client container(s) created in the window (as every phase's clients are): "
                   "their counters' start values are taken as 0"]


def data_notes(ph, counts, docs_before, check, txn, ops_note, cpu):
    """What is missing or uncertain in the phase's figures (ph: bench/folder.py Phase; counts: its
    counts' fields, figures/counts.py; check: count's nothing-lost check; txn: the transactions merged;
    ops_note: operations.merge's note; cpu: the cpu block, figures/cpu.py)."""
    phase_id, metrics = ph.id, ph.metrics()
    notes = list((metrics or {}).get("notes") or [])
    if metrics is None:
        # the monitoring host's Prometheus did not answer the export (analysis/entry.py phase_finished)
        lost = (ph.doc() or {}).get("metrics_export")
        why = (f": the Prometheus on {lost['host']} (MONITORING_HOST, {lost['prometheus']}) did not answer: "
               f"{lost['reason']}") if lost else ""
        notes.append(f"{phase_id}.metrics.json missing: no Prometheus figures for this phase{why}")
    if ph.count() is None:
        notes.append(f"{phase_id}.count.json missing: no database-side count or sizes")
    uncovered = transactions.check_uncovered(check, txn)
    if uncovered:
        notes.append(uncovered)
    in_db, expected = counts["docs_in_db"], counts["docs_expected_in_db"]
    if in_db is not None and counts["clients"] and in_db != expected and check is None:
        notes.append(f"documents in the database ({in_db}) differ from documents acknowledged "
                     f"by the clients ({expected}" + (f", {docs_before} of them in earlier phases)"
                                                      if docs_before else ")"))
    if ops_note:
        notes.append(f"operations: {ops_note}")
    notes = _one_created_in_window_note(notes)
    if cpu["instructions_scaled"]:
        notes.append(f"instructions not counted ({cpu['instructions_reason']}); the estimate is in cpu.instructions_scaled")
    elif cpu["instructions"] is None:
        notes.append(f"instructions not counted ({cpu['instructions_reason']}); software events only")
    expected_clients = counts["clients_expected"]
    if isinstance(expected_clients, int) and expected_clients != counts["clients"]:
        notes.append(f"{counts['clients']} client result file(s) for {expected_clients} client(s)")
    return notes


def of_phase(ph, facts, check, reconciliation, cpu_mismatch, clock_skew=None, memory_mismatches=()):
    """(status, reason, notes) of a phase: the lab's verdict (its phase file's) held to count's
    nothing-lost check, a transaction workload's count, the reconciliation's verdict, the CPU
    cross-check (cpu_mismatch: cpu_crosscheck's reason, None when they agree), the hosts' clocks
    (clock_skew: figures/clock.py's reason, None when every offset is within the threshold) and the
    memory the bench asked for (memory_mismatches: figures/memory.py's reasons, the server's cache or
    the container's limit not as asked)."""
    phase = ph.doc() or {}
    status, reason = phase.get("status", "missing"), phase.get("reason") or None
    notes = []
    if check is not None and not check.get("ok"):
        # the lab fails the phase on count's exit 1; a folder from elsewhere is held to the same rule
        lost = "nothing-lost check failed: " + "; ".join(check.get("problems") or ["(no problem listed)"])
        notes.append(lost)
        if status in ("ok", "suspect"):
            status, reason = "failed", lost
    if facts["transactions"] and ph.count() is None and status in ("ok", "suspect"):
        # a transaction workload's count is its correctness check (phase_status.COUNT_FAILED): without
        # it the phase is not known to have kept what it committed, and its figures compare nothing
        status, reason = "failed", (f"no count after the phase ({ph.id}.count.json missing): the transactions' "
                                    "correctness check (what the database holds: nothing lost) did not run")
        notes.append(reason)
    if memory_mismatches:
        # the phase ran with other memory than the bench asked for: its figures are not the bench's
        wrong = "not the memory asked for: " + "; ".join(memory_mismatches)
        notes.append(wrong)
        if status in ("ok", "suspect"):
            status, reason = "failed", wrong
    if reconciliation["verdict"] == "suspect":
        notes.append("SUSPECT: work in the window the lab did not ask for: " + "; ".join(reconciliation["reasons"]))
        if status == "ok":  # failed/interrupted keep their meaning; suspect is an ok phase with foreign work
            status, reason = "suspect", "; ".join(reconciliation["reasons"])
    # the CPU cross-check, then a host's clock off the controller's (clock_skew: figures/clock.py skew)
    for why in (cpu_mismatch, clock_skew):
        if not why:
            continue
        notes.append("SUSPECT: " + why)
        if status == "ok":
            status, reason = "suspect", why
        elif status == "suspect":
            reason = f"{reason}; {why}"
    return status, reason, notes
