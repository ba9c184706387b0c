"""`branch`: commit a run's bench folders and config files to a NEW branch YYYYMMDD-HHMM---<slug>
with git plumbing (a temporary index), so the user's working tree, index and current branch are
never touched. A generated README.md at the branch root summarises the run."""
import datetime
import os
import re
import stat
import subprocess
import sys
import tempfile

from ..common.errors import AnalysisError
from ..common.fileio import read_json
from ..common.labels import fmt_bytes, run_label
from ..render.report import _per_doc_table, stand_in_warning
from . import experiment_report

ZERO = "0" * 40


def git(args, cwd, env=None, input=None, check=True):
    p = subprocess.run(["git", *args], cwd=cwd, env=env, input=input, capture_output=True, text=True)
    if check and p.returncode != 0:
        raise AnalysisError(f"git {' '.join(args)}: {p.stderr.strip() or p.stdout.strip()}")
    return p


def slugify(text, limit=60):
    s = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
    if len(s) > limit:
        s = s[:limit].rsplit("-", 1)[0]
    return s or "run"


def branch_name(results, when, incomplete):
    parts = []
    for r in results:
        parts.append(r["bench"])
        if r.get("description"):
            parts.append(r["description"])
    name = f"{when:%Y%m%d-%H%M}---{slugify(' '.join(parts))}"
    return name + ("---INCOMPLETE" if incomplete else "")


def _files_under(path):
    if os.path.isfile(path) or os.path.islink(path):
        return [path]
    out = []
    for dirpath, dirnames, filenames in os.walk(path):
        dirnames[:] = sorted(d for d in dirnames if d not in (".git", "__pycache__"))
        out += [os.path.join(dirpath, f) for f in sorted(filenames) if not f.startswith(".tmp-")]
    return out


