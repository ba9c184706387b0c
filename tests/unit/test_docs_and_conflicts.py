"""The checkout holds no unresolved merge conflict, and the docs (docs/*.md, README.md) name no file
that does not exist: docs/ is a map of today's code, and a path it names is where a reader looks."""
import re
import subprocess
from pathlib import Path

LAB_ROOT = Path(__file__).resolve().parents[2]

# A conflict's first and last lines (and diff3's base line), written here without the markers
# themselves so that this file is not one.
CONFLICT = re.compile(r"^(?:%s|%s|%s)(?: |$)" % ("<" * 7, r"\|" * 7, ">" * 7), re.MULTILINE)

# Words of the docs that look like paths and are not (the tokenizer below cannot tell).
NOT_PATHS = {"docs/s": "documents per second"}


def git(*args):
    return subprocess.run(["git", "-C", str(LAB_ROOT), *args], capture_output=True, text=True, check=True).stdout


def tracked():
    return git("ls-files", "-z").split("\0")[:-1]


def test_no_tracked_file_holds_a_conflict_marker():
    found = []
    for name in tracked():
        path = LAB_ROOT / name
        if not path.is_file():  # a file deleted in the work tree, not yet in the index
            continue
        try:
            text = path.read_text()
        except UnicodeDecodeError:  # binary: no conflict markers git would write as text
            continue
        found += [f"{name}:{text.count(chr(10), 0, m.start()) + 1}: {m.group(0).strip()}" for m in CONFLICT.finditer(text)]
    assert found == [], "unresolved merge conflict: " + "; ".join(found)


def named_paths(text):
    """(line number, path) of each word that starts like a path of the checkout: a/b[/c...], not
    followed by a placeholder (`databases/<db>/`, `client/src/*.schema.json`)."""
    for n, line in enumerate(text.splitlines(), 1):
        for m in re.finditer(r"(?<![\w./-])((?:[A-Za-z0-9_.+-]+/)+[A-Za-z0-9_.+-]*)", line):
            if m.end(1) < len(line) and line[m.end(1)] in "<*{$=":
                continue
            yield n, m.group(1).rstrip(".,;:")


def test_every_path_the_docs_name_exists():
    files = set(tracked())
    dirs = {"/".join(f.split("/")[:i]) for f in files for i in range(1, f.count("/") + 1)}
    tops = {f.split("/")[0] for f in files}
    benches = {d for d in tops if f"{d}/bench.env" in files}
    missing = []
    docs = sorted((LAB_ROOT / "docs").glob("*.md")) + [LAB_ROOT / "README.md"]
    assert len(docs) >= 3
    for doc in docs:
        for n, path in named_paths(doc.read_text()):
            top, plain = path.split("/")[0], path.rstrip("/")
            if top not in tops or path in NOT_PATHS or plain in files or plain in dirs:
                continue
            if top in benches:  # a run's output inside a bench folder (report.md, sweep-KEY/...)
                continue
            missing.append(f"{doc.relative_to(LAB_ROOT)}:{n}: {path}")
    # what git ignores exists only once made (client/node_modules, .venv): named, not tracked
    ignored = set(subprocess.run(["git", "-C", str(LAB_ROOT), "check-ignore", "--no-index", "--stdin"],
                                 input="\n".join(m.split(": ", 1)[1] for m in missing), capture_output=True,
                                 text=True).stdout.split())
    missing = [m for m in missing if m.split(": ", 1)[1] not in ignored]
    assert missing == [], "the docs name paths that do not exist: " + "; ".join(missing)
