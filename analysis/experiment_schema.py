"""Validation of a REPEAT bench's or a sweep's results.json against analysis/experiment.schema.json."""
import json
import os

import jsonschema

from .errors import AnalysisError

SCHEMA_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "experiment.schema.json")


def validate(result, where="results.json"):
    with open(SCHEMA_PATH, encoding="utf-8") as f:
        schema = json.load(f)
    try:
        jsonschema.validate(result, schema)
    except jsonschema.ValidationError as e:
        path = "/".join(str(p) for p in e.absolute_path)
        raise AnalysisError(f"{where}: does not match experiment.schema.json at '{path}': {e.message}")
