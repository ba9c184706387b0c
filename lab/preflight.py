"""Checks, before anything starts, that this host can take the lab as .env configures it:
every published port free (or held by this lab's own containers), and the databases' memory
limits within the host's memory. Exit 2 with a message naming the file, the key, the value and
what is allowed; stdlib only, so it runs before any install."""
import argparse
import errno
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


# MongoDB 8.0's TCMalloc and Linux >= 6.19 (SERVER-121912): the kernel's rseq rework breaks the
# per-CPU caches TCMalloc builds on rseq (malloc can return one pointer twice). Newer revisions of
# the mongodb-community-server image refuse to start: their docker-entrypoint.py runs
# enforce_kernel_compatibility() whenever the executable is mongod (the lab's prelude
# `docker-entrypoint.py mongod --version` included) and prints the message below, then exits 1 (no
# bypass in the revision read); newer mongod builds refuse too (src/mongo/db/startup_check_rseq.cpp).
# Revisions before the check (the pinned 8.0.12-ubi9) start, and crash later when glibc hands rseq
# to TCMalloc (GLIBC_TUNABLES=glibc.pthread.rseq=0, the lab's default for per-CPU caches). The
# documented workaround keeps rseq in glibc: glibc.pthread.rseq=1, TCMalloc without per-CPU caches.
KERNEL_CUTOFF = (6, 19)
ENTRYPOINT_MESSAGE = ("ERROR: Detected Linux kernel {release}. MongoDB 8.0+ utilizes the tcmalloc allocator which has a "
                      "known issue with the v6.19 and newer Linux kernel. This container will not start by default on v6.19+.")
MONGOD_MESSAGE = ("MongoDB cannot start: Linux kernel versions 6.19 and newer has a known incompatibility with this "
                  "version of MongoDB. See https://jira.mongodb.org/browse/SERVER-121912 for more information.")


def kernel_version(release):
    m = re.match(r"^(\d+)\.(\d+)", release)
    return (int(m.group(1)), int(m.group(2))) if m else None


def check_kernel(release, env, env_file, overrides, standins):
    """(errors, notes) for MongoDB's official image on this kernel; nothing for the stand-ins."""
    version = kernel_version(release)
    if standins or version is None or version < KERNEL_CUTOFF:
        return [], []
    tunables = overrides.get("MONGO_GLIBC_TUNABLES", env.get("MONGO_GLIBC_TUNABLES", "glibc.pthread.rseq=0"))
    upstream = (f"upstream's words on this kernel: the image's entrypoint (newer revisions): \"{ENTRYPOINT_MESSAGE.format(release=release)}\" "
                f"mongod (newer builds): \"{MONGOD_MESSAGE}\"")
    if "glibc.pthread.rseq=1" in tunables.split(":"):
        return [], [f"{env_file}: MONGO_GLIBC_TUNABLES={tunables} on Linux {release}: MongoDB's TCMalloc runs without "
                    f"per-CPU caches (SERVER-121912 workaround; the original study had them). {upstream}"]
    return [f"{env_file}: Linux {release} (>= 6.19) with MONGO_GLIBC_TUNABLES={tunables!r}: MongoDB 8.0 will not run "
            f"here. {upstream}. Fix: set MONGO_GLIBC_TUNABLES=glibc.pthread.rseq=1 in {env_file} (TCMalloc then runs "
            f"without per-CPU caches, SERVER-121912) and keep the pinned image (mongodb-community-server:8.0.12-ubi9, "
            f"whose entrypoint predates the check; a newer revision's entrypoint refuses this kernel whatever is set); "
            f"or run on a kernel before 6.19"], []


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
    p.add_argument("--stand-ins", action="store_true", help="the stand-in images run (no mongod, the cAdvisor library build)")
    a = p.parse_args()
    env = parse_env(a.env_file)
    # Values set in the environment win over .env, as in compose.
    overrides = {k: v for k, v in os.environ.items() if k in env}
    own = {int(x) for x in a.own_ports.split() if x.isdigit()}
    errors = check_ports(env, a.env_file, own, overrides) + check_memory(env, a.env_file, overrides, a.databases)
    kernel_errors, notes = check_kernel(os.uname().release, env, a.env_file, overrides, a.stand_ins)
    errors += kernel_errors
    notes += check_containerd(env, a.env_file, overrides, a.stand_ins)
    for n in notes:
        print(f"runme.sh: WARNING: {n}", file=sys.stderr)
    for e in errors:
        print(f"runme.sh: {e}", file=sys.stderr)
    sys.exit(2 if errors else 0)


if __name__ == "__main__":
    main()
