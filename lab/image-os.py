"""Prints, as one JSON object, the operating system and C library of a container image: what a
server's figures also depend on (its allocator, its memcpy, its locale code) beside its own version.
Standard library only (the host's python3).

image-os.py IMAGE    IMAGE: a name or an image id (the lab passes the id a container runs)
  {"image": IMAGE, "os": PRETTY_NAME of /etc/os-release or null,
   "libc": "glibc 2.41" | "musl 1.2.5" | null, "reason": why a field is null, or null}

Read from the image in a throwaway container of its own (`docker run --rm --network none`, the
image's entrypoint replaced by /bin/sh), never inside a measured container: the lab calls it once
per image before its phases, outside every window. glibc says its version to `getconf
GNU_LIBC_VERSION`; musl's dynamic loader prints its own when run without arguments. An image
without /bin/sh gives nulls and the reason. Exit 0 whatever the image holds; 2 on bad arguments.
"""
import json
import re
import subprocess
import sys

# What runs in the image: the os-release file (/etc/os-release, else the /usr/lib one it links to),
# then the C library's own answer, after a marker line.
PROBE = ("cat /etc/os-release 2>/dev/null || cat /usr/lib/os-release 2>/dev/null; echo @@libc; "
         "getconf GNU_LIBC_VERSION 2>/dev/null || for f in /lib/ld-musl-*.so.1; do [ -x \"$f\" ] && \"$f\" 2>&1; done; true")


def pretty_name(os_release):
    m = re.search(r"^PRETTY_NAME=(.*)$", os_release, re.M)
    if not m:
        return None
    value = m.group(1).strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        value = value[1:-1]
    return value or None


def libc_of(text):
    m = re.search(r"^glibc (\d[\w.+~-]*)$", text, re.M)
    if m:
        return f"glibc {m.group(1)}"
    m = re.search(r"^musl libc.*\n\s*Version (\d[\w.+~-]*)", text, re.M)
    if m:
        return f"musl {m.group(1)}"
    return None


def read(image, timeout=60):
    try:
        r = subprocess.run(["docker", "run", "--rm", "--network", "none", "--log-driver", "none",
                            "--label", "jsonbench.image_os=1", "--entrypoint", "/bin/sh", image, "-c", PROBE],
                           capture_output=True, text=True, timeout=timeout)
    except (OSError, subprocess.TimeoutExpired) as e:
        return {"image": image, "os": None, "libc": None, "reason": f"docker run failed: {e}"}
    if r.returncode != 0:
        said = (r.stderr.strip().splitlines() or [f"exit {r.returncode}"])[-1]
        return {"image": image, "os": None, "libc": None,
                "reason": f"could not run /bin/sh in the image ({said})"}
    os_release, _, libc_text = r.stdout.partition("@@libc\n")
    os_name, libc = pretty_name(os_release), libc_of(libc_text)
    missing = [why for value, why in ((os_name, "no PRETTY_NAME in /etc/os-release"),
                                      (libc, "neither glibc (getconf GNU_LIBC_VERSION) nor musl answered"))
               if value is None]
    return {"image": image, "os": os_name, "libc": libc, "reason": "; ".join(missing) or None}


def main(argv):
    if len(argv) != 1 or not argv[0]:
        print("usage: image-os.py IMAGE", file=sys.stderr)
        return 2
    print(json.dumps(read(argv[0])))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
