"""results.json runs[].wal (InnoDB redo) and runs[].binlog (the binary log) of a mysql phase
(analysis/figures/wal.py through databases/mysql/analysis.py, over two `node client server-stats` readings)
against independent readings taken inside them: the log sequence number from SHOW ENGINE INNODB
STATUS, and the sizes of the binary log files in the server's data directory (stat in the
container), around real inserts, then YCSB-A's reads and JSON_SET updates, sent by `node client run`
(the official image compose.yaml pins when present, else the lab's stand-in: Debian's MySQL 9.7)."""
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from analysis.figures import wal
from lab_images import present

ROOT = Path(__file__).resolve().parents[2]
PASSWORD = "redo-test-password"
MANIFEST = json.loads((ROOT / "databases" / "mysql" / "database.json").read_text())
STANDIN = MANIFEST["standin"]["image"]
OFFICIAL = MANIFEST["versions"]["images"][MANIFEST["versions"]["default"]]  # databases/mysql/compose.yaml's
# the lab's settings that matter here (databases/mysql/compose.yaml): binary log on with full row
# images and partial JSON, strict durability
COMMAND = ["mysqld", "--innodb-buffer-pool-size=256M", "--innodb-flush-log-at-trx-commit=1", "--sync-binlog=1",
           "--log-bin=binlog", "--binlog-row-image=FULL", "--binlog-row-value-options=PARTIAL_JSON", "--skip-name-resolve"]
DOC = 10112  # bytes of JSON text of one 10 x 1000-character document


@pytest.fixture(scope="module")
def mysql():
    if not shutil.which("docker") or not shutil.which("node"):
        pytest.skip("needs docker and node")
    if not (ROOT / "client" / "node_modules").exists():
        pytest.skip("client dependencies not installed (npm ci in client/)")
    image = next((i for i in (OFFICIAL, STANDIN) if present(i)), None)
    if image is None:
        pytest.skip(f"neither {OFFICIAL} nor {STANDIN} is present (lab/standins/build.sh mysql builds the stand-in)")
    cid = subprocess.run(["docker", "run", "-d", "-p", "127.0.0.1::3306", "-e", f"MYSQL_ROOT_PASSWORD={PASSWORD}",
                          "-e", "MYSQL_DATABASE=jsonbench", "--label", "jsonbench.test=redo-binlog-bytes", image, *COMMAND],
                         capture_output=True, text=True, check=True).stdout.strip()
    try:
        port = subprocess.run(["docker", "port", cid, "3306/tcp"], capture_output=True, text=True,
                              check=True).stdout.split(":")[-1].strip()
        uri = f"mysql://root:{PASSWORD}@127.0.0.1:{port}/jsonbench"
        ready = client(uri, "wait-ready", READY_TIMEOUT_S="180")
        assert ready.returncode == 0, ready.stderr
        yield cid, uri
    finally:
        subprocess.run(["docker", "rm", "-f", "-v", cid], capture_output=True)


def client(uri, *args, **env):
    return subprocess.run(["node", str(ROOT / "client"), *args], capture_output=True, text=True,
                          env=dict(os.environ, URI=uri, **env), timeout=300)


def server_stats(uri):
    r = client(uri, "server-stats")
    assert r.returncode == 0, r.stderr
    return json.loads(next(line for line in r.stdout.splitlines() if line.startswith("{")))


def lsn(cid):
    """InnoDB's log sequence number as SHOW ENGINE INNODB STATUS prints it (the server's own text)."""
    r = subprocess.run(["docker", "exec", cid, "mysql", "-uroot", f"-p{PASSWORD}", "-N", "-e", "SHOW ENGINE INNODB STATUS"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    return int(re.search(r"Log sequence number\s+(\d+)", r.stdout.replace("\\n", "\n")).group(1))


def binlog_file_bytes(cid):
    """The binary log files' sizes in the data directory (not through the server)."""
    r = subprocess.run(["docker", "exec", cid, "sh", "-c", "stat -c '%n %s' /var/lib/mysql/binlog.[0-9]*"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    return sum(int(line.split()[-1]) for line in r.stdout.splitlines())


def window(cid, uri, work):
    """The analysis's redo and binary log bytes over `work`, and the independent readings inside them."""
    start = server_stats(uri)
    lsn0, files0 = lsn(cid), binlog_file_bytes(cid)
    work()
    lsn1, files1 = lsn(cid), binlog_file_bytes(cid)
    end = server_stats(uri)
    stats = {"start": start, "end": end}
    redo, binlog = wal.wal("mysql", stats), wal.further_logs("mysql", stats)["binlog"]
    assert redo["reason"] is None and redo["source"] == "Innodb_redo_log_current_lsn", redo
    # the readings bracket the independent ones: only InnoDB's own background work (purge, the
    # persistent statistics' update) may add redo between them
    assert lsn1 - lsn0 <= redo["bytes"] <= lsn1 - lsn0 + 65536, (redo, lsn0, lsn1)
    # the readings commit nothing: the binary log grew by exactly what the files grew
    assert binlog["reason"] is None and binlog["bytes"] == files1 - files0, (binlog, files0, files1)
    return redo["bytes"], binlog["bytes"], lsn1 - lsn0, end


def test_redo_and_binlog_bytes_equal_the_lsn_advance_and_the_files_growth(mysql, tmp_path):
    cid, uri = mysql
    base = dict(KEY="uuidv7", LAYOUT="clustered", FIELDS="10", FIELD_BYTES="1000", SEED="3", DURABILITY="strict",
                WORKLOAD="ycsb", RECORDS="150", CLIENTS="1", CLIENT_ID="1")
    assert client(uri, "init", **base).returncode == 0

    def load():  # 150 inserts of 10 x 1000-character documents
        r = client(uri, "run", STAGE="load", LOAD_RATE="0", **base)
        assert r.returncode == 0, r.stderr

    result = tmp_path / "client.json"

    def ycsb_a():  # 150 YCSB-A operations: reads and one-field JSON_SET updates (1000 characters)
        r = client(uri, "run", STAGE="run", MIX="A", RATE="100", OPS="150", RESULT=str(result), **base)
        assert r.returncode == 0, r.stderr

    redo, binlog, lsn_delta, _ = window(cid, uri, load)
    print(f"150 inserts: redo {redo} B (SHOW ENGINE INNODB STATUS: {lsn_delta} B), binary log {binlog} B "
          f"(the files' growth, equal); per document {redo / 150:.0f} B and {binlog / 150:.0f} B")
    assert redo > 150 * DOC and binlog > 150 * DOC, "each document at least once in each log"

    redo, binlog, lsn_delta, end = window(cid, uri, ycsb_a)
    updates = json.loads(result.read_text())["operations"]["update"]["ok"]
    print(f"YCSB-A ({updates} updates): redo {redo} B (SHOW ENGINE INNODB STATUS: {lsn_delta} B), binary log "
          f"{binlog} B (the files' growth, equal); per update {redo / updates:.0f} B and {binlog / updates:.0f} B")
    assert end["raw"]["variables"]["binlog_row_image"] == "FULL"
    assert end["raw"]["variables"]["binlog_row_value_options"] == "PARTIAL_JSON"
    # reads log nothing; each update's row event holds the whole document before (FULL) and only the
    # changed field after (PARTIAL_JSON): between one and one and a half documents
    assert updates > 30 and DOC < binlog / updates < 1.5 * DOC, binlog / updates
