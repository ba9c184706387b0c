"""lab/json-object.py: bash passes typed values and never splices JSON text (lab/phase.sh, perf.sh)."""
import json
import subprocess
import sys
from pathlib import Path

LAB_ROOT = Path(__file__).resolve().parents[2]


def run(*args):
    return subprocess.run([sys.executable, str(LAB_ROOT / "lab" / "json-object.py"), *args],
                          capture_output=True, text=True)


def obj(*args):
    r = run(*args)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def test_strings_are_passed_whole_whatever_they_hold():
    tricky = 'a "quoted", {braced} \\ value\nwith a newline'
    assert obj(f"reason={tricky}", "empty=") == {"reason": tricky, "empty": ""}


def test_optional_strings_are_null_when_empty():
    assert obj("stand_in?=", "query?=lastpoint") == {"stand_in": None, "query": "lastpoint"}


def test_numbers_keep_their_json_value_and_empty_or_null_is_null():
    assert obj("start#=1795330500.6162968", "clients#=2", "cpu#=", "end#=null") == {
        "start": 1795330500.6162968, "clients": 2, "cpu": None, "end": None}


def test_booleans_and_lists():
    assert obj("hw!=true", "off!=false", "events[]=task-clock,,page-faults", "none[]=",
               "missing[#]=2 3", "codes[#]=0 null 137", "no_codes[#]=") == {
        "hw": True, "off": False, "events": ["task-clock", "page-faults"], "none": [],
        "missing": [2, 3], "codes": [0, None, 137], "no_codes": []}


def test_dotted_keys_build_nested_objects_in_argument_order():
    assert obj("window.start#=1.5", "window.end#=2.5", "facts.database.state=running",
               "facts.database.exit_code#=", "raw:={\"a\": [1]}") == {
        "window": {"start": 1.5, "end": 2.5}, "facts": {"database": {"state": "running", "exit_code": None}},
        "raw": {"a": [1]}}


def test_a_value_not_of_its_type_is_refused_naming_the_argument():
    for arg, said in (("clients#=two", "clients#=two: 'two' is not a number"),
                      ("hw!=yes", "hw!=yes: 'yes' is not true or false"),
                      ("codes[#]=0 unknown", "codes[#]=0 unknown: 'unknown' is not a number"),
                      ("start#=true", "'true' is not a number"),
                      ("raw:={oops", "raw:={oops: not JSON"),
                      ("noequals", "noequals: no '='"),
                      ("a.=1", "a.=1: empty key")):
        r = run("ok=1", arg)
        assert r.returncode == 2 and r.stdout == "" and said in r.stderr, (arg, r.stderr)


def test_a_dotted_key_under_a_value_is_refused():
    r = run("window=x", "window.start#=1")
    assert r.returncode == 2 and "'window' is already set to a value that is not an object" in r.stderr


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
