"""`sweep-args KEY=v1,v2,... --specs FILE`: checks a `--sweep` argument against the bench keys (the
client's schema, client/src/bench-schema.js, given as JSON {KEY: {type, allowed, values}}) before anything
starts, and prints the key and the values, one per line. A paired sweep (`K1+K2=v1+w1,v2+w2`) sets two
keys together at each point: its key line is K1+K2 and each value v+w, as a grid point's. A numeric key is swept as numbers; an enum
key (e.g. MODEL=event,bucket,native) as categories, in the order given. Whether each value is one the key accepts
(its bounds, the document size limit) is left to `node client validate-bench`, run by runme.sh on
each point's settings, so the rules live in one place.

Needs nothing but the standard library: runme.sh runs it with the host's python3, before the venv."""
import difflib
import json
import re

from ..common.errors import AnalysisError

NUMERIC = ("int", "number")
ENUM = "enum"
NUMBER = re.compile(r"^-?([0-9]+(\.[0-9]*)?|\.[0-9]+)$")
EXAMPLE = "e.g. --sweep FIELD_BYTES=50,100,200,400,1000"


def parse(arg, specs):
    """-> (key, [value strings]); AnalysisError naming the key and what is allowed otherwise."""
    numeric = [k for k, s in specs.items() if s.get("type") in NUMERIC]
    enums = [k for k, s in specs.items() if s.get("type") == ENUM]
    sweepable = f"keys that can be swept (numeric): {', '.join(numeric)}; enum keys, swept as categories: {', '.join(enums)}"
    if "=" not in arg:
        raise AnalysisError(f"--sweep {arg!r}: expected KEY=v1,v2,... ({EXAMPLE}); {sweepable}")
    key, _, raw = arg.partition("=")
    key = key.strip()
    if "+" in key:
        return _paired(key, raw, specs, sweepable)
    if key not in specs:
        hint = difflib.get_close_matches(key.upper(), numeric + enums, n=1)
        raise AnalysisError(f"--sweep {key}: unknown bench key{f' (did you mean {hint[0]}?)' if hint else ''}; "
                            f"{sweepable}")
    spec = specs[key]
    if spec.get("type") not in NUMERIC and spec.get("type") != ENUM:
        raise AnalysisError(f"--sweep {key}: {key} is neither numeric nor an enum ({spec.get('allowed')}); "
                            f"{sweepable}")
    values = [v.strip() for v in raw.split(",")]
    if any(v == "" for v in values):
        raise AnalysisError(f"--sweep {key}={raw}: an empty value; give {key}=v1,v2,... with {key} {spec.get('allowed')}")
    if spec.get("type") == ENUM:
        return key, _categories(key, raw, values, spec)
    for v in values:
        if not NUMBER.match(v):
            raise AnalysisError(f"--sweep {key}={raw}: {v!r} is not a number; {key} takes {spec.get('allowed')}")
        if spec["type"] == "int" and not re.fullmatch(r"-?[0-9]+", v):
            raise AnalysisError(f"--sweep {key}={raw}: {v!r} is not an integer; {key} takes {spec.get('allowed')}")
    seen = {}
    for v in values:
        if float(v) in seen:
            raise AnalysisError(f"--sweep {key}={raw}: {v} is given twice (as {seen[float(v)]!r})")
        seen[float(v)] = v
    if len(values) < 2:
        raise AnalysisError(f"--sweep {key}={raw}: a sweep needs at least two values ({EXAMPLE}); "
                            f"for one value use --set {key}={values[0]}")
    return key, values


def _paired(key, raw, specs, sweepable):
    """A paired sweep, K1+K2=v1+w1,v2+w2,...: one point per pair, the keys set together (not every
    combination, as two --sweep do). Each key a numeric, enum or list key (a list key takes one of its
    values, e.g. DATABASES=timescaledb); each value as many parts as keys. A database's own design per
    point is its use: MODEL+DATABASES=event+mongodb,bucket+mongodb,native+timescaledb."""
    keys = [k.strip() for k in key.split("+")]
    form = f"{'+'.join(keys)}=<{'>+<'.join(k.lower() for k in keys)}>,..."
    if len(keys) != 2 or len(set(keys)) != 2:
        raise AnalysisError(f"--sweep {key}: a paired sweep sets two different keys together ({form}, e.g. "
                            "MODEL+DATABASES=event+mongodb,native+timescaledb)")
    for k in keys:
        if k not in specs:
            hint = difflib.get_close_matches(k.upper(), list(specs), n=1)
            raise AnalysisError(f"--sweep {key}: {k} is not a bench key{f' (did you mean {hint[0]}?)' if hint else ''}; "
                                f"{sweepable}; in a paired sweep also a list key (DATABASES) with one value")
        if specs[k].get("type") not in (*NUMERIC, ENUM, "list"):
            raise AnalysisError(f"--sweep {key}: {k} is neither numeric, an enum nor a list ({specs[k].get('allowed')})")
    values = [v.strip() for v in raw.split(",")]
    for v in values:
        parts = v.split("+")
        if len(parts) != len(keys) or any(p == "" for p in parts):
            raise AnalysisError(f"--sweep {key}={raw}: {v!r} is not {len(keys)} values joined by '+' ({form})")
        for k, p in zip(keys, parts):
            spec = specs[k]
            if spec.get("type") in (ENUM, "list") and p not in (spec.get("values") or []):
                raise AnalysisError(f"--sweep {key}={raw}: {p!r} is not a value of {k}; {k} takes {spec.get('allowed')}"
                                    + (" (one value per point)" if spec.get("type") == "list" else ""))
            if spec.get("type") in NUMERIC and not NUMBER.match(p):
                raise AnalysisError(f"--sweep {key}={raw}: {p!r} is not a number; {k} takes {spec.get('allowed')}")
    if len(set(values)) != len(values):
        raise AnalysisError(f"--sweep {key}={raw}: a point is given twice")
    if len(values) < 2:
        raise AnalysisError(f"--sweep {key}={raw}: a sweep needs at least two points; for one use --set "
                            + " --set ".join(f"{k}={p}" for k, p in zip(keys, values[0].split("+"))))
    return "+".join(keys), values


def _categories(key, raw, values, spec):
    allowed = spec.get("values") or []
    for v in values:
        if v not in allowed:
            raise AnalysisError(f"--sweep {key}={raw}: {v!r} is not a value of {key}; {key} takes {spec.get('allowed')}")
    if len(set(values)) != len(values):
        raise AnalysisError(f"--sweep {key}={raw}: a value is given twice")
    if len(values) < 2:
        raise AnalysisError(f"--sweep {key}={raw}: a sweep needs at least two values ({EXAMPLE}); "
                            f"for one value use --set {key}={values[0]}")
    return values


def run(arg, specs_path):
    try:
        with open(specs_path, encoding="utf-8") as f:
            specs = json.load(f)
    except (OSError, json.JSONDecodeError) as e:
        raise AnalysisError(f"--specs {specs_path}: cannot read the bench keys ({e})")
    key, values = parse(arg, specs)
    return "\n".join([key] + values)
