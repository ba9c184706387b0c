"""The lab's driver: the experiment, bench and phase loop in Python (issue 26), reading plan.json and
driving the engine through `docker compose`. Standard library only, so that `validate` runs on the
host's python3 before anything is installed; `run` runs in the lab's venv (host/node-python.sh) so
that analysis's two entry points (analysis/entry.py) are called in-process. docs/layout.md "lab/driver"
says which module holds what."""
