"""A database's hooks for the driver, loaded by folder (docs/contracts.md §2a): databases/<db>/lab.py
(`uri(env)`, required; `compose_env(env, databases_root)` and `after_ready(bench, db)`, optional) and
a pooler's databases/<db>/<pool>/pool.py (`uri`, `compose_env`, `start`, `close`, `phase_json`, all
required). Two databases' hooks share names, so each file is its own module, never imported by name."""
import importlib.util
import os

POOL_HOOKS = ("uri", "compose_env", "start", "close", "phase_json")


class HookError(Exception):
    pass


def _load(path, what):
    if not os.path.isfile(path):
        raise HookError(f"{what}: no {path}")
    spec = importlib.util.spec_from_file_location(f"jsonbench_hooks_{abs(hash(path))}", path)
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except Exception as e:  # noqa: BLE001  (a hook file that does not load stops the run, naming it)
        raise HookError(f"{path} does not load: {type(e).__name__}: {e}") from e
    return module


def database(databases_root, db):
    module = _load(os.path.join(databases_root, db, "lab.py"), f"database {db}")
    if not callable(getattr(module, "uri", None)):
        raise HookError(f"{os.path.join(databases_root, db, 'lab.py')} defines no uri")
    return module


def pooler(databases_root, db, pool):
    path = os.path.join(databases_root, db, pool, "pool.py")
    module = _load(path, f"POOL={pool}")
    for name in POOL_HOOKS:
        if not callable(getattr(module, name, None)):
            raise HookError(f"{path} defines no {name}")
    return module


def compose_env(module, env, databases_root):
    """The variables a database's compose service reads from the bench: {NAME: value, or None to unset}."""
    hook = getattr(module, "compose_env", None)
    out = hook(env, databases_root) if hook else {}
    for name, value in out.items():
        if not (isinstance(name, str) and name.isupper() and name.replace("_", "").isalnum() and name[0].isalpha()
                and (value is None or isinstance(value, str))):
            raise HookError(f"{module.__file__} compose_env gave {name!r}={value!r}, not NAME: str or None")
    return out
