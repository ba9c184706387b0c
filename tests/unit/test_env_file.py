"""host/setup-host.sh ensure_env_file: .env is made from .env.example with every password generated,
and a .env made before a password was added to .env.example gets that one appended, the rest kept."""
import shutil
import subprocess
from pathlib import Path

LAB_ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = LAB_ROOT / ".env.example"
SECRETS = [l.split("=", 1)[0] for l in EXAMPLE.read_text().splitlines() if l.endswith("_PASSWORD=")]


def ensure(root):
    r = subprocess.run(["bash", str(LAB_ROOT / "host/setup-host.sh"), "ensure_env_file"],
                       env={"PATH": "/usr/bin:/bin", "JSONBENCH_ROOT": str(root)}, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    values = dict(l.split("=", 1) for l in (root / ".env").read_text().splitlines() if "=" in l and not l.startswith("#"))
    return values, r.stderr


def test_every_password_generated_then_a_missing_one_appended(tmp_path):
    assert len(SECRETS) >= 4, SECRETS
    shutil.copy(EXAMPLE, tmp_path / ".env.example")
    first, _ = ensure(tmp_path)
    assert all(len(first[k]) == 36 for k in SECRETS), {k: first.get(k) for k in SECRETS}
    assert len({first[k] for k in SECRETS}) == len(SECRETS)
    # An older .env: one password line missing, a setting of the user's changed.
    env = tmp_path / ".env"
    missing = SECRETS[-1]
    env.write_text("".join(l + "\n" for l in env.read_text().splitlines()
                           if not l.startswith(f"{missing}=")).replace("BIND_ADDRESS=127.0.0.1", "BIND_ADDRESS=127.0.0.2"))
    second, log = ensure(tmp_path)
    assert f"added a generated {missing}" in log
    assert len(second[missing]) == 36 and second[missing] != first[missing]
    assert {k: v for k, v in second.items() if k != missing} == {**{k: v for k, v in first.items() if k != missing}, "BIND_ADDRESS": "127.0.0.2"}
    third, log = ensure(tmp_path)
    assert third == second and "added" not in log
