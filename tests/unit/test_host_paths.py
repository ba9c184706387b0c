"""The lab's bash finds the files it sources and runs after host provisioning moved to host/ (issue 17
step 2): every "$LAB_ROOT/<file>" and "$here/<file>" a script names (a .sh or .py of the repository,
not a generated .env or node_modules) exists, and host/README.md names every file of host/."""
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SKIP = {"node_modules", ".venv", ".git"}
# "$LAB_ROOT/x" is the repository's root; "$here/x" the script's own folder (set from BASH_SOURCE/$0).
PATH_RE = re.compile(r'"\$(LAB_ROOT|here)/([^"$]+\.(?:sh|py))"')


def scripts():
    found = [ROOT / "runme.sh", ROOT / ".ci" / "run"]
    found += [p for p in ROOT.rglob("*.sh") if not SKIP & set(p.relative_to(ROOT).parts)]
    return found


def test_every_file_a_script_sources_or_runs_exists():
    named = []
    for script in scripts():
        for base, rel in PATH_RE.findall(script.read_text()):
            target = (ROOT if base == "LAB_ROOT" else script.parent) / rel
            named.append(target.resolve())
            assert target.resolve().is_file(), f"{script.relative_to(ROOT)} names {rel} (${base}): no such file"
    # the moved files are among those checked, so the pattern still sees the ways they are named
    for moved in ("host/setup-host.sh", "host/node-python.sh", "host/ulimits.sh", "host/install-prometheus.sh"):
        assert (ROOT / moved).resolve() in named, moved


def test_no_script_names_the_old_places():
    old = re.compile(r"lab/(setup-host|install-prometheus|ulimits)\.sh|\.\./setup-host\.sh")
    for script in scripts():
        assert not old.search(script.read_text()), f"{script.relative_to(ROOT)} names a file that moved to host/"


def test_host_readme_names_every_file_of_host():
    readme = (ROOT / "host" / "README.md").read_text()
    for f in (ROOT / "host").iterdir():
        if f.name != "README.md":
            assert f"`{f.name}`" in readme, f"host/README.md does not say what {f.name} provisions"
