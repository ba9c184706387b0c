"""lab/phase.sh ceil_seconds: the plan's expected seconds rounded up in bash (it was an inline python3 -c
math.ceil); the values are what lab/plan.sh parse_plan_line accepts: digits, maybe a fraction."""
import math
import subprocess
from pathlib import Path

LAB_ROOT = Path(__file__).resolve().parents[2]


def ceil_seconds(value):
    r = subprocess.run(["bash", "-c", f'. "{LAB_ROOT}/lab/phase.sh"; ceil_seconds "$1"', "_", value],
                       capture_output=True, text=True, check=True)
    return int(r.stdout)


def test_rounds_up_as_math_ceil():
    for value in ("0", "15", "15.0", "15.000", "15.5", "0.001", "08", "09.90", "120.0001", "7200"):
        assert ceil_seconds(value) == math.ceil(float(value)), value
