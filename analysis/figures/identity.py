"""Who and when a phase measured: its identity (results.json runs[] `database` ... `stand_in_what`:
the database, the phase, its stage and workload, the service, and the server's product, image,
version and whether it was a stand-in, from the phase file and what the clients' connections
reported, `server`) and its window (`window`)."""
from .counts import first_client


def _one_or_all(values):
    return values[0] if len(values) == 1 else (values or None)


def of_phase(ph):
    """The phase's identity fields, in results.json's order."""
    phase = ph.doc() or {}
    servers = [c.get("server") or {} for _, c in ph.clients()]
    first = first_client(ph)
    stand_in_what = phase.get("stand_in")
    client_says_stand_in = any(s.get("stand_in") for s in servers)
    if not stand_in_what and client_says_stand_in:
        s = next(s for s in servers if s.get("stand_in"))
        stand_in_what = f"{s.get('product')} {s.get('version')}".strip()
    versions = sorted({str(s.get("version")) for s in servers if s.get("version")})
    products = sorted({str(s.get("product")) for s in servers if s.get("product")})
    comments = sorted({str(s.get("version_comment")) for s in servers if s.get("version_comment")})
    return {
        "database": ph.database(),
        "phase": ph.id,
        "stage": phase.get("stage") or first.get("stage") or "run",
        "workload": workload(ph),
        "service": service(ph),
        "product": _one_or_all(products),
        "image": phase.get("image"),
        # the image's OS and C library, read by the lab before the phases (lab/image-os.py)
        "image_os": phase.get("image_os"),
        "server_version": versions[0] if len(versions) == 1 else (", ".join(versions) or None),
        "server_version_comment": ", ".join(comments) or None,
        "stand_in": bool(stand_in_what) or client_says_stand_in,
        "stand_in_what": stand_in_what or None,
    }


def workload(ph):
    """The workload the phase's clients ran (the first client's), `insert` for clients older than it."""
    return first_client(ph).get("workload") or "insert"


def service(ph):
    """The compose service whose container the figures are of: the phase file's, else the database."""
    return (ph.doc() or {}).get("service") or ph.database()


def window(ph):
    """The phase's measured window (results.json runs[] `window`): its start and end (epoch seconds)."""
    w = (ph.doc() or {}).get("window") or {}
    start, end = w.get("start"), w.get("end")
    return {"start": start, "end": end, "seconds": (end - start) if start is not None and end is not None else None}
