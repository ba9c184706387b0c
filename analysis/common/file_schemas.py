"""The JSON Schemas of the files that pass between the lab's parts, checked here where analysis reads
them: those the client writes (client/src/<name>.schema.json: plan, result, count, server-stats;
the client checks them where it writes them, client/src/check-schema.js) and those the lab writes
(lab/<name>.schema.json: phase, settings); and analysis's own results (analysis/results.schema.json,
experiment.schema.json: schema.py, experiment_schema.py), checked where it writes them. A file that does not match is an AnalysisError naming
the file, the schema, where in the document and what is wrong: a file from another version of the
lab, or one edited by hand, is not read as if it were right."""
import functools
import json
import os

import jsonschema

from .errors import AnalysisError

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # the checkout


@functools.lru_cache(maxsize=None)
def load(schema_file):
    """The schema at schema_file (a path from the repository's root, e.g. lab/phase.schema.json)."""
    with open(os.path.join(ROOT, schema_file), encoding="utf-8") as f:
        return json.load(f)


def _validator_of(schema):
    # the draft the schema names in its $schema (every one here: 2020-12)
    return jsonschema.validators.validator_for(schema)(schema)


@functools.lru_cache(maxsize=None)
def _validator(schema_file):
    return _validator_of(load(schema_file))


def check(doc, schema_file, path, schema=None):
    """doc, once it matches schema_file (or the part of it given as schema); else AnalysisError naming
    path, the schema and where."""
    validator = _validator_of(schema) if schema is not None else _validator(schema_file)
    error = jsonschema.exceptions.best_match(validator.iter_errors(doc))
    if error is not None:
        where = "/".join(str(p) for p in error.absolute_path) or "(top level)"
        raise AnalysisError(f"{path}: does not match {schema_file} at '{where}': {error.message}")
    return doc


def client(doc, name, path):
    """doc checked against client/src/<name>.schema.json (a file the client wrote)."""
    return check(doc, f"client/src/{name}.schema.json", path)
