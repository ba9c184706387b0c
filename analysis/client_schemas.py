"""The JSON Schemas of the files the client writes and analysis reads (client/src/<name>.schema.json:
plan, result, count, server-stats), checked here where analysis reads them, as the client checks
them where it writes them (client/src/check-schema.js). A file that does not match is an
AnalysisError naming the file, the schema, where in the document and what is wrong: a file from
another version of the client, or one edited by hand, is not read as if it were right."""
import functools
import json
import os

import jsonschema

from .errors import AnalysisError

SCHEMA_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "client", "src")


@functools.lru_cache(maxsize=None)
def validator(name):
    with open(os.path.join(SCHEMA_DIR, f"{name}.schema.json"), encoding="utf-8") as f:
        return jsonschema.Draft202012Validator(json.load(f))


def check(doc, name, path):
    """doc, once it matches client/src/<name>.schema.json; else AnalysisError naming path."""
    error = jsonschema.exceptions.best_match(validator(name).iter_errors(doc))
    if error is not None:
        where = "/".join(str(p) for p in error.absolute_path)
        raise AnalysisError(f"{path}: does not match client/src/{name}.schema.json at '{where}': {error.message}")
    return doc
