# The analysis command as the lab's bash pieces call it: the package run from the repository's root
# in the venv host/node-python.sh provisions (VENV; source that file first). Sourced by runme.sh.
analysis() { (cd "$LAB_ROOT" && "$VENV/bin/python" -m analysis "$@"); }
