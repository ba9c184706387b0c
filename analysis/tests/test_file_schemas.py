"""The files passed between the parts are checked against their schemas where analysis reads them
(analysis/common/file_schemas.py through benchfiles): the client's (client/src/<name>.schema.json) and the
lab's settings (lab/settings.schema.json). Every recorded fixture's result files, counts,
server-stats pairs and settings match, and a file that does not is refused naming the file, the
schema, where and what."""
import glob
import json
import os
import shutil

import pytest

from analysis.common import file_schemas
from analysis.bench import benchfiles
from analysis.figures import results
from analysis.common.errors import AnalysisError

FIXTURES = os.path.join(os.path.dirname(__file__), "fixtures")


def _fixture_files(pattern):
    return sorted(glob.glob(os.path.join(FIXTURES, "**", pattern), recursive=True))


def test_every_recorded_file_matches_its_schema():
    kinds = {"result": _fixture_files("*client-*.json"), "count": _fixture_files("*.count.json"),
             "server-stats": _fixture_files("*server-stats.json")}
    assert all(kinds.values()), {k: len(v) for k, v in kinds.items()}
    for name, paths in kinds.items():
        for path in paths:
            with open(path) as f:
                file_schemas.client(json.load(f), name, path)


def test_every_recorded_settings_file_matches_and_a_wrong_one_is_refused(tmp_path):
    paths = _fixture_files("*settings.json")
    assert paths
    for path in paths:
        with open(path) as f:
            file_schemas.check(json.load(f), "lab/settings.schema.json", path)
    bench = tmp_path / "tsdb"
    shutil.copytree(os.path.join(FIXTURES, "timescaledb-compress"), bench)
    path = bench / "timescaledb.settings.json"
    settings = json.loads(path.read_text())
    settings["command"] = ["postgres", "-c", 4]
    path.write_text(json.dumps(settings))
    with pytest.raises(AnalysisError) as e:
        benchfiles.settings_json(str(bench), "timescaledb")
    assert str(e.value) == f"{path}: does not match lab/settings.schema.json at 'command/2': 4 is not of type 'string'"


def test_a_count_that_does_not_match_is_refused_naming_the_file_and_where(tmp_path):
    bench = tmp_path / "bench1"
    shutil.copytree(os.path.join(FIXTURES, "bench1"), bench)
    path = bench / "postgres.count.json"
    count = json.loads(path.read_text())
    count["total_bytes"] = "6532800"
    path.write_text(json.dumps(count))
    with pytest.raises(AnalysisError) as e:
        results.build(str(bench))
    assert str(e.value) == (f"{path}: does not match client/src/count.schema.json at 'total_bytes': "
                            "'6532800' is not of type 'integer'")


def test_a_client_result_and_a_reading_that_do_not_match_are_refused(tmp_path):
    bench = tmp_path / "tsdb"
    shutil.copytree(os.path.join(FIXTURES, "timescaledb-compress"), bench)
    stats = bench / "timescaledb.server-stats.json"
    pair = json.loads(stats.read_text())
    del pair["end"]["counters"]
    stats.write_text(json.dumps(pair))
    with pytest.raises(AnalysisError, match=r"server-stats\.json: does not match client/src/server-stats\.schema\.json at 'end'"):
        benchfiles.server_stats_json(str(bench), "timescaledb")
    client = sorted((bench / "clients").glob("timescaledb-client-*.json"))[0]
    result = json.loads(client.read_text())
    result["errors"] = -1
    client.write_text(json.dumps(result))
    with pytest.raises(AnalysisError) as e:
        benchfiles.client_results(str(bench), "timescaledb")
    assert str(e.value) == f"{client}: does not match client/src/result.schema.json at 'errors': -1 is less than the minimum of 0"
