"""Where each role of a run goes (issue 27, docs/hosts.md): a Docker context per role, named by the
placement keys, read and checked before anything starts.

  DATABASE_HOST          the context of every database (and its pooler: a pooler goes with its database)
  DATABASE_HOST_<db>     the context of one database of DATABASES (over DATABASE_HOST), e.g.
                         DATABASE_HOST_postgres
  CLIENT_HOST            the context of the phases' clients (and the one-shot client commands)
  MONITORING_HOST        the context of Prometheus and Grafana; needs its LAB_ADDRESSES entry (their
                         ports bind there, and the driver queries Prometheus there)
  LAB_ADDRESSES          "CONTEXT=ADDRESS ...": each host's address on the lab network, where its
                         published ports bind (compose's BIND_ADDRESS on that host) and where clients on
                         another host dial its databases; needed for a database whose clients run on
                         another host; a wildcard (0.0.0.0, ::) is refused: clients dial one address

Each may be given in the bench's bench.env, a `--set` of the run, the caller's environment or the
lab's .env, the first of these that has it winning (.env is the lab's default, as runme.sh's
load_env_defaults reads it). Unset or empty: the controller's own engine, as today. No key set at all
is today's single host, unchanged: nothing here runs docker then.

A placed run is refused before anything starts, naming where the value came from, the key and the
context, when a context is unknown (`docker context inspect`), its engine does not answer within
TIMEOUT_S (`docker --context X info`), or the hosts of the measured containers (databases, clients)
differ in cgroup version or driver: the probe reads every measured container's cgroup CPU the same
way on every host and the figures are compared across databases, so the layouts must be the same.

Standard library only: runme.sh's `validate` runs this with the host's python3 before the venv exists."""
import os
import re
import subprocess
from dataclasses import dataclass, field
from typing import Dict

ROLE_KEYS = ("DATABASE_HOST", "CLIENT_HOST", "MONITORING_HOST")
DB_KEY_PREFIX = "DATABASE_HOST_"
# Every placement key's form; the client's bench-schema.js (PLACEMENT_KEY) leaves these to the driver.
KEY_PATTERN = re.compile(r"^(DATABASE_HOST(_[a-z][a-z0-9]*)?|CLIENT_HOST|MONITORING_HOST|LAB_ADDRESSES)$")
# A Docker context's name as `docker context create` accepts it.
CONTEXT_PATTERN = re.compile(r"^[a-zA-Z0-9][a-zA-Z0-9_.+-]*$")
# How long an engine may take to answer `docker info` before it counts as unreachable: a reachable
# engine over SSH answers in about a second; the check runs once per context before the run.
TIMEOUT_S = 10


class PlacementError(ValueError):
    """A placement refused before anything starts; the message names the source, key and context."""


def is_placement_key(name):
    return bool(KEY_PATTERN.match(name))


@dataclass
class Setting:
    key: str
    context: str
    source: str   # where it was given: "<dir>/bench.env", "--set", "the environment", "<root>/.env"
    lab_wide: bool = False  # from the environment or .env: a default for every bench, not this one's word

    def where(self):
        return f"{self.source}: {self.key}={self.context}"


@dataclass
class Placement:
    """The contexts of a run's roles; "" is the controller's own engine (no context named)."""
    databases: Dict[str, str] = field(default_factory=dict)   # db -> context
    client: str = ""
    monitoring: str = ""
    addresses: Dict[str, str] = field(default_factory=dict)   # context -> its lab-network address
    settings: Dict[str, Setting] = field(default_factory=dict)  # key -> the setting that decided it

    @property
    def placed(self):
        """True when any role is placed on a context (False: today's single host; LAB_ADDRESSES alone
        places nothing)."""
        return any(k != "LAB_ADDRESSES" for k in self.settings)

    def database(self, db):
        return self.databases.get(db, "")

    def contexts(self):
        """Every context a role is placed on, in a stable order."""
        return sorted({s.context for k, s in self.settings.items() if k != "LAB_ADDRESSES"})

    def dialled_across(self, db):
        """True when DB's clients run on another host than DB: they dial its host's lab address and
        published port instead of its service name on one engine's network."""
        return self.database(db) != self.client

    def record(self):
        """The placement as the bench's records hold it: each role's context (null: the controller's
        engine) and the keys as given, with where each came from."""
        return {"databases": {db: ctx or None for db, ctx in self.databases.items()},
                "clients": self.client or None, "monitoring": self.monitoring or None,
                "addresses": dict(sorted(self.addresses.items())),
                "keys": {k: {"context": s.context, "source": s.source} for k, s in sorted(self.settings.items())}}


