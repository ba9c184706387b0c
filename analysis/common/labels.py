"""How runs and figures are named in tables and plots. A stand-in is named as such everywhere."""

PER_DOC = [  # (field, heading, unit)
    ("cpu_us", "CPU", "µs/doc"),
    ("instructions", "instructions (user mode)", "/doc"),
    ("write_bytes", "disk write", "B/doc"),
    ("read_bytes", "disk read", "B/doc"),
    ("net_bytes", "network", "B/doc"),
    ("storage_bytes", "storage", "B/doc"),
]


def phase_id(run):
    """The phase's file prefix (`mongodb`, `mongodb-load`); older results have only the database."""
    return run.get("phase") or run["database"]


def run_label(run):
    name = run["database"] + (" load" if run.get("stage") == "load" else "")
    if run.get("stand_in"):
        return f"{name} (stand-in: {run.get('stand_in_what') or 'not the real product'})"
    return name


def fmt(v, digits=3):
    if v is None:
        return "n/a"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, int) or (isinstance(v, float) and v.is_integer() and abs(v) >= 1000):
        return f"{int(v):,}"
    if abs(v) >= 100:
        return f"{v:,.0f}"
    return f"{v:.{digits}g}"


def fmt_bytes(v):
    if v is None:
        return "n/a"
    for unit in ("B", "KiB", "MiB", "GiB"):
        if abs(v) < 1024 or unit == "GiB":
            return f"{v:.0f} {unit}" if unit == "B" else f"{v:.1f} {unit}"
        v /= 1024.0


def fmt_ratio(v):
    return "n/a" if v is None else f"{v:.2f}x"
