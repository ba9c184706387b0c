'use strict';
// WORKLOAD=booking on MySQL: the airline booking model on InnoDB (client/src/workloads/booking-data.js):
// its tables and index, the static data, the steps of one booking (run by the binding's transaction
// step kind, mysql-txn.js), and the
// nothing-lost check. The same logical work as PostgreSQL's (databases/postgres/client/
// workloads/booking.js): a lookup joining the flight to its aircraft, the seat and the payment
// inserted, the (flight, day) audit row upserted (INSERT ... ON DUPLICATE KEY UPDATE: MySQL's form
// of ON CONFLICT ... DO UPDATE), each one round trip through a statement prepared once per
// connection (COM_STMT_PREPARE at the binding's prepareTransactions, then COM_STMT_EXECUTE).
//
// Column types as near PostgreSQL's as InnoDB has them: ids of seat and payment BINARY(16) (the
// booking key's 16 bytes, as uuid), DATE, INT, BIGINT; PostgreSQL's `text` columns of the static
// data are VARCHAR(16) (their values are 3 to 6 characters: InnoDB keeps VARCHAR in the row, as
// PostgreSQL keeps short text). audit has no primary key, as on PostgreSQL: InnoDB then clusters its
// rows by the first UNIQUE index of NOT NULL columns, audit_schedule_day (innodb-index-types.html),
// the index the upsert's conflict is found on, so the upsert's lookup is the clustered index's.
const { tables, INDEXES, rows, AIRCRAFT } = require('../../../../client/src/sdk').workloadData('booking');

const DDL = [
  'CREATE TABLE aircraft (id INT NOT NULL PRIMARY KEY, model VARCHAR(16) NOT NULL, seats INT NOT NULL) ENGINE=InnoDB',
  'CREATE TABLE schedule (id INT NOT NULL PRIMARY KEY, flight VARCHAR(16) NOT NULL, origin VARCHAR(16) NOT NULL, destination VARCHAR(16) NOT NULL, '
    + 'departure_min INT NOT NULL, duration_min INT NOT NULL, aircraft_id INT NOT NULL, FOREIGN KEY (aircraft_id) REFERENCES aircraft (id)) ENGINE=InnoDB',
  'CREATE TABLE seat (id BINARY(16) NOT NULL PRIMARY KEY, schedule_id INT NOT NULL, day DATE NOT NULL, user_id INT NOT NULL, seat_no INT NOT NULL) ENGINE=InnoDB',
  'CREATE TABLE payment (id BINARY(16) NOT NULL PRIMARY KEY, user_id INT NOT NULL, amount_cents BIGINT NOT NULL) ENGINE=InnoDB',
  'CREATE TABLE audit (schedule_id INT NOT NULL, day DATE NOT NULL, seats_occupied INT NOT NULL) ENGINE=InnoDB',
];

const SQL = {
  flight: 'SELECT s.id, s.duration_min, a.seats FROM schedule s JOIN aircraft a ON a.id = s.aircraft_id WHERE s.id = ?',
  seat: 'INSERT INTO seat (id, schedule_id, day, user_id, seat_no) VALUES (?, ?, ?, ?, ?)',
  payment: 'INSERT INTO payment (id, user_id, amount_cents) VALUES (?, ?, ?)',
  // MySQL 8.4 manual, insert-on-duplicate.html: the row is inserted, or on a duplicate of a UNIQUE
  // index the existing row updated (the column name on the right is the stored row's value).
  audit: 'INSERT INTO audit (schedule_id, day, seats_occupied) VALUES (?, ?, 1) ON DUPLICATE KEY UPDATE seats_occupied = seats_occupied + 1',
};

const indexSql = (ix) => `CREATE ${ix.unique ? 'UNIQUE ' : ''}INDEX ${ix.name} ON ${ix.table} (${ix.fields.join(', ')})`;

async function init(conn, { seed, flights }) {
  await conn.query(`DROP TABLE IF EXISTS ${Object.keys(tables).reverse().join(', ')}`);
  for (const sql of DDL) await conn.query(sql);
  await insertAll(conn, 'aircraft', rows('aircraft', seed, AIRCRAFT));
  await insertAll(conn, 'schedule', rows('schedule', seed, flights));
  const indexes = INDEXES.map(indexSql);
  for (const sql of indexes) await conn.query(sql);
  return { created: DDL.join('; '), indexes };
}

// Multi-row inserts of 500 rows, values bound as parameters (no SQL built from values).
async function insertAll(conn, table, source) {
  const cols = tables[table];
  let batch = [];
  const flush = async () => {
    if (!batch.length) return;
    const values = batch.map(() => `(${cols.map(() => '?').join(', ')})`).join(', ');
    await conn.query(`INSERT INTO ${table} (${cols.join(', ')}) VALUES ${values}`, batch.flatMap((row) => cols.map((c) => row[c])));
    batch = [];
  };
  for (const row of source) {
    batch.push(row);
    if (batch.length === 500) await flush();
  }
  await flush();
}

// The step kinds of one transaction on this connection's prepared statements.
function stepsOn(st) {
  return {
    async flightWithAircraft(scheduleId) {
      const [r] = await st.flight.execute([scheduleId]);
      if (r.length !== 1) throw new Error(`booking: no flight ${scheduleId} (was init run with the same FLIGHTS and SEED?)`);
      return { id: Number(r[0][0]), durationMin: Number(r[0][1]), seats: Number(r[0][2]) };
    },
    insertSeat: (s) => st.seat.execute([s.id, s.scheduleId, s.day, s.userId, s.seatNo]),
    insertPayment: (p) => st.payment.execute([p.id, p.userId, p.amountCents]),
    addToAudit: (scheduleId, day) => st.audit.execute([scheduleId, day]),
  };
}