def read_env_file(path):
    """KEY=VALUE lines as bash reads simple ones (quotes stripped); {} when the file is absent, or
    unreadable by this user: runme.sh's word check runs before its checks of the engine and of .env,
    which then refuse the run with their own message (a user who cannot read .env cannot run the lab)."""
    values = {}
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
    except (FileNotFoundError, PermissionError):
        return values
    for line in lines:
        line = line.strip()
        m = re.match(r"^([A-Za-z_][A-Za-z0-9_]*)=(.*)$", line)
        if not m or line.startswith("#"):
            continue
        v = m.group(2)
        q = re.match(r'^"(.*)"$', v) or re.match(r"^'(.*)'$", v)
        values[m.group(1)] = q.group(1) if q else re.sub(r"\s+#.*$", "", v).strip()
    return values


def gather(layers, lab_wide=()):
    """LAYERS: (source, {KEY: value}) from the strongest to the weakest (the sources in LAB_WIDE are the
    lab's defaults for every bench: the environment, .env) -> {key: Setting} of the
    placement keys set (non-empty) in the strongest layer that has them. An empty value in a stronger
    layer unsets the key (the controller's engine), as `--set DATABASE_HOST=` should."""
    found = {}
    for source, values in layers:
        for key, value in values.items():
            if not is_placement_key(key) or key in found:
                continue
            found[key] = Setting(key, (value or "").strip(), source, source in lab_wide)
    return {k: s for k, s in found.items() if s.context}


def of_settings(settings, databases):
    """{key: Setting} and the run's DATABASES -> Placement; refuses a key that does nothing (a
    DATABASE_HOST_<db> of the bench or --set whose db is not run: from the environment or .env it is a
    default for the benches that run it) and a context name Docker would not accept."""
    p = Placement(settings=dict(settings))
    for key, s in settings.items():
        if key == "LAB_ADDRESSES":
            p.addresses = addresses_of(s)
            continue
        if not CONTEXT_PATTERN.match(s.context):
            raise PlacementError(f"{s.where()}: not a Docker context name; allowed: a context of `docker context ls` "
                                 "(letters, digits, _ . + -)")
        if key.startswith(DB_KEY_PREFIX):
            db = key[len(DB_KEY_PREFIX):]
            if db not in databases and s.lab_wide:
                del p.settings[key]
            elif db not in databases:
                raise PlacementError(f"{s.where()}: {db} is not one of this run's databases; allowed: "
                                     + ", ".join(DB_KEY_PREFIX + d for d in databases))
    every = settings.get("DATABASE_HOST")
    for db in databases:
        one = settings.get(DB_KEY_PREFIX + db) or every
        p.databases[db] = one.context if one else ""
    p.client = settings["CLIENT_HOST"].context if "CLIENT_HOST" in settings else ""
    p.monitoring = settings["MONITORING_HOST"].context if "MONITORING_HOST" in settings else ""
    if p.monitoring and p.monitoring not in p.addresses:
        s = p.settings["MONITORING_HOST"]
        raise PlacementError(f"{s.where()}: Prometheus and Grafana publish their ports on {p.monitoring}'s address on "
                             f"the lab network and the driver queries Prometheus there: LAB_ADDRESSES has none for "
                             f"{p.monitoring}; allowed: MONITORING_HOST unset, or with LAB_ADDRESSES naming its address "
                             f"(e.g. LAB_ADDRESSES=\"{p.monitoring}=10.0.0.4\"; simulated host K: 10.199.K.2)")
    for db in databases:
        if not p.dialled_across(db):
            continue
        ctx = p.database(db)
        where = p.settings.get(DB_KEY_PREFIX + db) or p.settings.get("DATABASE_HOST") or p.settings["CLIENT_HOST"]
        if not ctx:
            raise PlacementError(f"{where.where()}: {db} stays on the controller's engine while its clients run on "
                                 f"{p.client}; allowed: the database placed too (DATABASE_HOST or {DB_KEY_PREFIX}{db}: the "
                                 "controller's published address is not known to the lab)")
        if ctx not in p.addresses:
            raise PlacementError(f"{where.where()}: {db}'s clients run on another host ({p.client or 'the controller'}), "
                                 f"so they dial {ctx}'s address on the lab network: LAB_ADDRESSES has none for {ctx} "
                                 f"(e.g. LAB_ADDRESSES=\"{ctx}=10.0.0.2\"; simulated host K: 10.199.K.2)")
    return p


