#!/usr/bin/env python3
"""The databases the lab knows, read from their manifests (databases/<name>/database.json, checked
against databases/database.schema.json) and the stated baseline of its ratios (databases/baseline.json).
The one Python reader: analysis and lab/*.py import it; bash asks through the CLI below, so a
database's names, volume and processes are written once, in its folder.

  manifests.py [--root DIR] names                 the databases, one per line (sorted)
  manifests.py [--root DIR] field NAME KEY        one value (KEY dotted: standin.label; a list: one per line)
  manifests.py [--root DIR] fields KEY [NAME...]  KEY of every database (or of NAME...), one per line
  manifests.py [--root DIR] poolers [NAME...]      "<database> <pooler> <service>" of every pooler offered
  manifests.py [--root DIR] image NAME [VERSION]   the official image of versions.images[VERSION] (default: versions.default)
  manifests.py [--root DIR] baseline              "numerator denominator"
  manifests.py [--root DIR] check                 every manifest and the baseline valid, else exit 2

A bad manifest is an error naming the file, the key and what is allowed (exit 2 in the CLI).
Needs jsonschema (the lab's venv: analysis/requirements.txt)."""
import json
import os
import sys

import jsonschema

ROOT = os.path.dirname(os.path.abspath(__file__))
MANIFEST = "database.json"


class ManifestError(Exception):
    pass


def _read_json(path):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except FileNotFoundError:
        raise ManifestError(f"{path}: no such file") from None
    except json.JSONDecodeError as e:
        raise ManifestError(f"{path}: not JSON ({e})") from None


def _subschema(schema, path):
    """The schema part that describes the value at `path` (keys and list indexes), $refs followed."""
    node = schema
    for step in path:
        while "$ref" in node:
            node = schema["$defs"][node["$ref"].rsplit("/", 1)[-1]]
        node = node.get("items", {}) if isinstance(step, int) else node.get("properties", {}).get(step, {})
    while "$ref" in node:
        node = schema["$defs"][node["$ref"].rsplit("/", 1)[-1]]
    return node


def _allowed(node):
    if "enum" in node:
        return "one of " + ", ".join(map(str, node["enum"]))
    if "items" in node and "enum" in node["items"]:
        return "a list of " + ", ".join(map(str, node["items"]["enum"]))
    if "pattern" in node:
        return f"a string matching {node['pattern']}"
    if "properties" in node:
        return "keys " + ", ".join(node["properties"])
    return f"type {node.get('type', 'any')}"


def _message(path, schema_name, schema, e):
    """One error of jsonschema as the lab says it: file, key, what is allowed."""
    at = list(e.absolute_path)
    key = ".".join(map(str, at))
    if e.validator == "required":
        missing = e.message.split("'")[1]
        full = ".".join(map(str, at + [missing]))
        return f"{path}: key '{full}' is missing (required in {schema_name}: {', '.join(e.validator_value)})"
    if e.validator == "additionalProperties":
        known = _subschema(schema, at).get("properties", {})
        extra = sorted(set(e.instance) - set(known))
        full = ".".join(map(str, at + extra[:1]))
        return f"{path}: key '{full}' is not known (allowed keys: {', '.join(known)})"
    node = _subschema(schema, at)
    return f"{path}: key '{key or '(top level)'}': {e.message} (allowed: {_allowed(node)}; {schema_name})"


def _validate(doc, path, schema_file):
    schema = _read_json(os.path.join(os.path.dirname(os.path.abspath(__file__)), schema_file))
    errors = sorted(jsonschema.Draft202012Validator(schema).iter_errors(doc), key=lambda e: list(e.absolute_path))
    if errors:
        raise ManifestError(_message(path, schema_file, schema, errors[0]))


def _all_names(root):
    return sorted(d for d in os.listdir(root) if os.path.isfile(os.path.join(root, d, MANIFEST)))


def names(root=ROOT, not_in_lab=False):
    """Every database the lab runs, sorted (a folder under databases/ holding database.json without
    `not_in_lab`); not_in_lab=True: also the ones whose wiring is still to come."""
    if not_in_lab:
        return _all_names(root)
    return [n for n in _all_names(root) if "not_in_lab" not in _read_json(os.path.join(root, n, MANIFEST))]


def load(name, root=ROOT):
    """The manifest of one database, checked; ManifestError names the file, the key, what is allowed."""
    known = names(root, not_in_lab=True)
    if name not in known:
        raise ManifestError(f"database {name!r} has no manifest {os.path.join(root, str(name), MANIFEST)} "
                            f"(known: {', '.join(known) or 'none'})")
    path = os.path.join(root, name, MANIFEST)
    doc = _read_json(path)
    _validate(doc, path, "database.schema.json")
    if doc["name"] != name:
        raise ManifestError(f"{path}: key 'name' is {doc['name']!r} (allowed: {name!r}, the folder's name)")
    if doc["service"] != name:
        # lab/driver/phase.py and lab/driver/bench.py still address the container by the database's name (until
        # the plan-as-data step, docs/layout.md, passes the service on)
        raise ManifestError(f"{path}: key 'service' is {doc['service']!r} (allowed: {name!r}, the database's "
                            "name: the lab still addresses its compose service by it)")
    versions = doc.get("versions")
    if versions and versions["default"] not in versions["images"]:
        raise ManifestError(f"{path}: key 'versions.default' is {versions['default']!r} (allowed: "
                            f"{', '.join(versions['images'])}, the keys of versions.images)")
    forms = doc["offers"].get("forms")
    if forms and forms["default"] not in forms["offered"]:
        raise ManifestError(f"{path}: key 'offers.forms.default' is {forms['default']!r} (allowed: "
                            f"{', '.join(forms['offered'])}, the keys of offers.forms.offered)")
    for pooler in doc["offers"].get("poolers", {}):
        # a pooler is a folder of the database's: its service and its hooks (docs/contracts.md §2a)
        hooks = os.path.join(root, name, pooler, "pool.py")
        if not os.path.isfile(hooks):
            raise ManifestError(f"{path}: key 'offers.poolers.{pooler}': no {hooks} (allowed: a pooler whose "
                                "folder holds its hooks for the lab, pool.py)")
    return doc


