"""plan.json is the only plan a client container reads: with a bench loaded (lab/bench.sh load_run_env),
lab/stack.sh starts each phase client as `run --plan /bench/plan.json --phase ID --client I` with the
bench folder mounted at /bench and nothing of the plan in its environment (only the URI; compose.yaml
adds the metrics port), and a one-shot gets the plan (and the phase under way) the same way. Every
shipped bench, through the lab's own functions; `compose` is replaced by a printer of its arguments
(no Docker). That the client parses from the plan what it parsed from the exported keys is
client/test/unit/plan-options.test.js's."""
import json
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = sorted(p.parent.name for p in ROOT.glob("*/bench.env"))

SCRIPT = """
LAB_ROOT="$1"; dir="$2"
. "$LAB_ROOT/lab/phase.sh"; . "$LAB_ROOT/lab/plan.sh"; . "$LAB_ROOT/lab/bench.sh"; . "$LAB_ROOT/lab/stack.sh"
compose() { printf '%s\\n' "$@"; }
client_uri() { echo "mongodb://u:p@db/x"; }
database_uri() { echo "mongodb://u:p@db/x"; }
write_plan "$dir" && load_run_env "$dir" >/dev/null || exit 3
BENCH_DIR=$dir BENCH_NAME=$(basename "$dir") PROJECT=p
echo "== init"; client_oneshot mongodb init
parse_plan_line "${PLAN[-1]}"
PHASE_ID=$P_PHASE PHASE_STAGE=$P_STAGE PHASE_QUERY=$P_QUERY
echo "== start"; client_start "$P_DATABASE" 2 "$dir/clients" "$PHASE_ID"
echo "== count"; client_oneshot "$P_DATABASE" count
"""


def sections(out):
    parts, name = {}, None
    for line in out.splitlines():
        if line.startswith("== "):
            name = line[3:]
            parts[name] = []
        elif name:
            parts[name].append(line)
    return parts


def after(args, flag):
    return [args[i + 1] for i, a in enumerate(args[:-1]) if a == flag]


@pytest.mark.parametrize("bench", SHIPPED)
def test_a_client_container_gets_the_plan_and_its_phase_not_the_bench_keys(tmp_path, bench):
    dir = tmp_path / bench
    dir.mkdir()
    shutil.copy(ROOT / bench / "bench.env", dir / "bench.env")
    r = subprocess.run(["bash", "-c", SCRIPT, "_", str(ROOT), str(dir)], capture_output=True, text=True,
                       env={"PATH": "/usr/local/bin:/usr/bin:/bin"})
    assert r.returncode == 0, r.stderr
    plan = json.loads((dir / "plan.json").read_text())
    last = plan["phases"][-1]["id"]
    s = sections(r.stdout)
    start = s["start"]
    assert after(start, "-e") == ["URI"], start  # DATASET (mounted) and the lab's test knobs only when set
    assert after(start, "-v") == [f"{dir}:/bench:rw"]
    assert start[start.index("client"):] == ["client", "run", "--plan", "/bench/plan.json", "--phase", last, "--client", "2"]
    assert after(start, "--name") == [f"p-client-{last}-2"]
    for name, words in (("init", ["init", "--plan", "/bench/plan.json"]),
                        ("count", ["count", "--plan", "/bench/plan.json", "--phase", last])):
        assert after(s[name], "-e") == ["URI"], s[name]
        assert after(s[name], "-v") == [f"{dir}:/bench:ro"]
        assert s[name][s[name].index("client") + 1:] == words


def test_without_a_plan_the_named_keys_go_in_the_environment_as_before(tmp_path):
    """lab/bench-monitoring-cost.sh runs clients with no bench loaded: BENCH_KEYS by hand."""
    r = subprocess.run(["bash", "-c", f'LAB_ROOT="{ROOT}"; . "{ROOT}/lab/stack.sh"; compose() {{ printf "%s\\n" "$@"; }}; '
                        'client_uri() { echo x; }; BENCH_KEYS="KEY RATE" PROJECT=p client_start mongodb 1 /w/clients'],
                       capture_output=True, text=True, env={"PATH": "/usr/local/bin:/usr/bin:/bin"})
    assert r.returncode == 0, r.stderr
    out = r.stdout.splitlines()
    assert after(out, "-e") == ["CLIENT_ID=1", "RESULT=/results/mongodb-client-1.json", "METRICS_LINGER_S=3",
                                "KEY", "RATE", "URI", "BENCH"]
    assert out[-2:] == ["client", "run"]
