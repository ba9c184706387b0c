"""Prints one field of the JSON document on stdin, so bash reads JSON without inline Python
(standard library only: the host's python3, before the venv exists).

json-get.py KEY[.KEY...] [KEY...]   each field on its own line: a string as it is, null or a missing
                                    field as an empty line, anything else as JSON
Exit 2 when stdin is not JSON (nothing printed).
"""
import json
import sys


def get(doc, path):
    for key in path.split("."):
        if not isinstance(doc, dict):
            return None
        doc = doc.get(key)
    return doc


def text(value):
    if value is None:
        return ""
    return value if isinstance(value, str) else json.dumps(value)


def main(argv):
    if len(argv) < 2:
        print("usage: json-get.py KEY[.KEY...] [KEY...] <JSON", file=sys.stderr)
        return 2
    try:
        doc = json.load(sys.stdin)
    except ValueError as e:
        print(f"json-get.py: stdin is not JSON ({e})", file=sys.stderr)
        return 2
    print("\n".join(text(get(doc, path)) for path in argv[1:]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
