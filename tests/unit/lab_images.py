"""The PostgreSQL image a unit test may start: the official one compose.yaml pins, or the lab's
stand-in (lab/standins/build.sh; lab/test.sh builds it before the pytest suites when stand-ins are
used). Either is present wherever `./runme.sh test` runs, so a test that needs one does not skip."""
import subprocess
from pathlib import Path

LAB_ROOT = Path(__file__).resolve().parents[2]
STANDIN = "jsonbench-standin/postgres:17"


def official_postgres():
    """The postgres image of compose.yaml, as host/setup-host.sh's official_images reads it."""
    out = subprocess.run(["bash", "-c", f'. "{LAB_ROOT}/host/setup-host.sh"; official_images'],
                         capture_output=True, text=True, check=True).stdout.split()
    return next(image for image in out if image.split(":")[0] == "postgres")


def present(image):
    return subprocess.run(["docker", "image", "inspect", image], capture_output=True).returncode == 0


def postgres_image():
    """The first present of (the official image, the stand-in), or None."""
    return next((image for image in (official_postgres(), STANDIN) if present(image)), None)
