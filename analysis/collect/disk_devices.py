"""Which block device(s) carry Docker's volumes, so that disk I/O is counted once.

cAdvisor exports a container's block I/O per device (blkio/io.stat, keyed by major:minor and named
/dev/<name> from /sys/block). On LVM or dm-crypt one write is accounted on every layer of the stack:
on the dm device the filesystem sits on, on the dm device below it, and on the disk beneath (x2 or
x3). The lab counts only the top of the stack: the device of the filesystem holding Docker's data
root, or for a partition its whole disk (the block layer accounts a partition's I/O on the disk).

Everything is read from a root folder (/ on a real host, a fixture tree in tests):
proc/self/mountinfo, sys/dev/block/MAJ:MIN (symlink into /sys/devices), sys/block/*/slaves."""
import os
import subprocess

DOCKER_ROOT_DEFAULT = "/var/lib/docker"


def _unescape(path):
    # mountinfo escapes space, tab, newline and backslash as octal (\040 ...)
    out, i = "", 0
    while i < len(path):
        if path[i] == "\\" and path[i + 1:i + 4].isdigit():
            out += chr(int(path[i + 1:i + 4], 8))
            i += 4
        else:
            out += path[i]
            i += 1
    return out


def mount_of(path, root="/"):
    """(major:minor, mount point, fs type, source) of the mount holding `path` (longest prefix)."""
    best = None
    with open(os.path.join(root, "proc/self/mountinfo")) as f:
        for line in f:
            left, _, right = line.partition(" - ")
            fields, rfields = left.split(), right.split()
            mnt = _unescape(fields[4])
            inside = path == mnt or path.startswith(mnt.rstrip("/") + "/") or mnt == "/"
            if inside and (best is None or len(mnt) >= len(best[1])):
                best = (fields[2], mnt, rfields[0] if rfields else None, rfields[1] if len(rfields) > 1 else None)
    return best


def _sysfs_dir(majmin, root):
    link = os.path.join(root, "sys/dev/block", majmin)
    if not os.path.exists(link):
        return None
    return os.path.realpath(link)  # fixture trees use relative links like sysfs, so this works there too


def _read(path):
    try:
        with open(path) as f:
            return f.read().strip()
    except OSError:
        return None


def _slaves(name, root):
    d = os.path.join(root, "sys/block", name, "slaves")
    return sorted(os.listdir(d)) if os.path.isdir(d) else []


def discover(docker_root=DOCKER_ROOT_DEFAULT, root="/"):
    """{docker_root, mount, fstype, source, count: [{name, major_minor, dm_name}], stack: [names
    from the counted device down to the disks], reason}. `count` is empty (with the reason) when
    the data root is not on a block device (overlay in a VM, tmpfs, a network filesystem)."""
    out = {"docker_root": docker_root, "mount": None, "fstype": None, "source": None,
           "count": [], "stack": [], "reason": None}
    try:
        m = mount_of(docker_root, root)
    except OSError as e:
        out["reason"] = f"cannot read mountinfo: {e}"
        return out
    if m is None:
        out["reason"] = f"no mount holds {docker_root}"
        return out
    majmin, out["mount"], out["fstype"], out["source"] = m
    sysdir = _sysfs_dir(majmin, root)
    if majmin.startswith("0:") or sysdir is None:
        out["reason"] = (f"{docker_root} is on {out['fstype']} ({out['source']}, device {majmin}), "
                         "not on a block device")
        return out
    name = os.path.basename(os.path.normpath(sysdir))
    if os.path.exists(os.path.join(sysdir, "partition")):
        # the block layer accounts a partition's requests on its disk (blkio is per disk)
        disk_dir = os.path.dirname(os.path.normpath(sysdir))
        name = os.path.basename(disk_dir)
        majmin = _read(os.path.join(disk_dir, "dev")) or majmin
    out["count"] = [{"name": name, "major_minor": majmin,
                     "dm_name": _read(os.path.join(root, "sys/block", name, "dm/name"))}]
    stack, todo = [], [name]
    while todo:
        n = todo.pop(0)
        if n in stack:
            continue
        stack.append(n)
        for s in _slaves(n, root):
            # a slave that is a partition: its disk is where the I/O is accounted again
            part = os.path.join(root, "sys/block", s)
            if not os.path.isdir(part):
                parent = [d for d in os.listdir(os.path.join(root, "sys/block"))
                          if os.path.isdir(os.path.join(root, "sys/block", d, s))]
                s = parent[0] if parent else s
            todo.append(s)
    out["stack"] = stack
    return out


def docker_root_dir():
    try:
        p = subprocess.run(["docker", "info", "--format", "{{.DockerRootDir}}"], capture_output=True,
                           text=True, timeout=15)
        if p.returncode == 0 and p.stdout.strip():
            return p.stdout.strip()
    except (OSError, subprocess.TimeoutExpired):
        pass
    return DOCKER_ROOT_DEFAULT


def gather():
    return discover(docker_root_dir())


def matches(labels, counted):
    """Whether a cAdvisor series (its `device` label, or `major`/`minor` labels) is a counted device."""
    dev = labels.get("device")
    if dev is not None:
        return any(dev in (f"/dev/{c['name']}", c["name"], c["major_minor"]) or
                   (c.get("dm_name") and dev == f"/dev/mapper/{c['dm_name']}") for c in counted)
    if "major" in labels and "minor" in labels:
        return f"{labels['major']}:{labels['minor']}" in {c["major_minor"] for c in counted}
    return True  # a series with no device at all is already a total
