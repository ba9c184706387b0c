# MySQL's hooks for the lab (sourced in a subshell by lab/stack.sh; docs/layout.md step 5).
# lab_uri: root, because reading the server's counters (SHOW GLOBAL STATUS, SHOW BINARY LOGS) and
# the flush before `count` need rights a MYSQL_USER lacks (databases/mysql/compose.yaml says why).
lab_uri() { echo "mysql://root:${MYSQL_PASSWORD}@mysql:3306/${MYSQL_DB:-jsonbench}"; }
