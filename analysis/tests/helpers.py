"""Picks fixture benches by what they hold, so the fixtures can be replaced by real runs."""
import pytest


def bench_with(fixture_benches, predicate, what):
    """The first fixture bench whose results satisfy predicate (fixtures may be replaced by real runs)."""
    from analysis import results
    for name, path in fixture_benches.items():
        if predicate(results.build(path)):
            return name
    pytest.skip(f"no fixture bench {what}")


def stand_in_bench(fixture_benches):
    return bench_with(fixture_benches, lambda r: any(x["stand_in"] for x in r["runs"]), "with a stand-in run")


def hardware_bench(fixture_benches):
    return bench_with(fixture_benches, lambda r: len(r["runs"]) == 2 and all(x["cpu"]["instructions"] for x in r["runs"]),
                      "with hardware counters on both databases")
