class AnalysisError(Exception):
    """A user-facing error: the CLI prints the message and exits 2, without a traceback."""
