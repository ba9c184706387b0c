# PostgreSQL's hooks for the lab (sourced in a subshell by lab/stack.sh; docs/layout.md step 5).
# lab_uri: the URI the client containers dial on the lab network (the password from .env travels
# in the environment, never on a command line).
lab_uri() { echo "postgres://${POSTGRES_USER}:${POSTGRES_PASSWORD}@postgres:5432/${POSTGRES_DB}"; }
