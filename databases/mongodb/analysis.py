"""What analysis knows of MongoDB (loaded by analysis/databases.py `hooks`; the names it may define:
docs/contracts.md "A database's analysis hooks").

Still in analysis/ (docs/layout.md step 5, not moved yet): its counter meanings (analysis/counters.py
mongod, SecantusDB), reconciliation rules (analysis/reconcile.py `_mongodb*`), fairness cells
(analysis/fairness.py), THP advice (analysis/thp.py).
"""

# runs[].wal: `wt_log_bytes_written` = serverStatus().wiredTiger.log["log bytes written"] in each
# server-stats reading: WiredTiger's journal. The stand-ins have none (SecantusDB: no `wiredTiger`
# section; FerretDB: SQLite/PostgreSQL behind it): null with the reader's reason and the server's name.
WAL = {"counter": "wt_log_bytes_written", "source": "wiredTiger.log",
       "about": "WiredTiger's journal, serverStatus wiredTiger.log 'log bytes written'"}
