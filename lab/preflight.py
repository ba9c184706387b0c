"""Checks, before anything starts, that this host can take the lab as .env configures it:
every published port free (or held by this lab's own containers), and the databases' memory
limits within the host's memory. Exit 2 with a message naming the file, the key, the value and
what is allowed; stdlib only, so it runs before any install."""
import argparse
import errno
import importlib.util
import json
import os
import re
import socket
import sys

UNITS = {"": 1, "b": 1, "k": 1024, "m": 1024**2, "g": 1024**3, "t": 1024**4}


def parse_env(path):
    values = {}
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#") or "=" not in line:
                continue
            key, value = line.split("=", 1)
            values[key.strip()] = value.strip().strip('"').strip("'")
    return values


def parse_bytes(text):
    """Docker's memory notation: 512m, 9g, 1073741824."""
    m = re.fullmatch(r"(\d+(?:\.\d+)?)\s*([bkmgt]?)b?", text.strip().lower())
    if not m:
        raise ValueError(text)
    return int(float(m.group(1)) * UNITS[m.group(2)])


def host_memory_bytes():
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemTotal:"):
                return int(line.split()[1]) * 1024
    raise RuntimeError("no MemTotal in /proc/meminfo")


def port_in_use(address, port):
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((address, port))
        except OSError as e:
            return e.errno == errno.EADDRINUSE
    return False


def check_ports(env, env_file, own_ports, overrides):
    errors = []
    address = overrides.get("BIND_ADDRESS") or env.get("BIND_ADDRESS") or "127.0.0.1"
    for key in sorted(k for k in set(env) | set(overrides) if k.endswith("_PORT")):
        value = overrides.get(key, env.get(key, ""))
        if not value.isdigit() or not 0 < int(value) < 65536:
            errors.append(f"{env_file}: {key}={value!r} is not a port; allowed: 1-65535")
            continue
        port = int(value)
        if port in own_ports:
            continue
        if port_in_use("0.0.0.0" if address == "0.0.0.0" else address, port):
            errors.append(f"{env_file}: {key}={port} is already in use on {address}; "
                          f"allowed: a free port (set {key} in {env_file} or the environment)")
    return errors


def check_memory(env, env_file, overrides, databases):
    key = "DB_MEMORY"
    value = overrides.get(key, env.get(key))
    if value is None:
        return []
    try:
        limit = parse_bytes(value)
    except ValueError:
        return [f"{env_file}: {key}={value!r} is not a size; allowed: a number with b, k, m or g (e.g. 9g)"]
    total = host_memory_bytes()
    # Both databases run side by side for the whole bench, each with this limit.
    allowed = total // max(databases, 1)
    if limit <= 0 or limit > allowed:
        return [f"{env_file}: {key}={value} x {databases} databases exceeds this host's memory "
                f"({total / 1024**3:.1f} GiB); allowed: at most {allowed / 1024**3:.1f}g per database"]
    return []


# A database's own checks of this host (an official image that refuses this kernel): its folder's
# preflight.py `check_host(release, env, env_file, overrides, standins)` -> (errors, notes), loaded by
# folder so no database is named here (docs/contracts.md §2a).
DATABASES_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "databases")
HOOK = "preflight.py"


def database_checks(root=DATABASES_DIR):
    """[(name, check_host)] of every database the lab runs (a manifest without `not_in_lab`) whose
    folder has preflight.py, by name. Manifests are read with json alone: the schema check
    (databases/manifests.py) needs the venv, which this runs before."""
    out = []
    for name in sorted(os.listdir(root)):
        path, manifest = os.path.join(root, name, HOOK), os.path.join(root, name, "database.json")
        if not (os.path.isfile(path) and os.path.isfile(manifest)):
            continue
        with open(manifest) as f:
            if "not_in_lab" in json.load(f):
                continue
        spec = importlib.util.spec_from_file_location(f"jsonbench_preflight_{name}", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        out.append((name, module.check_host))
    return out


def check_databases(release, env, env_file, overrides, standins, root=DATABASES_DIR):
    errors, notes = [], []
    for _name, check_host in database_checks(root):
        e, n = check_host(release, env, env_file, overrides, standins)
        errors += e
        notes += n
    return errors, notes


# cAdvisor 0.60 with Docker's containerd image store loads each container from containerd's socket
# (--containerd); a dockerd that starts its own containerd has it under /run/docker/containerd.
DOCKERD_OWN_CONTAINERD = "/run/docker/containerd"


def check_containerd(env, env_file, overrides, standins, dockerd_dir=DOCKERD_OWN_CONTAINERD):
    """notes: CONTAINERD_RUN_DIR without a socket while dockerd's own containerd has one."""
    run_dir = overrides.get("CONTAINERD_RUN_DIR", env.get("CONTAINERD_RUN_DIR", "/run/containerd"))
    if standins or os.path.exists(f"{run_dir}/containerd.sock"):
        return []
    if os.path.exists(f"{dockerd_dir}/containerd.sock"):
        return [f"{env_file}: CONTAINERD_RUN_DIR={run_dir} has no containerd.sock, but {dockerd_dir} has "
                f"(dockerd runs its own containerd): cAdvisor would register no Docker container. "
                f"Fix: CONTAINERD_RUN_DIR={dockerd_dir} in {env_file}"]
    return [f"{env_file}: CONTAINERD_RUN_DIR={run_dir} has no containerd.sock: with Docker's containerd image store "
            f"cAdvisor registers no Docker container (set CONTAINERD_RUN_DIR to the directory of containerd's socket)"]


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--env-file", required=True)
    p.add_argument("--own-ports", default="", help="ports published by this lab's running containers")
    p.add_argument("--databases", type=int, default=2)
    p.add_argument("--stand-ins", action="store_true", help="the stand-in images run (no official database image, the cAdvisor library build)")
    a = p.parse_args()
    env = parse_env(a.env_file)
    # Values set in the environment win over .env, as in compose.
    overrides = {k: v for k, v in os.environ.items() if k in env}
    own = {int(x) for x in a.own_ports.split() if x.isdigit()}
    errors = check_ports(env, a.env_file, own, overrides) + check_memory(env, a.env_file, overrides, a.databases)
    database_errors, notes = check_databases(os.uname().release, env, a.env_file, overrides, a.stand_ins)
    errors += database_errors
    notes += check_containerd(env, a.env_file, overrides, a.stand_ins)
    for n in notes:
        print(f"runme.sh: WARNING: {n}", file=sys.stderr)
    for e in errors:
        print(f"runme.sh: {e}", file=sys.stderr)
    sys.exit(2 if errors else 0)


if __name__ == "__main__":
    main()
