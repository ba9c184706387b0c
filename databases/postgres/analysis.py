"""What analysis knows of PostgreSQL (loaded by analysis/databases.py `hooks`; the names it may
define: docs/contracts.md "A database's analysis hooks").

Still in analysis/ (docs/layout.md step 5, not moved yet): its counter meanings (analysis/counters.py
POSTGRES), reconciliation rules (analysis/reconcile.py `_postgres*`), fairness cells
(analysis/fairness.py), transaction isolation (analysis/txn_report.py).
"""

# runs[].wal: `wal_bytes` = pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0') in each server-stats
# reading (databases/postgres/client/postgres-stats.js): the advance of the WAL *write* position (WAL
# handed to the operating system, not necessarily flushed; records still in the server's WAL
# buffers, pg_current_wal_insert_lsn, are not in it), full-page images and TOAST included.
WAL = {"counter": "wal_bytes", "source": "pg_current_wal_lsn",
       "about": ("advance of the WAL write position, pg_current_wal_lsn() (WAL written to the operating "
                 "system, not necessarily flushed; not the insert position)")}
