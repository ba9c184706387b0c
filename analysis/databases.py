"""The databases analysis knows and the baseline of its ratios, read from their manifests
(databases/<name>/database.json and databases/baseline.json, through databases/manifests.py): a
database's names, processes and colour are written once, in its folder."""
import functools
import os
import sys

from .errors import AnalysisError

try:
    from databases import manifests
except ImportError:  # analysis imported from another working directory: the checkout's root
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    from databases import manifests


@functools.lru_cache(maxsize=None)
def all_manifests():
    try:
        return manifests.load_all()
    except manifests.ManifestError as e:
        raise AnalysisError(str(e)) from None


def names():
    """Every database with a manifest, sorted."""
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


def colors():
    return {n: m["color"] for n, m in all_manifests().items()}


def server_processes(name):
    """Every process name the database's server ran under (official, stand-in, earlier stand-ins):
    a profile of any run is read with them. Empty for a database without a manifest."""
    m = all_manifests().get(name)
    if m is None:
        return set()
    return set(m["processes"]) | set(m["standin"]["processes"]) | {
        p for s in m.get("earlier_standins", []) for p in s["processes"]}


def of_server_stats_name(server_name):
    """The database whose server-stats readings name this server (official or stand-in), or None."""
    for n, m in all_manifests().items():
        if server_name in (m["server_stats_name"], m["standin"]["server_stats_name"]):
            return n
    return None
