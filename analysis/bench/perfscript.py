"""A phase's perf record profile (D.perf / D.perf.gz: `perf script -F +pid` text of the database
container's cgroup) read into its samples: each sample's process name (comm), process id and the
binaries its frames lie in. Whose samples they are (the server's or another process's) is the
figures' question (analysis/figures/profile_samples.py); the profile is read once, by the Bench
(folder.py `Phase.profile_samples`), and its text is not kept (a profile may be tens of MB)."""
import re

_HEADER = re.compile(r"^(\S.*?)\s+(\d+)(?:/\d+)?\s+(?:\[\d+\]\s+)?\d+\.\d+:")
_DSO = re.compile(r"\(([^()]*/)?([^()/]+)\)\s*$")


def samples(lines):
    """[(comm, pid, frozenset of the file names of the binaries its frames lie in)] in profile order."""
    out = []  # [comm, pid, binaries]
    for line in lines:
        m = _HEADER.match(line)
        if m:
            out.append([m.group(1), m.group(2), set()])
        elif out and line[:1].isspace():
            d = _DSO.search(line)
            if d:
                out[-1][2].add(d.group(2))
    return [(comm, pid, frozenset(binaries)) for comm, pid, binaries in out]
