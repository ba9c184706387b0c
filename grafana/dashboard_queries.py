#!/usr/bin/env python3
"""List every PromQL expression of the lab's Grafana dashboards, variables substituted.

Grafana cannot run everywhere the lab runs (no image without a registry), so the end-to-end
test checks the dashboards' queries straight against Prometheus with this list instead.

    python3 grafana/dashboard_queries.py --var project=jsonbench --var service=postgres --var database=postgres

prints one JSON object per line: {dashboard, panel, kind, instant, expr}
  kind     "target" (a panel query), "annotation", or "variable" (a label_values() variable,
           rewritten as the PromQL that returns the same label values)
  instant  true where Grafana runs it as an instant query (evaluate at the end of a window);
           otherwise run it as a range query over the window.

Variables: `--var NAME=VALUE`, repeat a NAME for several values (rendered as Grafana renders a
multi-value variable: (a|b)). Unset dashboard variables take the dashboard's default where it
has a fixed one (custom lists, "All" with an allValue); the built-ins default to BUILTINS below and
can be overridden the same way (`--var __range=20m`). A query variable whose default is "All"
without an allValue (the databases: Grafana expands it to every value Prometheus lists, (a|b|c))
has no fixed value: give the values with --var. Exit status 2 on bad input.
"""
import argparse
import json
import os
import re
import sys

DEFAULT_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "dashboards")

# Grafana computes these from the time range and the scrape interval (timeInterval 2s in the
# datasource): $__rate_interval = max(4 x 2s, $__interval + 2s).
BUILTINS = {"__range": "5m", "__rate_interval": "8s", "__interval": "4s"}

# Values go into label matchers unescaped, so only what compose project, service and bench
# names can contain is accepted.
VALUE_RE = re.compile(r"^[A-Za-z0-9_.:-]+$")
DURATION_RE = re.compile(r"^([0-9]+(ms|s|m|h|d|w|y))+$")
# $name, ${name}, ${name:format}, [[name]]: the forms Grafana interpolates.
REF_RE = re.compile(r"\$\{(\w+)(?::\w+)?\}|\$(\w+)|\[\[(\w+)\]\]")
LABEL_VALUES_RE = re.compile(r"^\s*label_values\(\s*(.+?)\s*,\s*(\w+)\s*\)\s*$")


class QueryError(ValueError):
    """Bad input: a message naming what was given and what is allowed."""


def parse_vars(pairs):
    """["a=1", "a=2", "b=3"] -> {"a": ["1", "2"], "b": ["3"]}"""
    out = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not re.fullmatch(r"\w+", name):
            raise QueryError(f"--var {pair!r}: expected NAME=VALUE with NAME made of letters, digits, _")
        out.setdefault(name, []).append(value)
    return out


def _check_value(name, value):
    if name in BUILTINS:
        if not DURATION_RE.match(value):
            raise QueryError(f"--var {name}={value!r}: expected a Prometheus duration such as 30s, 5m, 1h")
    elif not VALUE_RE.match(value):
        raise QueryError(f"--var {name}={value!r}: allowed characters are letters, digits and _ . : -")


def _defaults(dashboard):
    """Values a dashboard's own variables fall back to when --var does not set them."""
    out = {}
    for var in dashboard.get("templating", {}).get("list", []):
        current = (var.get("current") or {}).get("value")
        if current in (None, "", []):
            continue
        values = current if isinstance(current, list) else [current]
        if values == ["$__all"]:
            if "allValue" not in var:
                continue
            out[var["name"]] = {"all": var["allValue"]}
        else:
            out[var["name"]] = values
    return out


def _render(values):
    if isinstance(values, dict):  # an "All" selection: Grafana inserts allValue verbatim
        return values["all"]
    return values[0] if len(values) == 1 else "(" + "|".join(values) + ")"


def substitute(expr, given, defaults, where):
    """Replace every variable reference; an unknown one is an error naming where it is."""
    def one(match):
        name = match.group(1) or match.group(2) or match.group(3)
        if name in given:
            return _render(given[name])
        if name in defaults:
            return _render(defaults[name])
        if name in BUILTINS:
            return BUILTINS[name]
        raise QueryError(f"{where}: ${name} has no value; give --var {name}=VALUE "
                         f"(known without --var: {', '.join(sorted(set(defaults) | set(BUILTINS)))})")
    return REF_RE.sub(one, expr)


def _variable_expr(var):
    """label_values(metric, label) -> the PromQL whose result carries the same label values."""
    query = var.get("query")
    text = query.get("query", "") if isinstance(query, dict) else (query or "")
    match = LABEL_VALUES_RE.match(text)
    return f"count by ({match.group(2)}) ({match.group(1)})" if match else None


def _panels(panels):
    for panel in panels:
        yield panel
        yield from _panels(panel.get("panels", []))  # collapsed rows keep their panels inside


def dashboard_queries(variables=None, dashboards_dir=DEFAULT_DIR):
    """Every PromQL expression of every dashboard in dashboards_dir, as dicts (see module doc).

    variables: {name: value or [values]}; builtins (__range, ...) may be overridden here too.
    """
    given = {}
    for name, value in (variables or {}).items():
        values = value if isinstance(value, list) else [value]
        if name in BUILTINS and len(values) != 1:
            raise QueryError(f"--var {name}: takes one duration, got {values!r}")
        for one in values:
            _check_value(name, one)
        given[name] = values
    try:
        files = sorted(f for f in os.listdir(dashboards_dir) if f.endswith(".json"))
    except OSError as err:
        raise QueryError(f"--dashboards {dashboards_dir!r}: {err.strerror}") from err
    if not files:
        raise QueryError(f"--dashboards {dashboards_dir!r}: no *.json dashboard in it")

    out = []
    for file in files:
        path = os.path.join(dashboards_dir, file)
        try:
            with open(path, encoding="utf-8") as f:
                dashboard = json.load(f)
        except (OSError, ValueError) as err:
            raise QueryError(f"{path}: not a readable JSON dashboard: {err}") from err
        defaults = _defaults(dashboard)
        name = dashboard.get("uid") or file

        def add(panel, kind, expr, instant=False):
            where = f"{path}: {kind} {panel!r}"
            out.append({"dashboard": name, "panel": panel, "kind": kind, "instant": instant,
                        "expr": substitute(expr, given, defaults, where)})

        for var in dashboard.get("templating", {}).get("list", []):
            expr = _variable_expr(var) if var.get("type") == "query" else None
            if expr:
                add(f"${var['name']}", "variable", expr)
        for annotation in dashboard.get("annotations", {}).get("list", []):
            if annotation.get("expr"):
                add(annotation.get("name", ""), "annotation", annotation["expr"])
        for panel in _panels(dashboard.get("panels", [])):
            for target in panel.get("targets", []):
                if target.get("expr") and not target.get("hide"):
                    title = f"{panel.get('title', '')} [{target.get('refId', '')}]"
                    add(title, "target", target["expr"], bool(target.get("instant")))
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--var", action="append", default=[], metavar="NAME=VALUE",
                        help="value of a dashboard variable; repeat a NAME for several values")
    parser.add_argument("--dashboards", default=DEFAULT_DIR, metavar="DIR",
                        help="folder of dashboard JSON files (default: %(default)s)")
    args = parser.parse_args(argv)
    try:
        rows = dashboard_queries(parse_vars(args.var), args.dashboards)
    except QueryError as err:
        print(f"dashboard_queries: {err}", file=sys.stderr)
        return 2
    for row in rows:
        print(json.dumps(row))
    return 0


if __name__ == "__main__":
    sys.exit(main())
