"""docs/ is a map of today's code (issue 26): every file or folder path the docs and READMEs name
exists, read from the repository's root or from the document's own folder (databases/mysql/README.md
says `client/mysql.js`); and no tracked file holds a merge's conflict marker. Placeholders
(`databases/<db>/`, `fixtures/mysql97-booking-*`) name no one path and are not checked."""
import re
import subprocess
from pathlib import Path

LAB_ROOT = Path(__file__).resolve().parents[2]
TOPS = ("analysis", "client", "databases", "lab", "host", "tests", "docs", "grafana", "prometheus")

# a path: a known top folder (or, in a folder's README, one of that folder's own), then name parts;
# a word glued before it (`bench1/` in `../bench1/x`, `dashboards/s`) makes it something else.
PATH = re.compile(r"(?<![\w/.<>$-])((?:[\w.-]+/)+[\w.-]*)")


def documents():
    docs = sorted((LAB_ROOT / "docs").glob("*.md"))
    readmes = [Path(p) for p in subprocess.run(["git", "ls-files", "*README.md"], cwd=LAB_ROOT, capture_output=True,
                                               text=True, check=True).stdout.split()]
    return docs + [LAB_ROOT / p for p in readmes]


def named_paths(doc):
    text = doc.read_text()
    own = {p.name for p in doc.parent.iterdir()} if doc.parent != LAB_ROOT else set()
    for m in PATH.finditer(text):
        path = m.group(1).rstrip(".")
        after = text[m.end():m.end() + 1]
        if after in ("<", "*", "{", "$") or path.split("/")[0] not in set(TOPS) | own:
            continue
        # a file (with an extension) or a folder (ending in /): "client/server" is prose, not a path
        if not (path.endswith("/") or "." in path.rsplit("/", 1)[-1]):
            continue
        yield path


def test_every_path_the_docs_name_exists():
    missing = []
    for doc in documents():
        for path in named_paths(doc):
            if not ((LAB_ROOT / path).exists() or (doc.parent / path).exists()):
                missing.append(f"{doc.relative_to(LAB_ROOT)}: {path}")
    assert not missing, "paths named in the docs that do not exist:\n" + "\n".join(sorted(set(missing)))


def test_the_check_sees_a_path_that_does_not_exist(tmp_path):
    fake = tmp_path / "x.md"
    fake.write_text("see `lab/no-such-file.sh` and analysis/nowhere/, not databases/<db>/x.js\n")
    assert list(named_paths(fake)) == ["lab/no-such-file.sh", "analysis/nowhere/"]


def test_no_tracked_file_holds_a_conflict_marker():
    r = subprocess.run(["git", "grep", "-nIE", "^(<<<<<<<|>>>>>>>)( |$)"], cwd=LAB_ROOT, capture_output=True, text=True)
    assert r.returncode == 1 and not r.stdout, "conflict markers:\n" + r.stdout
