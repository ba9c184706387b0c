"""A stand-in for lab/driver/lab.py's Lab, for the driver's decisions without Docker: run_bench records
the folder it is given and its plan's keys, and writes a phase file there, as a bench run would; say keeps
the lines. What it stands in for (the engine, the databases) is what these tests do not decide."""
import json
import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


class StandInLab:
    def __init__(self, root=ROOT, standins=False, interrupt_after=None, fail_at=None):
        self.root = str(root)
        self.standins = standins
        self.interrupted = False
        self.run_failed = False
        self.ran = []           # the folders run_bench was given, in order
        self.given = {}         # folder -> its plan.json settings.given when it ran
        self.said = []          # (bench, msg)
        self.removed = 0        # remove_databases calls
        self.containers_removed = 0
        self.signals = 0
        self.runs = 0           # run_bench calls
        self.interrupt_after = interrupt_after  # a signal arrives during the n-th run_bench
        self.fail_at = fail_at                  # run_bench raises at the n-th call

    def say(self, msg, bench=None):
        self.said.append((bench, msg))

    def run_bench(self, bench_dir, plan=None):
        # the plan when the caller read it already: the folder's own, never another's
        assert plan is None or os.path.samefile(plan.path, Path(bench_dir, "plan.json"))
        self.ran.append(bench_dir)
        self.runs += 1
        plan = json.loads(Path(bench_dir, "plan.json").read_text())
        self.given[bench_dir] = plan["settings"]["given"]
        Path(bench_dir, "x.phase.json").write_text(json.dumps({"status": "ok"}))
        if self.fail_at == self.runs:
            raise RuntimeError("the databases did not become ready")
        if self.interrupt_after == self.runs:
            self.interrupted = True

    def remove_databases(self):
        self.removed += 1

    def remove_database_containers(self):
        self.containers_removed += 1

    def prometheus_url(self):
        return "http://127.0.0.1:9"

    def on_signal(self):
        self.signals += 1


class Summaries:
    """analysis's repeat and sweep summaries, recorded (their order against the runs is the decision)."""

    def __init__(self, lab):
        self.lab = lab

    def repeat(self, folder):
        self.lab.ran.append(("repeat", folder))
        return True

    def sweep(self, folder):
        self.lab.ran.append(("sweep", folder))
        return True


def bench(tmp_path, name, text):
    d = tmp_path / name
    d.mkdir()
    (d / "bench.env").write_text(text)
    return str(d)


SMALL = "DESCRIPTION=x\nKEY=uuidv7\nLAYOUT=heap\nFIELDS=10\nFIELD_BYTES=100\nCLIENTS=1\nRATE=10\nDOCS=10\nQUIET_S=0\n"
