"""Every host of a run, with its role and its facts (issue 27): kernel, CPU model, cores, memory, cgroup
version and driver, Docker version. Written as hosts.json into the bench folder (lab/hosts.schema.json),
read by analysis into results.json `hosts` and report.md's Hosts table.

The facts of the host the driver runs on are host.json's, analysis's host-info (analysis/collect/hostinfo.py,
through the probe: today's single host), not read a second time. Another host's come from its own
engine (`docker --context C info`: kernel, OS, cores, memory, cgroup version and driver, Docker version)
laid under what a probe on that host reads from its kernel (lab/driver/probe.py kernel_facts: CPU model,
and the cgroup version as the kernel mounts it); a fact no one could read is null, named in `reason`.

  document(hosts, local_context, local_facts, probes=None, environ=None) -> hosts.json's object
  engine_facts(context, environ=None) -> dict   one engine's `docker info`, in host.json's words
"""
import json
import os
import subprocess

from .monitoring_targets import ROLES

FACTS = ("kernel", "os", "arch", "cpu_model", "cores", "memory_bytes", "cgroup_version", "cgroup_driver",
         "docker_server")
# the facts a probe's kernel_facts gives (a container with --pid host and --uts host sees its host's)
PROBE_FACTS = ("kernel", "arch", "cpu_model", "cores", "memory_bytes", "cgroup_version")


def engine_facts(context, environ=None, timeout=60):
    """`docker --context CONTEXT info` in host.json's words ({fact: value}, `error` when docker could
    not answer). The engine's cgroup version is 1 or 2: "v1" / "v2" as host-info says them."""
    environ = dict(os.environ if environ is None else environ)
    try:
        r = subprocess.run(["docker", "--context", context, "info", "--format", "{{json .}}"], capture_output=True,
                           text=True, timeout=timeout, env=environ, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired) as e:
        return {"error": f"docker --context {context} info: {e}"}
    try:
        info = json.loads(r.stdout) if r.returncode == 0 else None
    except ValueError:
        info = None
    if not isinstance(info, dict):
        return {"error": f"docker --context {context} info: {(r.stderr or r.stdout).strip()[-300:] or 'no answer'}"}
    version = str(info.get("CgroupVersion") or "")
    return {"kernel": info.get("KernelVersion") or None, "os": info.get("OperatingSystem") or None,
            "arch": info.get("Architecture") or None, "cpu_model": None, "cores": info.get("NCPU") or None,
            "memory_bytes": info.get("MemTotal") or None,
            "cgroup_version": f"v{version}" if version in ("1", "2") else None,
            "cgroup_driver": info.get("CgroupDriver") or None, "docker_server": info.get("ServerVersion") or None}


def record(context, roles, facts, why=None):
    """One host of hosts.json: its context, its roles in ROLES' order, each fact (null when unread)."""
    rec = {"context": context, "roles": [r for r in ROLES if r in roles]}
    rec.update({k: facts.get(k) for k in FACTS})
    missing = [k for k in FACTS if rec[k] is None]
    reasons = ([why] if why else []) + ([f"not read: {', '.join(missing)}"] if missing else [])
    rec["reason"] = "; ".join(reasons) or None
    return rec


def document(hosts, local_context, local_facts, probes=None, environ=None):
    """hosts.json: {"schema_version": 1, "hosts": [record, ...]} in context order. HOSTS: {context:
    roles}; LOCAL_CONTEXT's facts are LOCAL_FACTS (host.json), any other host's its engine's and its
    probe's (PROBES: {context: Probe}, optional: without one its CPU model is null)."""
    out = []
    for context in sorted(hosts):
        if context == local_context:
            out.append(record(context, hosts[context], local_facts or {},
                              None if local_facts else "host.json could not be read"))
            continue
        facts = engine_facts(context, environ)
        why = facts.pop("error", None)
        probe = (probes or {}).get(context)
        if probe is not None:
            try:
                kernel = probe.host_facts()
                facts.update({k: kernel[k] for k in PROBE_FACTS if kernel.get(k) is not None})
            except Exception as e:  # noqa: BLE001  (a fact's context, not a reason to stop)
                why = "; ".join(filter(None, [why, f"the probe on {context}: {type(e).__name__}: {e}"]))
        elif not why:
            why = "no probe on this host: its CPU model is not read"
        out.append(record(context, hosts[context], facts, why))
    return check({"schema_version": 1, "hosts": out})


SCHEMA = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "hosts.schema.json")


def check(doc):
    """DOC once it matches lab/hosts.schema.json (checked where it is written, as where analysis reads it)."""
    import jsonschema  # the lab's venv has it (analysis/requirements.txt)
    with open(SCHEMA, encoding="utf-8") as f:
        schema = json.load(f)
    error = jsonschema.exceptions.best_match(jsonschema.Draft202012Validator(schema).iter_errors(doc))
    if error is not None:
        where = "/".join(str(p) for p in error.absolute_path) or "(top level)"
        raise ValueError(f"hosts.json: does not match lab/hosts.schema.json at '{where}': {error.message}")
    return doc
