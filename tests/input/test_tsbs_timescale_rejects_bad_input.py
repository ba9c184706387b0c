"""The paired sweep, COMPRESS, and COMPRESS on TimescaleDB's stand-in (the Apache edition) are
refused by ./runme.sh before anything starts: exit 2, the message naming the key, the value and what is allowed, no container,
nothing written into the bench folder (a copy of the shipped tsbs-timescale)."""
import shutil

import pytest

from test_runme_rejects_bad_input import LAB_ROOT, assert_refused, bench, runme


def shipped(tmp_path):
    d = tmp_path / "tsbs-timescale"
    d.mkdir()
    shutil.copy(LAB_ROOT / "tsbs-timescale" / "bench.env", d / "bench.env")
    return d


def untouched(d):
    assert sorted(p.name for p in d.iterdir()) == ["bench.env"]


@pytest.mark.parametrize("compress", ["after:12h", "after:30m"])
def test_compress_on_the_timescaledb_stand_in_is_refused_saying_it_has_no_compression(tmp_path, compress):
    # any COMPRESS but none (database.json standin.refuses {"not": "none"}): the Apache edition has none
    b = bench(tmp_path, WORKLOAD="tsbs", MODEL="native", DATABASES="timescaledb", COMPRESS=compress,
              FIELDS=None, FIELD_BYTES=None, DOCS=None)
    assert_refused(runme(str(b), env={"JSONBENCH_STANDINS": "1", "TIMESCALEDB_IMAGE": ""}),
                   f"COMPRESS={compress} cannot run on the stand-ins (JSONBENCH_STANDINS=1): the stand-in's TimescaleDB "
                   "2.19.3 is Debian's Apache-2.0 edition, which has no compression",
                   "allowed on the stand-ins: COMPRESS=none (the official image timescale/timescaledb:2.28.3-pg17 has "
                   "TimescaleDB's compression", "TIMESCALEDB_IMAGE")
    untouched(b)


def test_compress_on_the_mongodb_points_is_refused(tmp_path):
    d = shipped(tmp_path)
    assert_refused(runme("--set", "COMPRESS=after:12h", str(d)),
                   "--sweep MODEL=event+DATABASES=mongodb is refused", "COMPRESS=after:12h is native compression, which mongodb does not have",
                   "allowed: COMPRESS=none, or DATABASES of databases that have it (timescaledb)")
    untouched(d)


def test_a_bad_compress_form_names_the_allowed_values(tmp_path):
    b = bench(tmp_path, WORKLOAD="tsbs", MODEL="native", DATABASES="timescaledb", COMPRESS='"after:12 hours"',
              FIELDS=None, FIELD_BYTES=None, DOCS=None)
    assert_refused(runme(str(b)), 'COMPRESS: invalid value "after:12 hours"; allowed: none, or after:<n><s|m|h|d>')
    untouched(b)


def test_a_paired_sweep_is_checked_before_anything_starts(tmp_path):
    d = shipped(tmp_path)
    assert_refused(runme("--sweep", "MODEL+DATABASES=event+mongodb,native+cassandra", str(d)),
                   "'cassandra' is not a value of DATABASES")
    assert_refused(runme("--sweep", "MODEL+DATABASES=event+mongodb+x,native+timescaledb", str(d)),
                   "'event+mongodb+x' is not 2 values joined by '+'")
    assert_refused(runme("--sweep", "MODEL+DATABASES=event+mongodb,bucket+mongodb", "--sweep", "CLIENTS=1,2", str(d)),
                   "a paired sweep (K1+K2=v+w,...) runs alone")
    assert_refused(runme("--sweep", "MODEL+DATABASES=event+mongodb,event+timescaledb", str(d)),
                   "--sweep MODEL=event+DATABASES=timescaledb is refused", "MODEL=event has no timescaledb layout")
    untouched(d)
