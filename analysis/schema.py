"""Validation of results.json against analysis/results.schema.json."""
import json
import os

import jsonschema

from .errors import AnalysisError

SCHEMA_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "results.schema.json")


def load():
    with open(SCHEMA_PATH, encoding="utf-8") as f:
        return json.load(f)


def validate(result, where="results.json"):
    try:
        jsonschema.validate(result, load())
    except jsonschema.ValidationError as e:
        path = "/".join(str(p) for p in e.absolute_path)
        raise AnalysisError(f"{where}: does not match results.schema.json at '{path}': {e.message}")
