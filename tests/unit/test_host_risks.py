"""Host risks that stop a run (issue 16 section 2), found by lab/preflight.py before anything starts:
MongoDB 8.0 on Linux >= 6.19 (upstream's words and the fix: databases/mongodb/preflight.py, run by
lab/preflight.py because that folder has it), and cAdvisor without containerd's socket."""
import importlib.util
import json
import socket
from pathlib import Path

LAB_ROOT = Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("preflight", LAB_ROOT / "lab" / "preflight.py")
preflight = importlib.util.module_from_spec(spec)
spec.loader.exec_module(preflight)
# MongoDB's check, as lab/preflight.py finds it: by its folder
check_kernel = dict(preflight.database_checks())["mongodb"]


def test_each_database_folder_with_a_preflight_is_checked_and_no_other():
    found = [name for name, _ in preflight.database_checks()]
    assert found == sorted(p.parent.name for p in (LAB_ROOT / "databases").glob("*/preflight.py")) == ["mongodb"]
    # the whole check, as main() runs it: MongoDB's error on a 7.0 kernel, nothing on the stand-ins
    assert preflight.check_databases("7.0.0-14-generic", {}, ".env", {}, False)[0]
    assert preflight.check_databases("7.0.0-14-generic", {}, ".env", {}, True) == ([], [])


def test_a_database_without_a_preflight_or_not_in_the_lab_adds_no_check(tmp_path):
    hook = (LAB_ROOT / "databases" / "mongodb" / "preflight.py").read_text()
    for name, manifest, has_hook in (("plain", {"name": "plain"}, False), ("later", {"name": "later", "not_in_lab": "why"}, True),
                                     ("own", {"name": "own"}, True)):
        (tmp_path / name).mkdir()
        (tmp_path / name / "database.json").write_text(json.dumps(manifest))
        if has_hook:
            (tmp_path / name / "preflight.py").write_text(hook)
    assert [n for n, _ in preflight.database_checks(str(tmp_path))] == ["own"]
    assert preflight.check_databases("6.1.0", {}, ".env", {}, False, root=str(tmp_path)) == ([], [])
    assert len(preflight.check_databases("7.0.0", {}, ".env", {}, False, root=str(tmp_path))[0]) == 1

# enforce_kernel_compatibility() of the mongodb-community-server image's docker-entrypoint.py, as it
# prints on a 7.0 kernel (quoted in google/tcmalloc#292 and docker-library/mongo#752).
UPSTREAM_7_0 = ("ERROR: Detected Linux kernel 7.0.0-14-generic. MongoDB 8.0+ utilizes the tcmalloc allocator which has a "
                "known issue with the v6.19 and newer Linux kernel. This container will not start by default on v6.19+.")


def test_a_619_kernel_stops_the_official_mongodb_with_upstreams_words_and_the_fix():
    errors, notes = check_kernel("7.0.0-14-generic", {}, ".env", {}, standins=False)
    assert len(errors) == 1 and not notes
    assert UPSTREAM_7_0 in errors[0]
    assert "https://jira.mongodb.org/browse/SERVER-121912" in errors[0]
    assert "Fix: set MONGO_GLIBC_TUNABLES=glibc.pthread.rseq=1 in .env" in errors[0]
    for release in ("6.19.0", "6.19.2-arch1-1", "7.2.6-arch2-1"):
        assert check_kernel(release, {}, ".env", {}, False)[0], release


def test_older_kernels_the_stand_ins_and_the_workaround_pass():
    for release in ("6.1.0-37-amd64", "6.18.9", "5.15.0"):
        assert check_kernel(release, {}, ".env", {}, False) == ([], []), release
    assert check_kernel("7.0.0", {}, ".env", {}, standins=True) == ([], [])
    env = {"MONGO_GLIBC_TUNABLES": "glibc.pthread.rseq=1"}
    errors, notes = check_kernel("7.0.0-14-generic", env, ".env", {}, False)
    assert not errors and "without per-CPU caches" in notes[0]
    # the environment wins over .env, as in compose
    assert check_kernel("7.0.0", env, ".env", {"MONGO_GLIBC_TUNABLES": "glibc.pthread.rseq=0"}, False)[0]


def unix_socket(path):
    s = socket.socket(socket.AF_UNIX)
    s.bind(str(path))
    return s


def test_containerd_socket_under_dockerds_own_directory_is_named_with_the_fix(tmp_path):
    (tmp_path / "docker-containerd").mkdir()
    (tmp_path / "run-containerd").mkdir()
    with unix_socket(tmp_path / "docker-containerd" / "containerd.sock"):
        env = {"CONTAINERD_RUN_DIR": str(tmp_path / "run-containerd")}
        notes = preflight.check_containerd(env, ".env", {}, False, dockerd_dir=str(tmp_path / "docker-containerd"))
        assert len(notes) == 1 and f"Fix: CONTAINERD_RUN_DIR={tmp_path / 'docker-containerd'} in .env" in notes[0]
        ok = {"CONTAINERD_RUN_DIR": str(tmp_path / "docker-containerd")}
        assert preflight.check_containerd(ok, ".env", {}, False, dockerd_dir=str(tmp_path / "docker-containerd")) == []
        assert preflight.check_containerd(env, ".env", {}, True, dockerd_dir=str(tmp_path / "docker-containerd")) == []
    assert "has no containerd.sock" in preflight.check_containerd(env, ".env", {}, False, dockerd_dir=str(tmp_path / "none"))[0]
