"""lab/driver/plan.py reads plan.json's phases (docs/contracts.md §2): the contract's words only, as
their line form was checked (lab/plan.sh parse_plan_line), since the values end up in file names and
arithmetic. Each case is written as the line form and given as the plan.json entry it stands for."""
import re
from pathlib import Path

import pytest

from lab.driver.plan import phase_of
from lab.driver.request import BadInput

ROOT = Path(__file__).resolve().parents[2]


def entry(line):
    """A line's words as a plan.json phase: numbers as numbers, query - as null."""
    out = {}
    for word in line.split():
        key, _, value = word.partition("=")
        if key in ("ops", "rate", "expected_s", "clients"):
            try:
                value = float(value) if "." in value else int(value)
            except ValueError:
                pass
        out["id" if key == "phase" else key] = None if key == "query" and value == "-" else value
    return out


def parse(line, lab_root=ROOT):
    """(0, 'id|db|stage|ops|rate|expected_s|clients|query') or (2, '', message), as the bash gave."""
    try:
        p = phase_of(entry(line), str(lab_root))
    except BadInput as e:
        return 2, "", str(e)
    num = lambda x: str(int(x)) if float(x).is_integer() else str(x)  # noqa: E731
    return 0, f"{p.id}|{p.database}|{p.stage}|{p.ops}|{num(p.rate)}|{num(p.expected_s)}|{p.clients}|{p.query or ''}", ""


def test_a_contract_line_is_read():
    assert parse("phase=mongodb-load database=mongodb stage=load ops=500 rate=0 expected_s=12.5 clients=8 query=-")[:2] == \
        (0, "mongodb-load|mongodb|load|500|0|12.5|8|")
    assert parse("phase=postgres database=postgres stage=run ops=1000 rate=15 expected_s=67 clients=2 query=-")[:2] == \
        (0, "postgres|postgres|run|1000|15|67|2|")
    assert parse("phase=postgres-q-lastpoint database=postgres stage=query ops=20 rate=0 expected_s=100 clients=1 "
                 "query=lastpoint")[:2] == (0, "postgres-q-lastpoint|postgres|query|20|0|100|1|lastpoint")


@pytest.mark.parametrize("line", [
    "phase=x database=oracle stage=run ops=1 rate=1 expected_s=1 clients=1 query=-",         # unknown database
    "phase=../etc database=postgres stage=run ops=1 rate=1 expected_s=1 clients=1 query=-",  # not a file prefix
    "phase=p database=postgres stage=warmup ops=1 rate=1 expected_s=1 clients=1 query=-",    # unknown stage
    "phase=p database=postgres stage=run ops=-1 rate=1 expected_s=1 clients=1 query=-",
    "phase=p database=postgres stage=run ops=1 rate=fast expected_s=1 clients=1 query=-",
    "phase=p database=postgres stage=run ops=1 rate=1 clients=1 query=-",   # a word missing
    "phase=p database=postgres stage=run ops=1 rate=1 expected_s=1 query=-",  # clients missing
    "phase=p database=postgres stage=run ops=1 rate=1 expected_s=1 clients=0 query=-",
    "phase=p database=postgres stage=query ops=1 rate=1 expected_s=1 clients=1 query=-",  # a query phase names its query
    "phase=p database=postgres stage=query ops=1 rate=1 expected_s=1 clients=1 query=../x",
    "",
])
def test_anything_else_is_refused_naming_the_line(line):
    code, _, err = parse(line)
    assert code == 2 and "node client plan printed a line" in err
    # the refusal names the entry, in its line form
    for word in line.split():
        assert word in err, (word, err)


def test_a_database_is_known_by_its_manifest_alone(tmp_path):
    """A third database needs its folder, not an edit of the driver; without one the line is refused
    naming the databases that have one."""
    line = "phase=mysql-load database=mysql stage=load ops=5 rate=0 expected_s=1 clients=1 query=-"
    code, _, err = parse(line, tmp_path)
    assert code == 2 and "database=<>" in err
    (tmp_path / "databases" / "mysql").mkdir(parents=True)
    (tmp_path / "databases" / "mysql" / "database.json").write_text("{}")
    assert parse(line, tmp_path)[:2] == (0, "mysql-load|mysql|load|5|0|1|1|")
    code, _, err = parse("phase=x database=oracle stage=run ops=1 rate=1 expected_s=1 clients=1 query=-")
    assert code == 2 and {"mongodb", "postgres"} <= set(re.search(r"database=<([a-z|]+)>", err).group(1).split("|"))


def test_a_database_not_yet_in_the_lab_is_refused_like_an_unknown_one(tmp_path):
    """A manifest that says not_in_lab (its binding built, its lab wiring not): the lab's plan refuses
    its phases and does not list it, as manifests.names does not. The shipped four are all listed."""
    line = "phase=timescaledb database=timescaledb stage=run ops=5 rate=1 expected_s=1 clients=1 query=-"
    assert parse(line)[:2] == (0, "timescaledb|timescaledb|run|5|1|1|1|")
    lab = tmp_path / "lab"
    for name in ("mongodb", "timescaledb"):
        (lab / "databases" / name).mkdir(parents=True)
        text = (ROOT / "databases" / name / "database.json").read_text()
        if name == "timescaledb":
            text = text.rstrip().rstrip("}") + ', "not_in_lab": "its wiring is to come"}'
        (lab / "databases" / name / "database.json").write_text(text)
    code, _, err = parse(line, lab)
    assert code == 2 and re.search(r"database=<([a-z|]+)>", err).group(1).split("|") == ["mongodb"]
    _, _, err = parse("phase=x database=nosuch stage=run ops=5 rate=1 expected_s=1 clients=1 query=-")
    assert {"mongodb", "mysql", "postgres", "timescaledb"} == set(re.search(r"database=<([a-z|]+)>", err).group(1).split("|"))
