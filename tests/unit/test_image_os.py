"""lab/image-os.py (D.phase.json `image_os`, results.json runs[].image_os) against an independent
reading of the same image: its files copied out of a created, never started container (`docker cp`,
nothing runs): /etc/os-release's PRETTY_NAME and the libc6 package's version in dpkg's status file.
And an image without a shell: nulls with the reason, never a guess."""
import json
import re
import shutil
import subprocess
import tarfile
import io
from pathlib import Path

import pytest

from lab_images import STANDIN, present

LAB_ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(shutil.which("docker") is None, reason="needs the docker CLI")


def image_os(image):
    r = subprocess.run(["python3", str(LAB_ROOT / "lab/image-os.py"), image], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def copied(cid, path):
    """A file of a container's filesystem (symlinks followed), read from the tar stream docker cp gives."""
    tar = subprocess.run(["docker", "cp", "-L", f"{cid}:{path}", "-"], capture_output=True, check=True, timeout=60).stdout
    with tarfile.open(fileobj=io.BytesIO(tar)) as t:
        member = next(m for m in t.getmembers() if m.isfile())
        return t.extractfile(member).read().decode()


def test_the_postgres_stand_in_reads_as_its_files_say():
    if not present(STANDIN):
        pytest.skip(f"{STANDIN} is not built (lab/standins/build.sh postgres; lab/test.sh builds it first)")
    got = image_os(STANDIN)
    cid = subprocess.run(["docker", "create", "--label", "jsonbench.test=image-os", STANDIN],
                         capture_output=True, text=True, check=True).stdout.strip()
    try:
        pretty = re.search(r'^PRETTY_NAME="?([^"\n]*)"?$', copied(cid, "/etc/os-release"), re.M).group(1)
        status = copied(cid, "/var/lib/dpkg/status")
    finally:
        subprocess.run(["docker", "rm", "-v", cid], capture_output=True)
    libc6 = re.search(r"^Package: libc6\n(?:[^\n]+\n)*?Version: ([0-9.]+)-", status, re.M).group(1)
    assert got == {"image": STANDIN, "os": pretty, "libc": f"glibc {libc6}", "reason": None}
    # the stand-in is what the official postgres:17 is built on
    assert got["os"] == "Debian GNU/Linux 13 (trixie)", got


def test_an_image_without_a_shell_gives_nulls_and_the_reason(tmp_path):
    empty = tmp_path / "empty.tar"
    with tarfile.open(empty, "w"):
        pass
    image = subprocess.run(["docker", "import", str(empty)], capture_output=True, text=True, check=True).stdout.strip()
    try:
        got = image_os(image)
    finally:
        subprocess.run(["docker", "rmi", image], capture_output=True)
    assert (got["os"], got["libc"]) == (None, None)
    assert got["reason"].startswith("could not run /bin/sh in the image"), got
