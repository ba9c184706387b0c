"""MongoDB's checks before anything starts (lab/preflight.py runs `check_host` of every database
folder that has this file; docs/contracts.md §2a). Stdlib only: it runs before any install."""
import re

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


def check_host(release, env, env_file, overrides, standins):
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
