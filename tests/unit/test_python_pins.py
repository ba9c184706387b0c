"""The pinned Python packages resolve, from wheels, for the oldest Python the lab supports (3.10:
Ubuntu 22.04), and the pins are a complete lockfile (nothing unpinned gets pulled in).

pip evaluates environment markers against the interpreter running it, not --python-version, so the
pins that only 3.10 needs (`; python_version < "3.11"`) are checked with their markers stripped."""
import json
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
REQUIREMENTS = [os.path.join(ROOT, "analysis", "requirements.txt"),
                os.path.join(ROOT, "grafana", "tests", "requirements.txt")]
OLDEST = "3.10"
# Ubuntu 22.04 has glibc 2.35: wheels for any manylinux up to 2.35 install there (pip does not expand
# an explicit --platform to the older tags, so they are listed).
PLATFORMS = [f"manylinux_2_{minor}_x86_64" for minor in range(17, 36)] + ["manylinux2014_x86_64"]


def _pins():
    pins = {}
    for path in REQUIREMENTS:
        for raw in open(path):
            line = raw.split("#", 1)[0].split(";", 1)[0].strip()
            if not line:
                continue
            name, sep, version = line.partition("==")
            assert sep, f"{path}: '{raw.strip()}' is not pinned with =="
            pins[name.strip().lower().replace("_", "-")] = version.strip()
    return pins


def test_pins_resolve_for_the_oldest_supported_python(tmp_path):
    pins = _pins()
    req = tmp_path / "all.txt"
    req.write_text("".join(f"{n}=={v}\n" for n, v in sorted(pins.items())))
    report = tmp_path / "report.json"
    p = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--dry-run",
         "--ignore-installed", "--only-binary=:all:", "--python-version", OLDEST,
         *(a for p in PLATFORMS for a in ("--platform", p)),
         "--target", str(tmp_path / "target"),
         "--report", str(report), "-r", str(req)],
        capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, f"pins do not resolve for Python {OLDEST}:\n{p.stderr[-3000:]}"
    resolved = {i["metadata"]["name"].lower().replace("_", "-"): i["metadata"]["version"]
                for i in json.loads(report.read_text())["install"]}
    unpinned = sorted(set(resolved) - set(pins))
    assert not unpinned, f"not pinned in the lockfiles: {unpinned}"
    assert resolved == pins