// Nothing lost: seats = payments (the same ids), every audit row = its (flight, day)'s seats.
// At most `limit` offending rows are listed. MySQL has no FULL JOIN: the audit rows against the
// seats' groups, then the groups without an audit row.
async function verify(conn, limit = 20) {
  const rowsOf = async (sql) => (await conn.query(sql))[0];
  const [[seats, payments, auditRows, auditSeats]] = await rowsOf(`SELECT (SELECT COUNT(*) FROM seat), (SELECT COUNT(*) FROM payment),
    (SELECT COUNT(*) FROM audit), (SELECT COALESCE(SUM(seats_occupied), 0) FROM audit)`);
  const unpaid = await rowsOf(`SELECT LOWER(HEX(s.id)) FROM seat s LEFT JOIN payment p ON p.id = s.id WHERE p.id IS NULL ORDER BY 1 LIMIT ${limit}`);
  const orphan = await rowsOf(`SELECT LOWER(HEX(p.id)) FROM payment p LEFT JOIN seat s ON s.id = p.id WHERE s.id IS NULL ORDER BY 1 LIMIT ${limit}`);
  const groups = 'SELECT schedule_id, day, COUNT(*) AS n FROM seat GROUP BY schedule_id, day';
  const audit = await rowsOf(`SELECT a.schedule_id, DATE_FORMAT(a.day, '%Y-%m-%d'), a.seats_occupied, COALESCE(s.n, 0)
      FROM audit a LEFT JOIN (${groups}) s ON s.schedule_id = a.schedule_id AND s.day = a.day
     WHERE s.n IS NULL OR s.n <> a.seats_occupied
    UNION ALL
    SELECT s.schedule_id, DATE_FORMAT(s.day, '%Y-%m-%d'), NULL, s.n
      FROM (${groups}) s LEFT JOIN audit a ON a.schedule_id = s.schedule_id AND a.day = s.day
     WHERE a.schedule_id IS NULL
    ORDER BY 1, 2 LIMIT ${limit}`);
  return {
    seats: Number(seats),
    payments: Number(payments),
    audit_rows: Number(auditRows),
    audit_seats: Number(auditSeats),
    seats_without_payment: unpaid.map((r) => r[0]),
    payments_without_seat: orphan.map((r) => r[0]),
    audit_mismatches: audit.map(([scheduleId, day, a, s]) => ({
      schedule_id: Number(scheduleId), day, audit: a === null ? null : Number(a), seats: Number(s),
    })),
  };
}

// Every seat's id as 32 hex digits (the nothing-lost check matches them with the clients' bookings).
async function seatIds(conn) {
  return (await conn.query('SELECT LOWER(HEX(id)) FROM seat'))[0].map((r) => r[0]);
}

// The five tables' InnoDB sizes (information_schema.TABLES, read from the storage engine: the
// session's information_schema_stats_expiry = 0, as count() reads jsonbench's).
async function sizes(conn, names = Object.keys(tables)) {
  await conn.query('SET SESSION information_schema_stats_expiry = 0');
  const [[[data, index]]] = await conn.query(
    `SELECT COALESCE(SUM(DATA_LENGTH), 0), COALESCE(SUM(INDEX_LENGTH), 0) FROM information_schema.TABLES
      WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME IN (${names.map(() => '?').join(', ')})`,
    names,
  );
  return { table_bytes: Number(data), index_bytes: Number(index), total_bytes: Number(data) + Number(index) };
}

// The binding's transaction preparation with a workload's statements, which name its tables: a
// table init did not make (1146 ER_NO_SUCH_TABLE) is said with the workload init must be run with.
const prepareWith = (workload, sql) => (target, opts) => target.prepareTransactions(opts, sql).catch((err) => {
  if (err.errno !== 1146) throw err;
  throw Object.assign(new Error(`${err.message} (was init run with WORKLOAD=${workload} on this database?)`), { errno: err.errno, code: err.code });
});

// What each `run` session sends besides its operations (server-stats' run_session): the binding's
// connect and durability check, the session's isolation level, and the prepares of these statements.
const runSession = (sql) => ({
  connections: 1, statements: 3, prepares: Object.keys(sql).length,
  about: `SELECT VERSION(); SELECT @@innodb_flush_log_at_trx_commit, ...; SET SESSION transaction_isolation; ${Object.keys(sql).length} prepares`,
});

// What client/src/workloads/booking*.js ask of this database (docs/contracts.md §2a, "Workload
// files"). A booking's key: its 16 bytes (BINARY(16)), so no `key`.
module.exports = {
  init: (target, opts) => init(target.handle(), opts),
  // the session as the binding prepares it for transactions, with these statements prepared on it
  prepare: prepareWith('booking', SQL),
  stepsOn,
  verify: (target) => verify(target.handle()),
  seatIds: (target) => seatIds(target.handle()),
  // the binding's flush after the phase (count's readSettled) writes and analyzes the five tables:
  // client/src/workloads/booking.workload.js `tables`
  sizes: (target) => sizes(target.handle()),
  runSession: runSession(SQL),
  runSessionOf: runSession,
  prepareWith,
  SQL,
  DDL,
};
