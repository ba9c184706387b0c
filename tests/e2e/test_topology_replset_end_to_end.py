"""TOPOLOGY=replset through ./runme.sh on the real stack (2 clients x 200 documents per database):
the mongodb service gets `--replSet rs0` (and the keyFile mongod requires with --auth), the lab
initiates the one-member set from outside before the window and waits for the primary, the run is
ok, the results state the topology, and the server wrote an oplog entry per document (read from
the host while the PostgreSQL phase runs: MongoDB is up and idle then; the run removes it at the end).
On the stand-in SecantusDB has no replSetInitiate: the initiation step says so and goes on only
because hello already reports the node as primary of its fixed set 'secantus'."""
import json
import subprocess

import pytest

from conftest import BIND_ADDRESS, LAB_ROOT, PORTS, lab_env, remove_project, tiny_bench

DOCS = 200
OPLOG_INSERTS = """
const { MongoClient } = require('./client/node_modules/mongodb');
(async () => {
  const c = new MongoClient(process.argv[1]);
  try {
    const n = await c.db('local').collection('oplog.rs').countDocuments({ op: 'i', ns: 'jsonbench.jsonbench' });
    console.log(JSON.stringify({ inserts: n }));
  } finally { await c.close(); }
})();
"""


def env_file():
    return dict(l.split("=", 1) for l in (LAB_ROOT / ".env").read_text().splitlines() if "=" in l and not l.startswith("#"))


@pytest.fixture(scope="module")
def replset_run(workdir):
    remove_project()
    bench = workdir / "bench-e2e-replset"
    bench.mkdir()
    (bench / "bench.env").write_text(tiny_bench(DOCS, 0, extra="TOPOLOGY=replset\n"))
    e = env_file()
    uri = (f"mongodb://{e.get('MONGO_USER', 'jsonbench')}:{e['MONGO_PASSWORD']}@{BIND_ADDRESS}:{PORTS['MONGO_PORT']}"
           "/?authSource=admin&directConnection=true")
    proc = subprocess.Popen([str(LAB_ROOT / "runme.sh"), "--no-branch", "--no-check", str(bench)], cwd=LAB_ROOT,
                            env=lab_env(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            stdin=subprocess.DEVNULL)
    lines, oplog = [], None
    try:
        for line in proc.stdout:
            lines.append(line)
            if oplog is None and "postgres: phase starts" in line:
                oplog = subprocess.run(["node", "-e", OPLOG_INSERTS, uri], cwd=LAB_ROOT, capture_output=True,
                                       text=True, timeout=60)
        proc.wait(timeout=600)
    finally:
        if proc.poll() is None:
            proc.kill()
    (workdir / "runme-replset.log").write_text("".join(lines))
    yield bench, proc.returncode, "".join(lines), oplog
    remove_project()


def test_the_replica_set_is_initiated_before_the_window_and_the_run_is_ok(replset_run):
    bench, code, out, _ = replset_run
    assert code == 0, out[-3000:]
    results = json.loads((bench / "results.json").read_text())
    assert results["config"]["topology"] == "replset"
    run = next(r for r in results["runs"] if r["database"] == "mongodb")
    assert run["status"] == "ok" and run["docs_in_db"] == 2 * DOCS, run
    initiated = json.loads(next(l for l in out.splitlines() if l.startswith('{"set":')))
    if run["stand_in"]:
        assert initiated["set"] == "secantus" and initiated["initiated"] is False
        assert "the server has no replSetInitiate" in initiated["note"] and "'secantus'" in initiated["note"]
    else:
        assert initiated["set"] == "rs0" and initiated["initiated"] is True


def test_the_service_ran_with_replset_and_a_keyfile(replset_run):
    bench, _, _, _ = replset_run
    settings = json.loads((bench / "mongodb.settings.json").read_text())
    # after the command: `--auth` then these on the official path; the stand-in adds --auth itself
    assert '"$$@" --auth --replSet rs0 --keyFile /tmp/jsonbench-keyfile' in settings["entrypoint"][2] or \
        settings["entrypoint"][2] == 'exec /usr/local/bin/standin-entrypoint.sh "$$@" --replSet rs0 --keyFile /tmp/jsonbench-keyfile'


def test_the_server_wrote_an_oplog_entry_per_document(replset_run):
    _, _, _, oplog = replset_run
    assert oplog is not None and oplog.returncode == 0, oplog and oplog.stderr
    assert json.loads(oplog.stdout)["inserts"] == 2 * DOCS