def addresses_of(s):
    """LAB_ADDRESSES's words CONTEXT=ADDRESS -> {context: address}, each an IP address that is no wildcard."""
    import ipaddress
    out = {}
    for word in s.context.split():
        ctx, eq, addr = word.partition("=")
        try:
            ip = ipaddress.ip_address(addr)
        except ValueError:
            ip = None
        if not eq or not CONTEXT_PATTERN.match(ctx) or ip is None:
            raise PlacementError(f"{s.source}: LAB_ADDRESSES: {word!r}; allowed: space-separated CONTEXT=ADDRESS, "
                                 "ADDRESS an IP address (e.g. \"db1=10.0.0.2 clients1=10.0.0.3\")")
        if ip.is_unspecified:
            raise PlacementError(f"{s.source}: LAB_ADDRESSES: {word!r}: a wildcard publishes the databases on every "
                                 "network of the host and is no address a client can dial; allowed: the host's one "
                                 "address on the lab network")
        out[ctx] = addr
    return out


def of_bench(bench_env, sets=(), environ=None, env_file=None, databases=None):
    """The placement of a bench file with the run's --set words, over the caller's environment and the
    lab's .env. DATABASES: the run's databases (read from the file and the --set words when None)."""
    environ = os.environ if environ is None else environ
    sets_values = {}
    for kv in sets:
        k, _, v = kv.partition("=")
        sets_values[k] = v
    file_values = read_env_file(bench_env)
    layers = [("--set", sets_values), (bench_env, file_values), ("the environment", dict(environ))]
    if env_file:
        layers.append((env_file, read_env_file(env_file)))
    if databases is None:
        databases = (sets_values.get("DATABASES") or file_values.get("DATABASES") or "mongodb postgres").split()
    return of_settings(gather(layers, ("the environment", env_file)), databases)


def of_plan(plan, environ, env_file=None):
    """The placement of a planned bench (lab/driver/plan.py Plan): the keys the plan was given
    (bench.env and the --set words, settings.given) over the driver's environment (.env exported)."""
    source = f"{plan.data.get('bench_file') or plan.path} (as planned in {plan.path})"
    layers = [(source, plan.given), ("the environment", dict(environ))]
    if env_file:
        layers.append((env_file, read_env_file(env_file)))
    return of_settings(gather(layers, ("the environment", env_file)), plan.environment["DATABASES"].split())


# -- the engines ---------------------------------------------------------------------------------
def docker_words(context):
    """The `docker` words that reach CONTEXT's engine ("" is the controller's own engine)."""
    return ["docker", "--context", context] if context else ["docker"]


