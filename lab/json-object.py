"""Prints one JSON object built from key=value arguments, so bash never hand-writes JSON.

key=value    a string
key:=json    a raw JSON value (number, true, null, list, object)
"""
import json
import sys

obj = {}
for arg in sys.argv[1:]:
    key, _, value = arg.partition("=")
    if key.endswith(":"):
        obj[key[:-1]] = json.loads(value)
    else:
        obj[key] = value
json.dump(obj, sys.stdout, indent=2)
sys.stdout.write("\n")
