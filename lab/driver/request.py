"""What a run was asked for: runme.sh's words (`--set K=V`, `--sweep K=v1,v2` once or twice, `--no-branch`,
`--push REMOTE`, `--no-check`, the `check` mode, bench names; a bench's own SWEEP in its bench.env) as one
Request, and every check made of them before anything starts (validate). Bad input raises BadInput with
the message runme.sh prints after `runme.sh: ` (exit 2). Standard library only: runme.sh runs this with
the host's python3 before the venv exists."""
import json
import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from typing import List


class BadInput(Exception):
    """Bad input, found before anything starts: runme.sh prints `runme.sh: <message>` and exits 2. An
    empty message: the reason was printed already (by `node client validate-bench`)."""


@dataclass
class Sweep:
    """A sweep of one key: key K, points K=<v>. A grid of two keys (two --sweep): key K1+K2, points
    K1=<v>+K2=<w>, every combination, the first key slowest. A paired sweep (one --sweep K1+K2=v+w,...):
    the same key and folders, only the pairs given. values: each point's v, or v+w (the folder's
    `values` file: the order analysis shows)."""
    key: str = ""
    points: List[str] = field(default_factory=list)
    values: List[str] = field(default_factory=list)


@dataclass
class Request:
    words: List[str] = field(default_factory=list)      # runme.sh's words after `check`, as given
    only_check: bool = False
    overrides: List[str] = field(default_factory=list)  # --set KEY=VALUE, in order
    benches: List[str] = field(default_factory=list)    # as named (empty: every bench* folder)
    branch: bool = True
    push: str = ""
    check: bool = True
    sweeps: List[str] = field(default_factory=list)     # --sweep words, or the bench's own SWEEP
    declared: str = ""                                  # the bench's own SWEEP, when the sweep is that
    dirs: List[str] = field(default_factory=list)       # the bench folders, absolute (resolve)
    sweep: Sweep = field(default_factory=Sweep)         # resolve


def parse(words):
    """runme.sh's words -> Request (nothing read from disk yet)."""
    words = list(words)
    r = Request()
    if words[:1] == ["check"]:
        r.only_check = True
        words = words[1:]
    r.words = list(words)
    i = 0

    def value(message):
        if i + 1 >= len(words) or words[i + 1] == "":
            raise BadInput(message)
        return words[i + 1]

    while i < len(words):
        w = words[i]
        if w == "--set":
            r.overrides.append(value("--set needs KEY=VALUE"))
            i += 2
        elif w == "--no-branch":
            r.branch = False
            i += 1
        elif w == "--no-check":
            r.check = False
            i += 1
        elif w == "--push":
            r.push = value("--push needs a remote")
            i += 2
        elif w == "--sweep":
            r.sweeps.append(value("--sweep needs KEY=v1,v2,..."))
            i += 2
        elif w.startswith("-"):
            raise BadInput(f"unknown option '{w}' (see ./runme.sh help)")
        else:
            r.benches.append(w)
            i += 1
    return r


def all_benches(root):
    """Every bench folder of the checkout (bench*/ with a bench.env), in version order."""
    found = [os.path.join(root, d) for d in os.listdir(root)
             if d.startswith("bench") and os.path.isfile(os.path.join(root, d, "bench.env"))]
    # sort -V: runs of digits compare as numbers (bench2 before bench10)
    return sorted(found, key=lambda p: [(0, int(t), "") if t.isdigit() else (1, 0, t) for t in re.split(r"(\d+)", p)])


def bench_dir_of(arg, root):
    """A bench named on the command line (a path, or a folder of the checkout) -> its absolute folder."""
    path = arg
    if not os.path.isdir(path) and os.path.isdir(os.path.join(root, arg)):
        path = os.path.join(root, arg)
    if not os.path.isdir(path):
        names = "".join(os.path.basename(b) + " " for b in all_benches(root))
        raise BadInput(f"bench folder '{arg}' does not exist (benches here: {names})")
    if not os.path.isfile(os.path.join(path, "bench.env")):
        raise BadInput(f"'{arg}' has no bench.env (see README.md, 'Writing a bench')")
    # as `cd DIR && pwd`: absolute, symbolic links kept
    return os.path.normpath(os.path.join(os.getcwd(), path))


def env_values(bench_env, sets=()):
    """bench.env's keys as bash reads simple KEY=VALUE lines (analysis.common.fileio.read_env_file), then
    the KEY=VALUE overrides on top."""
    from analysis.common.fileio import read_env_file
    values = read_env_file(bench_env)
    for kv in sets:
        key, _, v = kv.partition("=")
        values[key] = v
    return values


def bench_sweep_of(bench_dir):
    """The bench's own sweep (bench.env SWEEP), or ""; its form is checked with the other keys."""
    return env_values(os.path.join(bench_dir, "bench.env")).get("SWEEP", "")


def bench_key_specs(root):
    """The bench keys as {KEY: {type, allowed, values (enum)}}, from the client's schema (one place)."""
    r = subprocess.run(["node", os.path.join(root, "client"), "bench-specs"], stdout=subprocess.PIPE, text=True)
    if r.returncode != 0:
        raise BadInput("")
    return json.loads(r.stdout)


