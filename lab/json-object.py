"""Prints one JSON object built from typed key=value arguments, so bash passes values and never
hand-writes or splices JSON (standard library only: the host's python3).

key=value     a string
key?=value    a string, null when empty
key#=value    a number (JSON number syntax), null when empty or `null`
key!=value    a boolean: true or false
key[]=a,b     a list of strings: the comma-separated items, empty ones dropped
key[#]=1 2    a list of numbers (or `null`s): the space-separated words
key:=json     a JSON value a tool printed (an object, a list, null, ...)

A dotted key (`window.start#=...`) sets a field of a nested object, created in argument order.
A value that is not of its type exits 2 naming the argument: nothing is printed.
"""
import json
import sys

SUFFIXES = ("[#]", "[]", ":", "#", "?", "!")


def number(text, arg):
    try:
        value = json.loads(text)
    except ValueError:
        value = None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"{arg}: '{text}' is not a number")
    return value


def typed(kind, value, arg):
    if kind == "":
        return value
    if kind == "?":
        return value or None
    if kind == "#":
        return None if value in ("", "null") else number(value, arg)
    if kind == "!":
        if value not in ("true", "false"):
            raise ValueError(f"{arg}: '{value}' is not true or false")
        return value == "true"
    if kind == "[]":
        return [item for item in value.split(",") if item]
    if kind == "[#]":
        return [None if word == "null" else number(word, arg) for word in value.split()]
    try:  # ":"
        return json.loads(value)
    except ValueError as e:
        raise ValueError(f"{arg}: not JSON ({e})")


def build(args):
    obj = {}
    for arg in args:
        key, sep, value = arg.partition("=")
        if not sep:
            raise ValueError(f"{arg}: no '=' (key=value)")
        kind = next((s for s in SUFFIXES if key.endswith(s)), "")
        key = key[: len(key) - len(kind)]
        *parents, name = key.split(".")
        if not name or not all(parents):
            raise ValueError(f"{arg}: empty key")
        target = obj
        for parent in parents:
            target = target.setdefault(parent, {})
            if not isinstance(target, dict):
                raise ValueError(f"{arg}: '{parent}' is already set to a value that is not an object")
        target[name] = typed(kind, value, arg)
    return obj


def main(argv):
    try:
        obj = build(argv[1:])
    except ValueError as e:
        print(f"json-object.py: {e}", file=sys.stderr)
        return 2
    json.dump(obj, sys.stdout, indent=2)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
