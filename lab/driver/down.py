"""`./runme.sh down` on every Docker context (issue 27): a placed run leaves its containers, volumes and
networks on the hosts its roles ran on (a database and its volume, a host's cAdvisor, the clients'
bench-files box), and an interrupted controller never removed them. `docker compose down` reaches the
controller's engine only; this removes, on every other context, what carries the project's compose
label (com.docker.compose.project=PROJECT: the lab's compose services, the canary's and the files'
containers carry it too), and nothing else. A context whose engine does not answer within TIMEOUT_S is
named and skipped: the others are still cleaned.

  python3 -m lab.driver.down PROJECT      every context but the current one; prints what it removed
  clean(context, project, environ=None) -> {containers, volumes, networks, error}
"""
import os
import subprocess
import sys

TIMEOUT_S = 20
KINDS = (("containers", ["ps", "-aq"], ["rm", "-f", "-v"]),
         ("volumes", ["volume", "ls", "-q"], ["volume", "rm", "-f"]),
         ("networks", ["network", "ls", "-q"], ["network", "rm"]))


def _docker(context, args, environ, timeout=TIMEOUT_S):
    return subprocess.run(["docker", "--context", context, *args], capture_output=True, text=True,
                          timeout=timeout, env=environ, stdin=subprocess.DEVNULL)


def clean(context, project, environ=None, timeout=TIMEOUT_S):
    """Every container (with its anonymous volumes), then volume, then network on CONTEXT labelled with
    the compose project PROJECT, removed. Returns what was removed by kind, and `error` (None, or why
    the context could not be cleaned: its engine silent or docker refusing)."""
    if not project:
        raise ValueError("down: no project name: every context's resources would match")
    environ = dict(os.environ if environ is None else environ)
    out = {"containers": [], "volumes": [], "networks": [], "error": None}
    label = f"label=com.docker.compose.project={project}"
    try:
        for kind, ls, rm in KINDS:
            r = _docker(context, [*ls, "--filter", label], environ, timeout)
            if r.returncode != 0:
                out["error"] = f"docker --context {context} {' '.join(ls)}: {r.stderr.strip()[-300:]}"
                return out
            ids = r.stdout.split()
            if ids:
                r = _docker(context, [*rm, *ids], environ, timeout + 60)
                if r.returncode != 0:
                    out["error"] = f"docker --context {context} {' '.join(rm)}: {r.stderr.strip()[-300:]}"
                    return out
            out[kind] = ids
    except subprocess.TimeoutExpired:
        out["error"] = f"the engine of context {context} did not answer within {timeout} s"
    return out


def other_contexts(environ=None):
    """Every Docker context but the current one (`docker compose down` cleans that one)."""
    environ = dict(os.environ if environ is None else environ)
    r = subprocess.run(["docker", "context", "ls", "--format", "{{.Name}} {{.Current}}"], capture_output=True,
                       text=True, env=environ, stdin=subprocess.DEVNULL, timeout=60)
    current = environ.get("DOCKER_CONTEXT")
    names = []
    for line in r.stdout.splitlines():
        words = line.split()
        if not words:
            continue
        if current is None and words[1:] == ["true"]:
            continue
        if words[0] != current:
            names.append(words[0])
    return names


def main(argv):
    if len(argv) != 1 or not argv[0]:
        print("down: takes the compose project's name (runme.sh gives it)\n" + __doc__, file=sys.stderr)
        return 2
    failed = False
    for context in other_contexts():
        done = clean(context, argv[0])
        removed = ", ".join(f"{len(done[k])} {k}" for k, _, _ in KINDS if done[k])
        if done["error"]:
            failed = True
            print(f"down: {context}: not cleaned: {done['error']}", file=sys.stderr)
        elif removed:
            print(f"down: {context}: removed {removed}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
