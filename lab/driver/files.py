"""The bench folder of clients that run on another host than the controller (issue 27): there the
controller's folder is not (on a real host; simulated hosts share this machine's files, and use this
all the same, so that the tests run what real hosts run). The files the clients read (plan.json, a
DATASET file, a booking check's transaction outcomes) go into a volume on the clients' host, mounted
at the same place (/bench) as the folder is on one host; the files they write (clients/<phase>-client-
<i>.json) come back into the controller's folder.

Both ways go through `docker cp` and a box: a container created on that host with the volume and never
started, so no process of the lab's runs there for a copy (the clients' host is measured too), and
nothing but the host's context is needed (no port, no SSH of the lab's own)."""
import io
import os
import tarfile

DATASET_DIR = "dataset"  # a DATASET file's folder in the volume: /bench/dataset/<name>


class FilesError(RuntimeError):
    """A copy to or from the clients' host failed; the message says which and docker's words."""


class BenchFiles:
    def __init__(self, engine, image, bench_name):
        self.engine, self.image = engine, image
        self.volume = f"{engine.project}_bench-files"
        self.box = f"{engine.project}-bench-files"
        self.bench_name = bench_name

    def _docker(self, *args, stdin=None, binary=False):
        """`docker ARGS` on the clients' host while its engine answers (a copy of a large DATASET takes
        as long as it takes; a silent host ends it: Engine.run_watched)."""
        return self.engine.run_watched([*self.engine.docker, *args], input=stdin, text=not binary)

    def create(self):
        """A fresh volume and its box on the clients' host (a previous bench's are removed)."""
        self.remove()
        labels = ["--label", f"com.docker.compose.project={self.engine.project}", "--label", "jsonbench.role=bench-files"]
        r = self._docker("volume", "create", *labels, self.volume)
        if r.returncode != 0:
            raise FilesError(f"the bench-files volume could not be made on {self.engine.context}: {r.stderr.strip()}")
        r = self._docker("create", "--name", self.box, *labels, "--network", "none", "-v", f"{self.volume}:/bench",
                         "--entrypoint", "true", self.image)
        if r.returncode != 0:
            raise FilesError(f"the bench-files box could not be made on {self.engine.context}: {r.stderr.strip()}")

    def remove(self):
        self._docker("rm", "-f", self.box)
        self._docker("volume", "rm", self.volume)

    def push(self, files):
        """FILES: {path in /bench: path here}; with the clients/ folder, owned by the user the clients run
        as (the driver's), so that they can write their results."""
        buf = io.BytesIO()
        with tarfile.open(fileobj=buf, mode="w") as tar:
            for name in ("clients", DATASET_DIR):
                info = tarfile.TarInfo(name)
                info.type, info.mode, info.uid, info.gid = tarfile.DIRTYPE, 0o755, os.getuid(), os.getgid()
                tar.addfile(info)
            for dest, src in files.items():
                info = tar.gettarinfo(src, arcname=dest)
                info.uid, info.gid, info.uname, info.gname = os.getuid(), os.getgid(), "", ""
                with open(src, "rb") as f:
                    tar.addfile(info, f)
        r = self._docker("cp", "-a", "-", f"{self.box}:/bench", stdin=buf.getvalue(), binary=True)
        if r.returncode != 0:
            raise FilesError(f"copying {', '.join(sorted(files))} to {self.engine.context} failed: "
                             f"{r.stderr.decode(errors='replace').strip()}")

    def pull_clients(self, bench_dir):
        """The clients' result files from the volume into BENCH_DIR/clients (regular files only, by their
        base names: nothing outside that folder is written); returns their names."""
        r = self._docker("cp", f"{self.box}:/bench/clients", "-", binary=True)
        if r.returncode != 0:
            raise FilesError(f"copying the clients' results from {self.engine.context} failed: "
                             f"{r.stderr.decode(errors='replace').strip()}")
        out = os.path.join(bench_dir, "clients")
        os.makedirs(out, exist_ok=True)
        names = []
        with tarfile.open(fileobj=io.BytesIO(r.stdout), mode="r:") as tar:
            for m in tar.getmembers():
                name = os.path.basename(m.name)
                # a client's atomic write leaves a dot-file while it writes: only finished results
                if not m.isfile() or name.startswith(".") or not name.endswith(".json"):
                    continue
                data = tar.extractfile(m).read()
                path = os.path.join(out, name)
                names.append(name)
                if os.path.exists(path):
                    with open(path, "rb") as f:
                        if f.read() == data:
                            continue
                tmp = os.path.join(out, f".{name}.pull")
                with open(tmp, "wb") as f:
                    f.write(data)
                os.replace(tmp, path)
        return names
