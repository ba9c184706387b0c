"""A DATASET file (WORKLOAD=events) is named relative to its bench folder: run.env holds it absolute
(lab/bench.sh write_run_env, with DATASET_BASE for the copies the check and a sweep's points make),
and lab/stack.sh mounts it read-only into the client containers at /dataset/<name>."""
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BENCH = 'DESCRIPTION=x\nWORKLOAD=events\nDATASET=data/ev.ndjson\nKEY=uuidv7\nLAYOUT=heap\nCLIENTS=1\n'


def bash(script, **env):
    return subprocess.run(["bash", "-c", f'LAB_ROOT="{ROOT}"; . "{ROOT}/lab/bench.sh"; . "{ROOT}/lab/stack.sh"; {script}'],
                          capture_output=True, text=True, env={"PATH": "/usr/local/bin:/usr/bin:/bin", **env})


def last_dataset(run_env):
    return [ln for ln in run_env.read_text().splitlines() if ln.startswith("DATASET=")][-1]


def test_run_env_holds_the_dataset_absolute_relative_to_the_bench_folder(tmp_path):
    src, copy = tmp_path / "src", tmp_path / "copy"
    for d in (src, copy):
        d.mkdir()
        (d / "bench.env").write_text(BENCH)
    assert bash(f'write_run_env "{src}"').returncode == 0
    assert last_dataset(src / "run.env") == f"DATASET={src}/data/ev.ndjson"
    # a copy of the bench (the check's, a sweep point's) resolves against the original folder
    assert bash(f'DATASET_BASE="{src}" write_run_env "{copy}"').returncode == 0
    assert last_dataset(copy / "run.env") == f"DATASET={src}/data/ev.ndjson"


def test_clients_get_the_file_read_only_at_slash_dataset(tmp_path):
    out = bash("dataset_args", DATASET=f"{tmp_path}/ev.ndjson.gz", BENCH_DIR=str(tmp_path)).stdout.split("\n")
    assert out[:4] == ["-v", f"{tmp_path}/ev.ndjson.gz:/dataset/ev.ndjson.gz:ro", "-e", "DATASET=/dataset/ev.ndjson.gz"]
    out = bash("client_env_args", DATASET="/x/ev.ndjson", BENCH_KEYS="WORKLOAD DATASET").stdout.split("\n")
    assert "DATASET" not in out  # not passed through as the host path
    assert "DATASET=/dataset/ev.ndjson" in out
    assert bash("dataset_args").stdout == ""


def test_set_values_with_spaces_are_quoted_so_bash_reads_them_whole(tmp_path):
    """--set DATABASES="mongodb postgres mysql": run.env is sourced by bash (the check, the sweep) and
    read by the client; written bare, bash would run `postgres mysql` as a command."""
    (tmp_path / "bench.env").write_text("DESCRIPTION=x\nKEY=uuidv7\nLAYOUT=clustered\nFIELDS=1\nFIELD_BYTES=1\n"
                                        "CLIENTS=1\nRATE=1\nDOCS=1\n")
    r = bash(f'write_run_env "{tmp_path}" "DATABASES=mongodb postgres mysql" "DESCRIPTION=a b" && '
             f'(set -a; . "{tmp_path}/run.env"; echo "[$DATABASES][$DESCRIPTION]")')
    assert r.returncode == 0 and r.stdout.splitlines()[-1] == "[mongodb postgres mysql][a b]", r.stderr
    r = bash(f'write_run_env "{tmp_path}" "DESCRIPTION=it\'s"')
    assert r.returncode == 2 and "--set 'DESCRIPTION=it's': expected KEY=VALUE" in r.stderr
    assert not (tmp_path / "run.env.tmp").exists()
