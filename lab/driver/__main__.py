"""python3 -m lab.driver validate|run|folders <runme.sh's words> (from any folder, with the repository
on PYTHONPATH: bench folders are named relative to the caller's folder).

  validate  every check runme.sh makes before anything starts (lab/driver/request.py); writes a plain
            run's DIR/plan.json; exit 2 with `runme.sh: <why>` on stderr, else 0.
  run       after runme.sh provisioned the host, built the images and started the monitoring: the
            check, the experiments, the run's branch. Exit 0; 1 when a phase or the check failed or the
            branch could not be made; 2 bad input; 130 interrupted.
  folders   `./runme.sh report`'s folders: each bench named (every bench of the checkout when none
            is) as an absolute folder, one per line; a sweep folder (benchN/sweep-KEY, points and no
            bench.env) as it is. Exit 2 with `runme.sh: <why>` on stderr for a folder that is neither."""
import os
import signal
import subprocess
import sys
import traceback

from . import request as req
from .check import check_benches
from .experiments import Experiments, experiment_folder

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# What a run's branch keeps besides the bench folders: the exact configuration and client version,
# and each database's compose files (database_compose_files: compose.yaml includes them).
RUN_CONFIG_FILES = ["compose.yaml", "compose.standins.yaml", ".env.example", "prometheus", "grafana",
                    "client/package.json", "client/package-lock.json"]


def bad_input(e):
    if e.args and e.args[0]:
        print(f"runme.sh: {e.args[0]}", file=sys.stderr, flush=True)
    return 2


def standins_asked():
    # a bench run uses the stand-ins only when asked for (runme.sh prepare_stack): known before anything starts
    return os.environ.get("JSONBENCH_STANDINS", "auto") == "1"


def validate(words, root=ROOT):
    from .probe_box import probe_setting
    try:
        probe_setting(os.environ)
    except ValueError as e:
        return bad_input(e)
    try:
        req.validate(req.parse(words), root, standins_asked())
    except req.BadInput as e:
        return bad_input(e)
    return 0


def folders(words, root=ROOT):
    try:
        found = [os.path.abspath(w) if os.path.basename(os.path.normpath(w)).startswith("sweep-") and os.path.isdir(w)
                 else req.bench_dir_of(w, root) for w in words] if words else req.all_benches(root)
    except req.BadInput as e:
        return bad_input(e)
    print("\n".join(found))
    return 0


def database_compose_files(root):
    """Each database's compose files, and the folder of a service inside a database's (PgBouncer)."""
    names = subprocess.run([sys.executable, os.path.join(root, "databases", "manifests.py"), "names"],
                           stdout=subprocess.PIPE, text=True, check=True).stdout.split()
    files = []
    for db in names:
        for f in ("compose.yaml", "compose.standins.yaml"):
            if os.path.isfile(os.path.join(root, "databases", db, f)):
                files.append(f"databases/{db}/{f}")
        for sub in sorted(os.listdir(os.path.join(root, "databases", db))):
            if os.path.isfile(os.path.join(root, "databases", db, sub, "compose.yaml")):
                files.append(f"databases/{db}/{sub}")
    return files


def make_branch(root, folders, push, allow_incomplete):
    """analysis's branch in-process; True when the branch was written (its name printed)."""
    from analysis.common.errors import AnalysisError
    from analysis.experiments import branch
    try:
        name = branch.run(folders, RUN_CONFIG_FILES + database_compose_files(root), push=push or None,
                          allow_incomplete=allow_incomplete, cwd=root)
    except AnalysisError as err:
        print(f"analysis branch: {err}", file=sys.stderr, flush=True)
        return False
    except Exception:
        traceback.print_exc()
        return False
    print(name, flush=True)
    return True


def install_signals(lab):
    """SIGINT/SIGTERM: the run stops at its next turn (lab.interrupted) and the clients stop
    (lab.on_signal); a second signal does nothing more."""
    def handler(signum, frame):
        lab.on_signal()  # marks the run interrupted, wakes every nap, stops the phase's clients; once
    signal.signal(signal.SIGINT, handler)
    signal.signal(signal.SIGTERM, handler)