def readme(results, name, lab_commit, extra_files):
    lines = [f"# Run {name}", ""]
    if any(not r.get("complete", True) for r in results):
        lines += ["> **INCOMPLETE RUN:** " + "; ".join(f"{r['bench']}: {', '.join(r.get('incomplete') or [])}"
                                                    for r in results if not r.get("complete", True)), ""]
    all_runs = [run for r in results for run in r.get("runs") or []]
    w = stand_in_warning(all_runs)
    if w:
        lines.append(w)
    lines += experiment_report.stand_in_lines(results)
    host = results[0].get("host") or {}
    starts = [run["window"]["start"] for run in all_runs if run["window"].get("start")]
    starts += [r["started_at"] for r in results if r.get("started_at")]
    when = (datetime.datetime.fromtimestamp(min(starts), datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
            if starts else "unknown")
    hw = host.get("hardware_counters") or {}
    lines += [
        "## What, when, where", "",
        f"- benches: " + ", ".join(f"`{r['bench']}` ({r.get('description') or 'no description'})" for r in results),
        f"- started: {when}; lab commit: `{lab_commit or 'none'}`",
        f"- host: {host.get('os') or '?'}, kernel {host.get('kernel') or '?'}, {host.get('cpu_model') or '?'}, "
        f"{host.get('cores') or '?'} cores, {fmt_bytes(host.get('memory_bytes'))}, cgroup {host.get('cgroup_version') or '?'}, "
        f"Docker {host.get('docker_server') or '?'}, Compose {host.get('compose') or '?'}, hardware counters: "
        f"{'yes' if hw.get('available') else 'no'}",
        "",
    ]
    for r in results:
        if experiment_report.is_experiment(r):  # REPEAT / sweep: their own summary, sub-folders kept
            lines += experiment_report.branch_section(r)
            continue
        lines += [f"## {r['bench']}: per-document cost", "", _per_doc_table(r), "",
                  "Databases: " + ", ".join(f"{run_label(run)} ({run['status']})" for run in r["runs"]) + ".", "",
                  f"Details: [{r['bench']}/report.md]({r['bench']}/report.md), machine-readable: "
                  f"[{r['bench']}/results.json]({r['bench']}/results.json).", ""]
    lines += ["## Re-analyse", "", "From a checkout of this branch, without the lab running:", "",
              "    ./runme.sh report " + " ".join(r["bench"] for r in results),
              f"    ./runme.sh compare {name}:{results[0]['bench']} OTHER-BRANCH:{results[0]['bench']}", ""]
    if extra_files:
        lines += ["Configuration files committed with the run: " + ", ".join(f"`{f}`" for f in extra_files), ""]
    return "\n".join(lines)


def run(benches, files=(), no_branch=False, push=None, allow_incomplete=False, now=None, cwd=None):
    cwd = os.path.abspath(cwd or os.getcwd())
    top = git(["rev-parse", "--show-toplevel"], cwd).stdout.strip()
    results, incomplete = [], False
    for b in benches:
        path = os.path.join(cwd, b, "results.json")
        if not os.path.exists(path):
            if not allow_incomplete:
                raise AnalysisError(f"--benches {b}: no results.json (run `python -m analysis results --bench-dir {b}`, "
                                    f"or pass --allow-incomplete)")
            incomplete = True
            continue
        r = read_json(path)
        if not r.get("complete", False):
            if not allow_incomplete:
                raise AnalysisError(f"--benches {b}: results.json says the run is incomplete ("
                                    f"{'; '.join(r.get('incomplete') or ['unknown'])}); refusing to make a branch "
                                    f"that looks complete (use --allow-incomplete to commit it marked INCOMPLETE)")
            incomplete = True
        results.append(r)
    if not results:
        raise AnalysisError("--benches: none of " + " ".join(benches) + " has a results.json")
    when = now or datetime.datetime.now(datetime.timezone.utc)
    name = branch_name(results, when, incomplete)
    if no_branch:
        print(f"branching skipped (--no-branch); the branch would be {name}", file=sys.stderr)
        return ""
    if push:
        git(["remote", "get-url", push], top)  # fail before committing when the remote does not exist
    suffix, base = 2, name
    while git(["rev-parse", "--verify", "--quiet", f"refs/heads/{name}"], top, check=False).returncode == 0:
        name = f"{base}-{suffix}"
        suffix += 1
    git(["check-ref-format", "--branch", name], top)

    rel_paths = []
    for p in list(benches) + list(files):
        full = os.path.abspath(os.path.join(cwd, p))
        if not os.path.exists(full):
            raise AnalysisError(f"--files/--benches {p}: does not exist")
        rel = os.path.relpath(full, top)
        if rel.startswith(".."):
            raise AnalysisError(f"{p}: outside the repository {top}")
        rel_paths.append(rel)
    head = git(["rev-parse", "--verify", "--quiet", "HEAD"], top, check=False).stdout.strip() or None

    with tempfile.TemporaryDirectory(prefix="jsonbench-branch-") as tmp:
        env = {**os.environ, "GIT_INDEX_FILE": os.path.join(tmp, "index")}
        if head:
            git(["read-tree", head], top, env)
        else:
            git(["read-tree", "--empty"], top, env)
        # a bench folder on the branch is exactly what is on disk: drop entries that no longer exist
        for rel in rel_paths[: len(benches)]:
            listed = git(["ls-files", "-z", "--", rel], top, env).stdout.split("\0")
            gone = [f for f in listed if f and not os.path.lexists(os.path.join(top, f))]
            if gone:
                git(["update-index", "--force-remove", "-z", "--stdin"], top, env, input="\0".join(gone) + "\0")
        entries = []
        all_files = [f for rel in rel_paths for f in _files_under(os.path.join(top, rel))]
        regular = [f for f in all_files if not os.path.islink(f)]
        if regular:
            shas = git(["hash-object", "-w", "--no-filters", "--stdin-paths"], top, env,
                       input="\n".join(regular) + "\n").stdout.split()
            for f, sha in zip(regular, shas):
                mode = "100755" if os.stat(f).st_mode & stat.S_IXUSR else "100644"
                entries.append(f"{mode} {sha}\t{os.path.relpath(f, top)}")
        for f in all_files:
            if os.path.islink(f):
                sha = git(["hash-object", "-w", "--stdin"], top, env, input=os.readlink(f)).stdout.strip()
                entries.append(f"120000 {sha}\t{os.path.relpath(f, top)}")
        lab_commit = head[:12] if head else None
        extra = [os.path.relpath(os.path.join(cwd, f), top) for f in files]
        sha = git(["hash-object", "-w", "--stdin"], top, env, input=readme(results, name, lab_commit, extra)).stdout.strip()
        entries.append(f"100644 {sha}\tREADME.md")
        git(["update-index", "--add", "--index-info"], top, env, input="\n".join(entries) + "\n")
        tree = git(["write-tree"], top, env).stdout.strip()
        if git(["var", "GIT_COMMITTER_IDENT"], top, check=False).returncode != 0:
            env.update(GIT_AUTHOR_NAME="jsonbench lab", GIT_AUTHOR_EMAIL="jsonbench@localhost",
                       GIT_COMMITTER_NAME="jsonbench lab", GIT_COMMITTER_EMAIL="jsonbench@localhost")
        msg = (f"run {name}\n\n" + "\n".join(f"{r['bench']}: {r.get('description') or ''}" for r in results)
               + ("\n\nINCOMPLETE: " + "; ".join(i for r in results for i in r.get("incomplete") or []) if incomplete else "") + "\n")
        commit = git(["commit-tree", tree] + (["-p", head] if head else []), top, env, input=msg).stdout.strip()
        git(["update-ref", f"refs/heads/{name}", commit, ZERO], top)
    if push:
        git(["push", push, f"refs/heads/{name}:refs/heads/{name}"], top)
    return name
