"""A phase's costs per document (results.json runs[] `per_doc`): an insert cost, the phase's
figures over the documents it added, given only where it did nothing but inserts (the insert
workload, a load phase); storage per document holds for every phase."""
from . import counts

INSERT_COSTS = ("cpu_us", "instructions", "write_bytes", "read_bytes", "net_bytes")


def _div(a, b, scale=1.0):
    if a is None or not b:
        return None
    return a * scale / b


def of_phase(ph, facts, operations, docs_before, cpu_s, instructions, disk, net_bytes, storage_bytes):
    """per_doc of a phase (bench/folder.py Phase) from its figures: cpu_s (user + system seconds),
    instructions, disk, net_bytes (received + sent), storage_bytes (the database's total);
    docs_before: what the database's earlier phases of the bench inserted."""
    in_db = counts.docs_in_db(ph)
    # the documents this phase added: what the database holds minus what its earlier phases
    # (a load) inserted; the insert workload has no earlier phase
    divisor = (in_db - docs_before) if in_db else counts.of_clients(ph, "docs_ok")
    out = {
        "docs": divisor,
        "basis": "docs_in_db" if in_db else "docs_ok",
        "cpu_us": _div(cpu_s, divisor, 1e6),
        "instructions": _div(instructions, divisor),
        "write_bytes": _div(disk["write_bytes"], divisor),
        "read_bytes": _div(disk["read_bytes"], divisor),
        "net_bytes": _div(net_bytes, divisor),
        # storage is what all documents in the database take
        "storage_bytes": _div(storage_bytes, in_db if in_db else divisor),
    }
    if not set(operations) <= set(facts["insert_ops"]):
        out.update({k: None for k in INSERT_COSTS})
        out["reason"] = ("the phase ran " + ", ".join(operations) + ": per-document costs are insert costs; "
                         "see per_op (storage_bytes is per document in the database)")
    return out
