"""The phases a bench folder holds (one phase file each) and their databases, in the lab's run order:
the plan's (plan.py), else per database. Beside benchfiles.py rather than in it: plan.py reads the
folder's files through benchfiles.py, and this reads the plan."""
from ..common import databases
from . import benchfiles, folder, plan


def databases_in(bench_dir):
    """Databases with a phase file, in the lab's run order."""
    return list(dict.fromkeys(benchfiles.database_of(p) for p in phases_in(bench_dir)))


def phases_in(bench_dir):
    """Phase ids with a phase file, in the lab's run order (the plan's: analysis/bench/plan.py; else per
    database: load, then run, then the query phases by name). bench_dir: the path or its Bench (folder.py)."""
    found = folder.of(bench_dir).phase_files()
    # a database the lab's list does not have (its phase files are the truth of what ran) comes after
    # the known ones, its load before its run as theirs
    extra = sorted({benchfiles.database_of(p) for p in found} - set(databases.names()))
    order = (plan.phases(bench_dir)
             or benchfiles.expected_phases(databases.in_run_order(databases.names()) + extra, "with-load"))
    known = [p for p in order if p in found]
    return known + sorted(found - set(known))
