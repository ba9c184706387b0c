"""Validation of a REPEAT bench's or a sweep's results.json against analysis/experiment.schema.json
(analysis/common/file_schemas.py checks it, as every schema analysis reads or writes)."""
from ..common import file_schemas

SCHEMA_FILE = "analysis/experiment.schema.json"


def validate(result, where="results.json"):
    file_schemas.check(result, SCHEMA_FILE, where)