def sweep_parse(sweeps, specs):
    """--sweep words -> Sweep: each key and its values' form (analysis/experiments/sweep_args.py)."""
    from analysis.common.errors import AnalysisError
    from analysis.experiments import sweep_args
    if len(sweeps) > 2:
        raise BadInput("at most two --sweep per run (two keys make a grid of every combination)")
    keys, lists = [], []
    for arg in sweeps:
        try:
            key, values = sweep_args.parse(arg, specs)
        except AnalysisError as e:
            raise BadInput(str(e))
        keys.append(key)
        lists.append(values)
    if len(keys) == 2 and keys[0] == keys[1]:
        raise BadInput(f"--sweep {keys[0]} is given twice; a grid needs two different keys (e.g. --sweep "
                       "ISOLATION=read-committed,serializable --sweep CLIENTS=2,8)")
    if len(keys) == 2 and any("+" in k for k in keys):
        raise BadInput(f"--sweep {keys[0]} and --sweep {keys[1]}: a paired sweep (K1+K2=v+w,...) runs alone, its "
                       "points already set two keys together; give it as the only --sweep")
    s = Sweep(key="+".join(keys))
    for v in (lists[0] if lists else []):
        if "+" in keys[0]:
            # a paired sweep: each point sets both keys, folder K1=v+K2=w as a grid point's
            k1, k2 = keys[0].split("+", 1)
            s.points.append(f"{k1}={v.split('+', 1)[0]}+{k2}={v.split('+', 1)[1]}")
            s.values.append(v)
        elif len(keys) == 1:
            s.points.append(f"{keys[0]}={v}")
            s.values.append(v)
        else:
            for w in lists[1]:
                s.points.append(f"{keys[0]}={v}+{keys[1]}={w}")
                s.values.append(f"{v}+{w}")
    return s


def point_sets(point):
    """A point's KEY=VALUE settings (K=v, or K1=v and K2=w of a grid point)."""
    return point.split("+")


def standins_words(standins):
    """`--stand-ins` when the run uses the stand-in images: validate-bench refuses what they cannot do."""
    return ["--stand-ins"] if standins else []


def validate_bench(root, bench_env, sets=(), standins=False, quiet=False):
    """`node client validate-bench [--stand-ins] FILE [--set KEY=VALUE]...` (its reasons on stderr)."""
    from .plan import set_words
    r = subprocess.run(["node", os.path.join(root, "client"), "validate-bench", *standins_words(standins), bench_env,
                        *set_words(sets)], stdout=subprocess.DEVNULL if quiet else None)
    return r.returncode == 0


def check_host_memory(bench_env, sets=(), where=None):
    """DB_MEMORY_MB (a bench key: every database container's limit) x the bench's databases, which run
    side by side for the whole bench, within this host's memory, as lab/preflight.py holds .env's
    DB_MEMORY to; refused naming the file (or `where`: a sweep point) and the key."""
    values = env_values(bench_env, sets)
    mb = values.get("DB_MEMORY_MB", "")
    if not mb.isdigit():
        return
    from lab import preflight  # its reading of the host's memory, the one .env's DB_MEMORY is held to
    try:
        total = preflight.host_memory_bytes() // 2**20
    except RuntimeError:  # no MemTotal: nothing to hold the limit to, as before
        return
    databases = len((values.get("DATABASES") or "mongodb postgres").split())
    if int(mb) * databases > total:
        raise BadInput(f"{where or bench_env}: DB_MEMORY_MB={mb} x {databases} databases exceeds this host's memory "
                       f"({total} MiB); allowed: at most {total // databases} per database")


def check_set_words(sets):
    for kv in sets:
        if not re.match(r"[A-Za-z_].*=", kv, re.S) or "'" in kv:
            raise BadInput(f"--set '{kv}': expected KEY=VALUE (a bench key, a value without a single quote)")


def write_run_plan(root, bench_dir, sets=(), standins=False, dataset_base=None, quiet=False):
    """DIR/bench.env plus the --set overrides, validated, planned into DIR/plan.json."""
    check_set_words(sets)
    plan_run_sets(root, bench_dir, sets, standins, dataset_base, quiet)


def plan_run_sets(root, bench_dir, sets=(), standins=False, dataset_base=None, quiet=False):
    """write_run_plan without the check of the words' form (a repetition's keys come from its folder's
    plan, where a bench.env value may hold a single quote)."""
    from .plan import write_plan
    bench_env = os.path.join(bench_dir, "bench.env")
    if not validate_bench(root, bench_env, (), standins, quiet):
        raise BadInput("")
    sets = list(sets)
    plan_sets = list(sets)
    # A relative DATASET is relative to the bench folder (dataset_base when DIR is a copy of it: the
    # check's, a sweep point's); the plan holds it absolute, so copies and repetitions find the file.
    ds = env_values(bench_env, sets).get("DATASET", "")
    if ds and not ds.startswith("/"):
        base = os.path.abspath(dataset_base or bench_dir)
        plan_sets.append(f"DATASET={base}/{ds}")
    if not validate_bench(root, bench_env, plan_sets, standins, quiet):
        name = os.path.basename(bench_dir)
        raise BadInput(f"the --set overrides are invalid for {name}" if sets else f"bench.env is refused for {name}")
    check_host_memory(bench_env, sets)
    write_plan(root, bench_dir, plan_sets)


