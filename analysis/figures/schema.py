"""Validation of results.json against analysis/results.schema.json (analysis/common/file_schemas.py checks it,
as every schema analysis reads or writes)."""
from ..common import file_schemas

SCHEMA_FILE = "analysis/results.schema.json"


def load():
    return file_schemas.load(SCHEMA_FILE)


def validate(result, where="results.json"):
    file_schemas.check(result, SCHEMA_FILE, where)