def engine_facts(context, environ=None, timeout_s=TIMEOUT_S):
    """(cgroup version, cgroup driver) of CONTEXT's engine ("": the controller's). Raises LookupError
    (the context is unknown), TimeoutError (no answer within TIMEOUT_S) or ConnectionError (the engine
    answered with an error), each with docker's words."""
    env = dict(os.environ if environ is None else environ)
    if context:
        r = subprocess.run(["docker", "context", "inspect", context], env=env, capture_output=True, text=True,
                           timeout=timeout_s)
        if r.returncode != 0:
            raise LookupError(((r.stderr.strip() or r.stdout.strip()).splitlines() or ["unknown"])[-1])
    try:
        r = subprocess.run([*docker_words(context), "info", "--format", "{{.CgroupVersion}} {{.CgroupDriver}}"],
                           env=env, capture_output=True, text=True, timeout=timeout_s)
    except subprocess.TimeoutExpired:
        raise TimeoutError(f"no answer within {timeout_s} s")
    words = r.stdout.split()
    if r.returncode != 0 or len(words) != 2:
        raise ConnectionError((r.stderr.strip() or r.stdout.strip() or f"exit {r.returncode}").splitlines()[-1])
    return words[0], words[1]


def check_engines(p, environ=None, timeout_s=TIMEOUT_S, facts=engine_facts):
    """Every context of placement P known and answering, and the hosts of the measured containers
    (the databases' and the clients', the controller's engine for a role left on it) alike in cgroup
    version and driver; returns {context: (version, driver)} ("" the controller's), or raises
    PlacementError naming the source, key and context. Nothing is checked when nothing is placed."""
    if not p.placed:
        return {}
    found = {}
    for key, s in sorted(p.settings.items()):
        if key == "LAB_ADDRESSES" or s.context in found:
            continue
        try:
            found[s.context] = facts(s.context, environ, timeout_s)
        except LookupError as e:
            raise PlacementError(f"{s.where()}: no Docker context {s.context!r} ({e}); "
                                 "allowed: a context of `docker context ls` (docs/hosts.md)")
        except (TimeoutError, ConnectionError) as e:
            raise PlacementError(f"{s.where()}: the engine of context {s.context!r} is unreachable: {e} "
                                 f"(`docker --context {s.context} info`)")
    measured = {}  # context -> the key that put a measured container there
    for db, ctx in p.databases.items():
        measured.setdefault(ctx, _key_of(p, ctx, f"{DB_KEY_PREFIX}{db}", "DATABASE_HOST"))
    measured.setdefault(p.client, _key_of(p, p.client, "CLIENT_HOST"))
    if "" in measured and "" not in found:
        try:
            found[""] = facts("", environ, timeout_s)
        except (LookupError, TimeoutError, ConnectionError) as e:
            raise PlacementError(f"the controller's own engine (where {measured['']} leaves its role) is unreachable: {e}")
    first = None
    for ctx, who in measured.items():
        if first is None:
            first = (ctx, who)
            continue
        if found[ctx] != found[first[0]]:
            a, b = first, (ctx, who)
            raise PlacementError(
                f"{_describe(p, *b)} has cgroup v{found[b[0]][0]} {found[b[0]][1]}, but {_describe(p, *a)} has cgroup "
                f"v{found[a[0]][0]} {found[a[0]][1]}: the probe reads every measured container's cgroup CPU the same "
                "way on each host, so the hosts of the databases and the clients must have the same cgroup version "
                "and driver (`docker info`: CgroupVersion, CgroupDriver)")
    return found


def _key_of(p, ctx, *keys):
    for k in keys:
        if k in p.settings and p.settings[k].context == ctx:
            return k
    return keys[-1]


def _describe(p, ctx, key):
    if not ctx:
        return f"the controller's own engine (where {key} is unset)"
    s = p.settings.get(key)
    return s.where() if s else f"{key}={ctx}"


def validate_bench(bench_env, sets=(), environ=None, env_file=None, timeout_s=TIMEOUT_S):
    """The placement of one bench file and the run's --set words, checked; returns it."""
    p = of_bench(bench_env, sets, environ, env_file)
    check_engines(p, environ, timeout_s)
    return p