def sweep_validate(root, bench_dir, sweep, overrides, standins):
    """Every point's settings (bench.env, the --set overrides, the point's KEY=v) pass `node client
    validate-bench`, without writing anything."""
    bench_env = os.path.join(bench_dir, "bench.env")
    for point in sweep.points:
        r = subprocess.run(["node", os.path.join(root, "client"), "validate-bench", *standins_words(standins), bench_env,
                            *[w for kv in [*overrides, *point_sets(point)] for w in ("--set", kv)]],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if r.returncode != 0:
            msg = r.stdout.rstrip("\n")
            msg = "\n".join(re.sub(r"^" + re.escape(bench_env) + r"(:[0-9]+)?: ", "", re.sub(r"^error: ", "", line))
                            for line in msg.split("\n"))
            raise BadInput(f"--sweep {point} is refused for {os.path.basename(bench_dir)} ({bench_env} with the "
                           f"--set overrides): {msg}")
        check_host_memory(bench_env, [*overrides, *point_sets(point)], where=f"--sweep {point} ({bench_env})")


def check_validate(root, src, overrides, standins):
    """A check's or a sweep's input: SRC's bench.env and the --set overrides, validated without writing
    into SRC (planned in a temporary copy)."""
    if not validate_bench(root, os.path.join(src, "bench.env")):
        raise BadInput("")
    tmp = tempfile.mkdtemp(prefix="jsonbench-check.", dir=os.environ.get("TMPDIR") or "/tmp")
    try:
        copy = os.path.join(tmp, os.path.basename(src))
        os.mkdir(copy)
        shutil.copy(os.path.join(src, "bench.env"), copy)
        # a relative DATASET is the bench folder's, not the copy's
        write_run_plan(root, copy, overrides, standins, dataset_base=src, quiet=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def check_placement(root, bench_dir, sets=()):
    """The bench's placement keys (bench.env, the --set overrides, the environment, the lab's .env:
    lab/driver/placement.py): each context known, its engine answering, the measured hosts' cgroups
    alike; refused naming the file, key and context. Nothing is asked of Docker when nothing is placed."""
    from . import placement
    bench_env = os.path.join(bench_dir, "bench.env")
    try:
        p = placement.validate_bench(bench_env, sets, os.environ, os.path.join(root, ".env"))
    except placement.PlacementError as e:
        raise BadInput(str(e))
    pool = env_values(bench_env, sets).get("POOL") or "none"
    for db in p.databases:
        if pool != "none" and p.dialled_across(db) and os.path.isfile(os.path.join(root, "databases", db, pool, "pool.py")):
            raise BadInput(f"{bench_env}: POOL={pool} with {db}'s clients on another host than {db}: the pool publishes "
                           f"no port a client on another host could dial (not built yet); allowed: POOL=none, or "
                           f"CLIENT_HOST the same as {db}'s host")


def resolve(request, root):
    """The bench folders and the sweep (from --sweep, or the one bench's own SWEEP); fills request.dirs,
    request.declared and request.sweep."""
    if request.sweeps and not request.benches:
        raise BadInput(f"--sweep needs the benches to sweep named (e.g. ./runme.sh --sweep {request.sweeps[0]} bench1)")
    named = request.benches or all_benches(root)
    if not named:
        raise BadInput("no bench folder found")
    request.dirs = [bench_dir_of(b, root) for b in named]
    # A bench may carry its own sweep (bench.env SWEEP="KEY=v1,v2 [KEY2=w1,w2]"); --sweep replaces it.
    sweeps = list(request.sweeps)
    if not sweeps:
        for d in request.dirs:
            declared = bench_sweep_of(d)
            if declared and len(request.dirs) != 1:
                raise BadInput(f"{d}/bench.env: SWEEP=\"{declared}\": a bench with its own sweep runs alone "
                               f"(name only {os.path.basename(d)})")
            request.declared = declared
        sweeps = request.declared.split()
    if sweeps:
        try:
            request.sweep = sweep_parse(sweeps, bench_key_specs(root))
        except BadInput as e:
            if request.declared:
                e.args = (f"{e.args[0]}\nrunme.sh: that sweep is SWEEP in {request.dirs[0]}/bench.env",)
            raise
    return request


def validate(request, root, standins):
    """Every check runme.sh makes before anything starts; writes DIR/plan.json for a plain run (as the
    run reads it), nothing into the bench folders for a check or a sweep."""
    resolve(request, root)
    if request.sweep.key:
        for d in request.dirs:
            sweep_validate(root, d, request.sweep, request.overrides, standins)
    for d in request.dirs:
        if request.only_check or request.sweep.key:
            check_validate(root, d, request.overrides, standins)
            check_placement(root, d, request.overrides)
        else:
            # before plan.json is written: a refused placement leaves the folder as it was
            check_placement(root, d, request.overrides)
            write_run_plan(root, d, request.overrides, standins)
    return request
