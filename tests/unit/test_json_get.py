"""lab/json-get.py: the fields of a JSON document for bash (runme.sh's compose project name), a
missing or null field an empty line, what is not JSON refused."""
import json
import subprocess
import sys
from pathlib import Path

LAB_ROOT = Path(__file__).resolve().parents[2]


def get(stdin, *paths):
    return subprocess.run([sys.executable, str(LAB_ROOT / "lab" / "json-get.py"), *paths], input=stdin,
                          capture_output=True, text=True)


def test_json_get_prints_each_field_on_its_line():
    doc = json.dumps({"name": "status3-e2e", "server": {"product": "PgBouncer", "n": 2}, "none": None})
    r = get(doc, "name", "server.product", "server.n", "none", "absent", "name.deeper")
    assert r.returncode == 0 and r.stdout == "status3-e2e\nPgBouncer\n2\n\n\n\n"


def test_json_get_refuses_what_is_not_json():
    r = get("Error: no such service", "name")
    assert r.returncode == 2 and r.stdout == "" and "stdin is not JSON" in r.stderr
