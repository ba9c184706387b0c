"""The lab's own stand-ins (lab/standins/: node, prometheus, cadvisor) say what they are: each label
names the version its Dockerfile pins and the official image compose.yaml runs, each tag the version,
and compose.standins.yaml runs the tags build.sh builds, with build.sh's labels. The tests' host
Prometheus is the stand-in's version, of the official image's line."""
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

LAB_ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(LAB_ROOT / "tests"))
import real_prometheus  # noqa: E402

BUILD_SH = (LAB_ROOT / "lab" / "standins" / "build.sh").read_text()


def build_sh_table(name):
    """A `declare -A name=( [key]=value ... )` table of build.sh, values unquoted."""
    body = re.search(rf"^declare -A {name}=\((.*?)^\)", BUILD_SH, re.M | re.S).group(1)
    return {k: v.strip('"') for k, v in re.findall(r"^\s*\[(\w+)\]=(.*)$", body, re.M)}


def compose(path):
    class Loader(yaml.SafeLoader):  # compose's own tags (!reset, !override) read as plain values
        pass
    Loader.add_multi_constructor("!", lambda loader, tag, node: loader.construct_sequence(node)
                                 if isinstance(node, yaml.SequenceNode) else None)
    return yaml.load((LAB_ROOT / path).read_text(), Loader=Loader)["services"]


def dockerfile_arg(image, arg):
    text = (LAB_ROOT / "lab" / "standins" / image / "Dockerfile").read_text()
    return re.search(rf"^ARG {arg}=(\S+)$", text, re.M).group(1)


OFFICIAL = compose("compose.yaml")
STANDINS = compose("compose.standins.yaml")
TAGS = build_sh_table("image_tag")
LABELS = build_sh_table("stand_in")


def test_compose_runs_the_tags_build_sh_builds_with_its_labels():
    assert STANDINS["prometheus"]["image"] == TAGS["prometheus"]
    assert STANDINS["cadvisor"]["image"] == TAGS["cadvisor"]
    assert STANDINS["client"]["build"]["args"]["NODE_IMAGE"] == TAGS["node"]
    for service in ("prometheus", "cadvisor"):
        assert STANDINS[service]["labels"]["jsonbench.stand_in"] == LABELS[service], service
    # lab images other checkouts still build keep their old tags: never `latest`
    assert not [t for t in TAGS.values() if t.endswith(":latest")]


def test_prometheus_stand_in_is_the_official_images_minor_and_says_its_version():
    official = OFFICIAL["prometheus"]["image"]  # prom/prometheus:v3.5.0
    major_minor = re.fullmatch(r"prom/prometheus:v(\d+\.\d+)\.\d+", official).group(1)
    pinned = dockerfile_arg("prometheus", "PROMETHEUS_VERSION")
    assert pinned.startswith(major_minor + ".")
    assert TAGS["prometheus"] == f"jsonbench-standin/prometheus:{major_minor}"
    assert LABELS["prometheus"] == f"Prometheus {pinned} (Debian package) standing in for {official}"
    assert dockerfile_arg("prometheus", "BASE") == "jsonbench-standin/debian:sid"


def test_node_stand_in_is_the_official_images_major_and_says_it():
    official = re.fullmatch(r"\$\{NODE_IMAGE:-(.+)\}", OFFICIAL["client"]["build"]["args"]["NODE_IMAGE"]).group(1)
    major = re.fullmatch(r"node:(\d+)-.*", official).group(1)  # node:20-bookworm-slim
    assert dockerfile_arg("node", "NODE_MINOR").split(".")[0] == major
    assert TAGS["node"] == f"jsonbench-standin/node:{major}"
    assert LABELS["node"] == f"Node.js {major}.x (Debian 13 package) standing in for {official}"
    assert dockerfile_arg("node", "BASE") == "jsonbench-standin/debian:trixie"
    assert f"Node.js {major}.x" in STANDINS["client"]["labels"]["jsonbench.stand_in"]


def test_cadvisor_label_names_its_library_version_and_the_official_image():
    official = OFFICIAL["cadvisor"]["image"]
    library = re.search(r"^\s*github.com/google/cadvisor (v\S+)$",
                        (LAB_ROOT / "lab" / "standins" / "cadvisor" / "go.mod").read_text(), re.M).group(1)
    assert LABELS["cadvisor"].startswith(f"cAdvisor {library} library build standing in for {official} ")
    assert TAGS["cadvisor"] == f"jsonbench-standin/cadvisor:{library[1:]}"
    assert "lab/standins/README.md" in LABELS["cadvisor"]


def test_the_tests_prometheus_is_the_version_the_lab_runs():
    """analysis/tests and grafana/tests start this Prometheus (tests/real_prometheus.py), not whatever
    is on PATH (Debian 12's is 2.42, whose range selectors include the left edge)."""
    prometheus, promtool = real_prometheus.binaries()
    pinned = dockerfile_arg("prometheus", "PROMETHEUS_VERSION")
    assert real_prometheus.version_of(prometheus) == pinned
    assert real_prometheus.version_of(promtool) == pinned


def present(image):
    return subprocess.run(["docker", "image", "inspect", image], capture_output=True).returncode == 0


@pytest.mark.parametrize("image,command,pattern", [
    ("prometheus", ["--version"], r"prometheus, version {PROMETHEUS_VERSION}\+"),
    ("node", ["node", "--version"], r"v{NODE_MINOR}\.\d+"),
    ("node", ["npm", "--version"], r"{NPM_VERSION}\s*$"),
])
def test_the_built_stand_in_runs_the_pinned_version(image, command, pattern):
    tag = TAGS[image]
    if not present(tag):
        pytest.skip(f"the stand-in images are not built ({tag}; lab/standins/build.sh)")
    out = subprocess.run(["docker", "run", "--rm", "--network", "none", tag, *command],
                         capture_output=True, text=True, timeout=120)
    arg = re.search(r"\{(\w+)\}", pattern).group(1)
    want = pattern.replace("{" + arg + "}", re.escape(dockerfile_arg(image, arg)))
    assert re.match(want, out.stdout + out.stderr), out.stdout + out.stderr


def test_a_cached_npm_tarball_whose_digest_is_not_the_pinned_one_is_refused(tmp_path):
    """build.sh puts the npm tarball the node Dockerfile pins (NPM_VERSION, NPM_INTEGRITY) into the
    context; a cached file with another digest (truncated, tampered) is refused and removed, never
    built into the client's base."""
    version = dockerfile_arg("node", "NPM_VERSION")
    (tmp_path / "npm").mkdir()
    bad = tmp_path / "npm" / f"npm-{version}.tgz"
    bad.write_bytes(b"not the npm tarball")
    build = LAB_ROOT / "lab" / "standins" / "build.sh"
    script = ("set -Eeuo pipefail; src=$(sed -n '/^log()/p;/^die()/p;/^fetch_npm()/,/^}/p' \"$1\"); "
              "eval \"$src\"; fetch_npm \"$2\"")
    out = subprocess.run(["bash", "-c", script, "fetch", str(build),
                          str(LAB_ROOT / "lab" / "standins" / "node" / "Dockerfile")],
                         env={**os.environ, "cache": str(tmp_path)}, capture_output=True, text=True, timeout=60)
    assert out.returncode != 0, out
    assert "is not the pinned" in out.stderr and "NPM_INTEGRITY" in out.stderr, out.stderr
    assert not bad.exists()
