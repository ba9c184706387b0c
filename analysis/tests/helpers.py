"""Picks fixture benches by what they hold, so the fixtures can be replaced by real runs."""
import pytest


def bench_with(fixture_benches, predicate, what):
    """The first fixture bench whose results satisfy predicate (fixtures may be replaced by real runs)."""
    from analysis.figures import results
    for name, path in fixture_benches.items():
        if predicate(results.build(path)):
            return name
    pytest.skip(f"no fixture bench {what}")


def stand_in_bench(fixture_benches):
    return bench_with(fixture_benches, lambda r: any(x["stand_in"] for x in r["runs"]), "with a stand-in run")


def hardware_bench(fixture_benches):
    return bench_with(fixture_benches, lambda r: len(r["runs"]) == 2 and all(x["cpu"]["instructions"] for x in r["runs"]),
                      "with hardware counters on both databases")


def client_result(**fields):
    """A made-up client result file with what every client writes (client/src/result.schema.json's
    required fields, zero work), updated with fields: analysis checks the files it reads."""
    result = {
        "bench": "made-up", "database": "postgres", "server": {"product": "PostgreSQL", "version": "15", "stand_in": False},
        "client_id": "1", "target_rate": 0, "docs_target": 0, "docs_ok": 0, "errors": 0, "dropped": 0, "not_sent": 0,
        "reconnects": 0, "achieved_rate": 0, "target_sustained": True, "interrupted": False, "histograms": {},
    }
    result.update(fields)
    return result
