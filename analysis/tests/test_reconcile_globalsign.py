"""WORKLOAD=globalsign's run phase reconciled with the servers' counters: its range selects are the
lab's own reads (MongoDB: one find each, a getMore tolerated; MySQL: one SELECT and one index dive
each, the band's rows read by next not counted by the clients). Recorded on the stand-ins
(SecantusDB 0.7.0b3, MySQL 9.7.4) by a hand run of the globalsign bench (3 clients x 1,200 operations
of insert=1,update=1,range=1 at 20/s on 3,000 people): both clean."""
from analysis.figures import reconcile
from analysis.tests.test_reconcile import case


def test_mysql_range_selects_are_the_labs_selects_and_index_dives():
    stats, clients = case("mysql97-globalsign-clean")
    r = reconcile.reconcile("mysql", stats, clients)
    ranges = sum(c["operations"]["range"]["ok"] for c in clients)
    assert ranges == 1205
    assert r["verdict"] == "ok", r["reasons"]
    c = r["checks"]
    assert c["selects"]["verdict"] == "ok" and c["selects"]["expected"] >= ranges
    assert "range" in c["selects"]["about"] and "range" in c["keyed_reads"]["about"]
    assert c["rows_read_next"]["verdict"] == "unavailable" and "1205 range selects" in c["rows_read_next"]["reason"]


def test_mongodb_range_finds_are_the_labs_reads():
    stats, clients = case("secantus-globalsign-clean")
    r = reconcile.reconcile("mongodb", stats, clients)
    assert r["verdict"] == "ok", r["reasons"]
    c = r["checks"]["reads"]
    assert c["verdict"] == "ok" and c["expected"] == sum(x["operations"]["range"]["ok"] for x in clients)
    assert "range" in c["about"]


def test_mongodb_ranges_through_getmores_are_the_round_trips_the_clients_counted():
    """1 MiB people (globalsign-1mb/ with ranges): a band's people come in a find and several getMores.
    The recorded clean run with 3 more getMores per range on the server's side: without the clients'
    range_round_trips that is beyond the one getMore a range is allowed (suspect); with them stating
    those round trips, the reads are the lab's own (ok)."""
    import copy
    stats, clients = case("secantus-globalsign-clean")
    ranges = sum(x["operations"]["range"]["ok"] for x in clients)
    more = copy.deepcopy(stats)
    more["end"]["counters"]["opcounters_getmore"] += 3 * ranges
    r = reconcile.reconcile("mongodb", more, clients)
    assert r["checks"]["reads"]["verdict"] == "suspect", r["checks"]["reads"]
    # the recorded run's own getMores (most of its ranges took one: ~870 people of ~320 B in the band)
    # and the 3 more per range, as the clients would have counted them
    def delta(s, k):
        return s["end"]["counters"][k] - s["start"]["counters"][k]
    getmores = delta(more, "opcounters_getmore")
    assert getmores > 3 * ranges
    stated = copy.deepcopy(clients)
    for i, c in enumerate(stated):
        n = c["operations"]["range"]["ok"]
        c["range_round_trips"] = {"ranges": n, "round_trips": n + (getmores if i == 0 else 0), "documents": 0,
                                  "source": "test"}
    r = reconcile.reconcile("mongodb", more, stated)
    c = r["checks"]["reads"]
    assert c["verdict"] == "ok", c
    assert c["expected"] == ranges + getmores
    assert "range_round_trips" in c["about"]
