"""lab/test.sh's e2e streams run side by side with the Python suite, each on its own port base
(JSONBENCH_E2E_PORT_BASE): no port any of them publishes may be another's. A stream publishes its
base + the offsets in tests/e2e/conftest.py, and test_database_stop.py a second stack at base + 1000;
tests/input's runme.sh runs publish at 25000 + 4000 (its own default). A third stream once started
at 26000 and its PostgreSQL port was taken (stream a's second stack): "port is already allocated"."""
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def read(relative):
    return (ROOT / relative).read_text()


# what a stream publishes beyond its base (tests/e2e/conftest.py), and where test_database_stop.py's
# second stack sits beyond it
OFFSETS = {int(n) for n in re.findall(r"_BASE \+ (\d+)", read("tests/e2e/conftest.py"))}
SECOND_STACK = int(re.search(r'PORTS\["PG_PORT"\]\) \+ (\d+)', read("tests/e2e/test_database_stop.py")).group(1))


def ports(base):
    return {base + extra + off for extra in (0, SECOND_STACK) for off in OFFSETS}


def test_the_streams_and_the_input_tests_publish_no_port_twice():
    bases = {name: int(base) for name, base in re.findall(r"e2e_stream (\w+) (\d+) ", read("lab/test.sh"))}
    assert len(bases) >= 3 and len(OFFSETS) >= 5 and SECOND_STACK > 0, (bases, OFFSETS, SECOND_STACK)
    found = re.search(r'"JSONBENCH_E2E_PORT_BASE", "(\d+)"\)\) \+ (\d+)',
                      read("tests/input/test_runme_standins_must_be_asked_for.py"))
    input_base = int(found.group(1)) + int(found.group(2))
    taken = {"tests/input": {input_base + off for off in OFFSETS}}
    taken.update({f"stream {n}": ports(b) for n, b in bases.items()})
    names = sorted(taken)
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            assert not taken[a] & taken[b], f"{a} and {b} both publish {sorted(taken[a] & taken[b])}"
