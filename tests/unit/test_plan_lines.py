"""lab/plan.sh reads `node client plan` lines (docs/contracts.md §2): the contract's words only,
since the values end up in file names and arithmetic."""
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def parse(line):
    r = subprocess.run(["bash", "-c", f'. "{ROOT}/lab/plan.sh"; parse_plan_line "$1" && '
                       'echo "$P_PHASE|$P_DATABASE|$P_STAGE|$P_OPS|$P_RATE|$P_EXPECTED_S"', "_", line],
                       capture_output=True, text=True)
    return r.returncode, r.stdout.strip(), r.stderr


def test_a_contract_line_is_read():
    assert parse("phase=mongodb-load database=mongodb stage=load ops=500 rate=0 expected_s=12.5")[:2] == \
        (0, "mongodb-load|mongodb|load|500|0|12.5")
    assert parse("phase=postgres database=postgres stage=run ops=1000 rate=15 expected_s=67")[:2] == \
        (0, "postgres|postgres|run|1000|15|67")


@pytest.mark.parametrize("line", [
    "phase=x database=oracle stage=run ops=1 rate=1 expected_s=1",         # unknown database
    "phase=../etc database=postgres stage=run ops=1 rate=1 expected_s=1",  # not a file prefix
    "phase=p database=postgres stage=warmup ops=1 rate=1 expected_s=1",    # unknown stage
    "phase=p database=postgres stage=run ops=-1 rate=1 expected_s=1",
    "phase=p database=postgres stage=run ops=1 rate=fast expected_s=1",
    "phase=p database=postgres stage=run ops=1 rate=1",                     # a word missing
    "",
])
def test_anything_else_is_refused_naming_the_line(line):
    code, _, err = parse(line)
    assert code == 2 and "node client plan printed a line" in err and repr(line)[1:-1] in err
