"""The load lab/bench-monitoring-cost.sh measures the monitoring under: a bench folder of bench1's
document shape with the asked clients, rate and documents on one database, planned by the client
(plan.json) and started through the driver's own Bench (lab/driver/bench.py), so the clients run
exactly as in a phase of a run. Run in the lab's venv from the repository's root, with the
environment runme.sh's set-up exports (LAB_ROOT, PROJECT, USE_STANDINS, .env's settings).

  load.py start DB CLIENTS RATE DOCS WORKDIR   fresh DB, its init, CLIENTS clients started; prints their ids
  load.py cpu PID...                           each container's cgroup CPU seconds (the probe's reading)
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
from lab.driver.bench import Bench  # noqa: E402
from lab.driver.lab import Lab  # noqa: E402
from lab.driver.plan import write_plan  # noqa: E402


def start(db, clients, rate, docs, workdir):
    lab = Lab.from_environment()
    folder = os.path.join(workdir, "monitoring-cost")
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(lab.root, "bench1", "bench.env"), encoding="utf-8") as f:
        shape = f.read()
    with open(os.path.join(folder, "bench.env"), "w", encoding="utf-8") as f:
        f.write(shape + f'\nCLIENTS={clients}\nRATE={rate}\nDOCS={docs}\nDATABASES="{db}"\nQUIET_S=0\nPERF_RECORD_S=0\n')
    write_plan(lab.root, folder)
    bench = Bench(lab, folder)
    bench.refresh_databases()
    if bench.oneshot(db, "init", stdout="inherit").returncode != 0:
        sys.exit(f"load.py: {db}: init failed")
    os.makedirs(os.path.join(folder, "clients"), exist_ok=True)
    lab.write_monitoring_targets()
    bench.scrape_clients(db, int(clients))
    for i in range(1, int(clients) + 1):
        print(bench.client_start(db, i, db), flush=True)


def main(argv):
    if len(argv) == 6 and argv[0] == "start":
        start(*argv[1:])
    elif len(argv) >= 2 and argv[0] == "cpu":
        from lab.driver.probe import LocalProbe
        probe = LocalProbe()
        for pid in argv[1:]:
            seconds = probe.cgroup_cpu_seconds(int(pid))
            print("null" if seconds is None else f"{seconds:.6f}")
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
