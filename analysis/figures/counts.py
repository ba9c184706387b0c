"""What the clients and the database counted in a phase (results.json runs[] `clients` ...
`interrupted`): the client result files' totals, the documents the database holds after the phase
(D.count.json) and the number it must hold (`docs_expected_in_db`: the nothing-lost check)."""


def total(values):
    """The sum of the values given, None when none is given (no client reported the figure)."""
    vals = [v for v in values if v is not None]
    return sum(vals) if vals else None


def first_client(ph):
    """The first client's result, {} without any (what every client of a phase shares: workload, mix)."""
    clients = ph.clients()
    return clients[0][1] if clients else {}


def of_clients(ph, key):
    """A client figure summed over the phase's client result files."""
    return total(c.get(key) for _, c in ph.clients())


def form(ph):
    """The storage form the phase's documents went into (its clients' `form`: the database's
    <NAME>_FORM, client/src/forms.js), None when the clients name none (runs before the forms, other
    workloads) or differ."""
    forms = {c.get("form") for _, c in ph.clients()}
    return forms.pop() if len(forms) == 1 else None


def docs_in_db(ph):
    """The documents (rows, events) the database holds after the phase, None without a count."""
    count = ph.count()
    return None if count is None else count.get("documents", count.get("count", count.get("docs")))


def inserted(operations, facts):
    """What the phase added to the database's count: its operations that each add one document (tsbs:
    a bucket upsert adds one event, count = events held, analysis/figures/ingest.py)."""
    return sum((operations.get(op) or {}).get("ok") or 0 for op in facts["insert_ops"])


def docs_expected(ph, facts, operations, txn, docs_before, config):
    """What the count must hold: docs_before (the database's earlier phases of this bench, its load)
    plus what this phase added; transactions (booking, oltp): one row per committed transaction
    (booking's seats: count's nothing-lost check also allows the in-doubt ones), or the number a
    bench key gives (config: the run's keys; oltp's TABLE_ROWS: a delete+insert keeps its id)."""
    expected = docs_before + (inserted(operations, facts) if operations else (of_clients(ph, "docs_ok") or 0))
    expect = facts["count_expected"]
    if expect["basis"] == "committed" and txn is not None:
        expected = docs_before + txn["committed"]
    elif expect["basis"] == "setting" and str((config or {}).get(expect["setting"]) or "").isdigit():
        expected = int(config[expect["setting"]])
    return expected


def of_phase(ph, expected):
    """The counts' fields, in results.json's order (expected: docs_expected())."""
    phase, clients = ph.doc() or {}, ph.clients()
    return {
        "clients": len(clients),
        "clients_expected": phase.get("clients"),
        "docs_target": of_clients(ph, "docs_target"),
        "docs_ok": of_clients(ph, "docs_ok"),
        "docs_in_db": docs_in_db(ph),
        "docs_expected_in_db": expected if clients else None,
        "errors": of_clients(ph, "errors"),
        "dropped": of_clients(ph, "dropped"),
        "target_rate": of_clients(ph, "target_rate"),
        "achieved_rate": of_clients(ph, "achieved_rate"),
        "target_sustained": all(c.get("target_sustained", True) for _, c in clients) if clients else None,
        "interrupted": any(c.get("interrupted") for _, c in clients) or phase.get("status") == "interrupted",
    }