def poolers(names_=None, root=ROOT):
    """[(database, pooler, service)] of every pooler the databases (all the lab runs, or names_) offer."""
    return [(n, p, s["service"]) for n in (names_ or names(root))
            for p, s in load(n, root)["offers"].get("poolers", {}).items()]


def load_all(root=ROOT):
    """{name: manifest} for every database, sorted by name."""
    return {n: load(n, root) for n in names(root)}


def baseline(root=ROOT):
    """(numerator, denominator) of the lab's ratios, both databases with a manifest."""
    path = os.path.join(root, "baseline.json")
    doc = _read_json(path)
    _validate(doc, path, "baseline.schema.json")
    known = names(root)
    for key in ("numerator", "denominator"):
        if doc[key] not in known:
            raise ManifestError(f"{path}: key '{key}' is {doc[key]!r} (allowed: {', '.join(known)}, "
                                "the databases with a manifest)")
    if doc["numerator"] == doc["denominator"]:
        raise ManifestError(f"{path}: keys 'numerator' and 'denominator' are both {doc['numerator']!r} "
                            "(allowed: two different databases)")
    return doc["numerator"], doc["denominator"]


def server_processes(name, stand_in=None, root=ROOT):
    """The server's process names: the official server's (stand_in False), the stand-in's (True; with
    an own_image too, its names as well: a stand-in run may run the image a user points it at instead),
    or every name it ever ran under (None: official, stand-in and earlier stand-ins; for reading
    profiles of older runs)."""
    m = load(name, root)
    # an image of the user's own (own_image.env), labelled as a stand-in is: its server's names
    own = m["own_image"]["processes"] if "own_image" in m else []
    if stand_in and "standin" not in m and own:
        return list(own)
    if stand_in and "standin" not in m:
        raise ManifestError(f"{os.path.join(root, name, MANIFEST)}: database {name!r} has no stand-in: {m['no_standin']}")
    if stand_in:
        return list(dict.fromkeys(m["standin"]["processes"] + own))
    if stand_in is not None:
        return list(m["processes"])
    found = m["processes"] + m.get("standin", {}).get("processes", []) + [p for s in m.get("earlier_standins", []) for p in s["processes"]]
    return list(dict.fromkeys(found))


def field(manifest, key, where="manifest"):
    value = manifest
    for part in key.split("."):
        if not isinstance(value, dict) or part not in value:
            raise ManifestError(f"{where}: no key '{key}'")
        value = value[part]
    return value


def official_image(manifest, version, where="manifest"):
    """The official image a database's `versions` list gives for `version` ('' or None: its default)."""
    v = manifest.get("versions")
    if not v:
        raise ManifestError(f"{where}: no key 'versions' (the database offers no choice of official image)")
    version = version or v["default"]
    if version not in v["images"]:
        raise ManifestError(f"{where}: {v['key']}={version} is not offered (allowed: {', '.join(v['images'])})")
    return v["images"][version]


def _print(value):
    for v in value if isinstance(value, list) else [value]:
        print(v if isinstance(v, str) else json.dumps(v))


def main(argv=None):
    args = list(sys.argv[1:] if argv is None else argv)
    root = ROOT
    if args[:1] == ["--root"] and len(args) >= 2:
        root, args = args[1], args[2:]
    usage = ("usage: manifests.py [--root DIR] names | field NAME KEY | fields KEY [NAME...] | poolers [NAME...] | "
             "image NAME [VERSION] | baseline | check")
    try:
        if args == ["names"]:
            _print(names(root))
        elif len(args) == 3 and args[0] == "field":
            _print(field(load(args[1], root), args[2], os.path.join(root, args[1], MANIFEST)))
        elif len(args) >= 2 and args[0] == "fields":
            for n in args[2:] or names(root):
                _print(field(load(n, root), args[1], os.path.join(root, n, MANIFEST)))
        elif args[:1] == ["poolers"]:
            for row in poolers(args[1:], root):
                print(" ".join(row))
        elif args[:1] == ["image"] and len(args) in (2, 3):
            print(official_image(load(args[1], root), (args + [""])[2], os.path.join(root, args[1], MANIFEST)))
        elif args == ["baseline"]:
            print(" ".join(baseline(root)))
        elif args == ["check"]:
            for n in names(root, not_in_lab=True):
                load(n, root)
            baseline(root)
        else:
            print(usage, file=sys.stderr)
            return 2
    except ManifestError as e:
        print(f"databases: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
