# TimescaleDB's hooks for the lab (sourced in a subshell by lab/stack.sh; docs/layout.md step 5).
# lab_uri: the URI the client containers dial on the lab network: the PostgreSQL service's user,
# password and database (its compose.yaml takes them), the timescaledb:// scheme picking this
# folder's binding (the wire protocol is PostgreSQL's).
lab_uri() { echo "timescaledb://${POSTGRES_USER}:${POSTGRES_PASSWORD}@timescaledb:5432/${POSTGRES_DB}"; }