def run(words, lab, summaries=None, verdict=None, branch=make_branch):
    """The run after the stack is up: check, experiments, branch; returns the exit code."""
    try:
        r = req.resolve(req.parse(words), lab.root)
    except req.BadInput as e:
        return bad_input(e)
    experiments = Experiments(lab, r.sweep, summaries)
    finished = False
    try:
        if r.only_check or r.check:
            # a sweep is checked at its first value
            first = req.point_sets(r.sweep.points[0]) if r.sweep.key else []
            kw = {"verdict": verdict} if verdict else {}
            rc = check_benches(lab, r.dirs, [*r.overrides, *first], **kw)
            if rc == 130 or r.only_check:
                finished = True
                # a finished check leaves the monitoring up, as a run does, whatever its verdict
                lab.stack_kept = rc != 130
                return rc
            if rc != 0:
                lab.say("the run stops before the long part: a figure would be missing without a reason (table above).")
                lab.say(f"to run anyway: ./runme.sh --no-check {' '.join(r.words)}")
                finished = True
                lab.stack_kept = True
                return 1
        for d in r.dirs:
            experiments.prepare(d, r.overrides)
        for d in r.dirs:
            if lab.interrupted:
                break
            experiments.run(d)
        lab.remove_database_containers()
        lab.say("monitoring left running for Grafana/Prometheus; ./runme.sh down removes it")
        finished = True
        if lab.interrupted:
            lab.say(f"interrupted: partial results kept in {' '.join(r.dirs)} (marked interrupted); no branch created")
            return 130
        if r.branch:
            lab.say("committing the run to a new branch")
            # a run with a failed phase still gets its branch, named ---INCOMPLETE, so the evidence is kept
            if not branch(lab.root, [experiment_folder(d, r.sweep) for d in r.dirs], r.push, lab.run_failed):
                lab.say("the run's branch could not be created")
                return 1
            # the branch is written in one step (update-ref last): interrupted before it, there is none
            if lab.interrupted:
                return 130
        if lab.run_failed:
            lab.say("some phases failed: see results.json 'incomplete' in each bench")
            return 1
        return 0
    except req.BadInput as e:
        return bad_input(e)
    except Exception:
        traceback.print_exc()
        return getattr(sys.exc_info()[1], "code", 1) or 1
    finally:
        if not finished:
            # stopped by an error: the summaries of what finished are still written
            experiments.summarise_all()


def main(argv):
    if len(argv) < 1 or argv[0] not in ("validate", "run", "folders"):
        print("usage: python3 -m lab.driver validate|run|folders [runme.sh's words...]", file=sys.stderr)
        return 2
    if argv[0] == "validate":
        return validate(argv[1:])
    if argv[0] == "folders":
        return folders(argv[1:])
    from .lab import Lab
    from .probe_box import ProbeError
    try:
        lab = Lab.from_environment()
    except ValueError as e:  # PROBE, PROBE_IMAGE
        return bad_input(e)
    except ProbeError as e:  # the probe container did not start (it is removed)
        print(f"runme.sh: the probe container did not start: {e}", file=sys.stderr, flush=True)
        return 1
    try:
        install_signals(lab)
        try:
            lab.write_monitoring_targets()
        except Exception as e:  # noqa: BLE001  (without a target no cAdvisor series: every figure null)
            print(f"runme.sh: {e}", file=sys.stderr, flush=True)
            return 1
        rc = run(argv[1:], lab)
        if rc != 0 and not getattr(lab, "stack_kept", False):
            # interrupted, failed or stopped by an error: the lab's containers go (the run's files stay)
            lab.say("removing the lab's containers")
            for engine in lab.engines.values():  # every host the run used
                engine.compose(["--profile", "client", "down", "--remove-orphans"])
        return rc
    finally:
        lab.close()  # the probe's container, whatever ended the run


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
