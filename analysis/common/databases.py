"""The databases analysis knows and the baseline of its ratios, read from their manifests
(databases/<name>/database.json and databases/baseline.json, through databases/manifests.py): a
database's names, processes and colour are written once, in its folder."""
import functools
import importlib.util
import os
import sys

from .errors import AnalysisError

try:
    from databases import manifests
except ImportError:  # analysis imported from another working directory: the checkout's root
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    from databases import manifests


@functools.lru_cache(maxsize=None)
def all_manifests():
    try:
        return manifests.load_all()
    except manifests.ManifestError as e:
        raise AnalysisError(str(e)) from None


@functools.lru_cache(maxsize=None)
def known_manifests():
    """Every manifest, also of a database the lab does not run yet (`not_in_lab`): a run's files are
    the truth of what ran, so a database found in them is named and coloured by its folder."""
    try:
        return {n: manifests.load(n) for n in manifests.names(not_in_lab=True)}
    except manifests.ManifestError as e:
        raise AnalysisError(str(e)) from None


def names():
    """Every database with a manifest the lab runs, sorted."""
    return list(all_manifests())


@functools.lru_cache(maxsize=None)
def baseline():
    """(numerator, denominator) of every ratio: databases/baseline.json (the original study's
    mongodb/postgres)."""
    try:
        return manifests.baseline()
    except manifests.ManifestError as e:
        raise AnalysisError(str(e)) from None


def pair(numerator=None, denominator=None):
    """The ratio's sides asked for, the baseline's where not given."""
    num, den = baseline()
    return numerator or num, denominator or den


def in_run_order(dbs):
    """DBS as a run without a plan file lists them: the baseline's pair first (DATABASES' default,
    "mongodb postgres"), then the others by name."""
    pair_ = [d for d in baseline() if d in dbs]
    return pair_ + sorted(d for d in dict.fromkeys(dbs) if d not in pair_)


def others(dbs):
    """The databases of `dbs` beyond the baseline's pair, in their order: each has its ratio against
    the baseline's denominator ("mysql/postgres"), beside the pair's own (mongodb/postgres)."""
    return [d for d in dict.fromkeys(dbs) if d not in baseline()]


def products(dbs=()):
    """The products a ratio compares, by their manifests' labels: the baseline's pair ("MongoDB vs
    PostgreSQL"), then each further database of `dbs` ("... vs MySQL")."""
    num, den = baseline()
    return " vs ".join((known_manifests().get(d) or {}).get("label", d) for d in [num, den] + others(dbs))


def colors():
    """Each database's colour (every manifest: a results file may hold a database not in the lab's list)."""
    return {n: m["color"] for n, m in known_manifests().items()}


def server_processes(name):
    """Every process name the database's server ran under (official, stand-in if it has one, earlier stand-ins):
    a profile of any run is read with them. Empty for a database without a manifest."""
    m = known_manifests().get(name)
    if m is None:
        return set()
    return set(m["processes"]) | set(m.get("standin", {}).get("processes", [])) | set(m.get("own_image", {}).get("processes", [])) | {
        p for s in m.get("earlier_standins", []) for p in s["processes"]}


def of_server_stats_name(server_name):
    """The database whose server-stats readings name this server (official or stand-in), or None."""
    for n, m in known_manifests().items():
        if server_name in (m["server_stats_name"], m.get("standin", {}).get("server_stats_name")):
            return n
    return None


HOOKS = "analysis.py"


@functools.lru_cache(maxsize=None)
def hooks(name):
    """databases/<name>/analysis.py as a module (what analysis knows of that database: its WAL-like
    counters, counter meanings, reconciliation rules, fairness cells), or None for a database without
    one. Loaded by its folder, so no database is named in analysis/ to find it. What a hooks file may
    define is listed in docs/contracts.md ("A database's analysis hooks")."""
    if name not in known_manifests():
        return None
    path = os.path.join(manifests.ROOT, name, HOOKS)
    if not os.path.exists(path):
        return None
    spec = importlib.util.spec_from_file_location(f"jsonbench_database_hooks_{name}", path)
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except Exception as e:  # a broken hooks file is named, not a traceback from inside a figure
        raise AnalysisError(f"{path}: cannot be loaded: {type(e).__name__}: {e}") from None
    return module


def hook(name, attribute, default=None):
    """One attribute of a database's hooks (databases/<name>/analysis.py), or `default`."""
    module = hooks(name)
    return getattr(module, attribute, default) if module is not None else default
