'use strict';
// TimescaleDB's background jobs, unscheduled outside the windows. Its job scheduler (one background
// worker per database holding the extension; none in template databases) runs the jobs of
// timescaledb_information.jobs when they fall due: work inside a window that no other database
// does, which the lab did not ask for. TimescaleDB 2.19 schedules one by default, job 3 (the job
// history's retention, `policy_job_stat_history_retention`, every month, first due at once), in
// every database the extension is created in: the official image creates it in `postgres`,
// `template1` and POSTGRES_DB at its first start (so does the stand-in), its tsbs workload file's init in the
// lab's database. The Apache edition's job 3 fails at each run (its code is TSL) and is retried.
// So init and count (both outside any window) read the jobs of every database that can run them,
// whatever their intervals, and unschedule each scheduled one; what was found and unscheduled is
// returned for count.json (`jobs`) and init's line. A job that is running is waited for (bounded),
// so its work ends before the next window.
// How: alter_job(id, scheduled => false) is TSL code, refused by the Apache edition ("function
// alter_job is not supported under the current apache license"), so the one way that works on both
// editions is the catalog row itself (_timescaledb_config.bgw_job.scheduled, what alter_job sets),
// then the database's scheduler restarted (_timescaledb_functions.restart_background_workers(),
// Apache code), which reads its jobs again as it starts: a plain UPDATE does not tell a running
// scheduler.

const { Client } = require('../../../../../client/src/sdk').clientRequire('pg');

// Databases a scheduler can run in: TimescaleDB's launcher skips templates ("trying to connect to
// template database, exiting") and those that allow no connection.
const DATABASES_SQL = `select datname, datname = current_database() as current from pg_database
  where datallowconn and not datistemplate order by datname`;
const JOBS_SQL = `select j.job_id, j.application_name, j.proc_schema || '.' || j.proc_name as proc,
       j.schedule_interval::text as schedule_interval, j.scheduled, j.next_start::text as next_start,
       s.job_status, s.last_run_status, s.total_runs::int as total_runs
  from timescaledb_information.jobs j left join timescaledb_information.job_stats s using (job_id)
 order by j.job_id`;
const RUNNING_SQL = "select count(*)::int as n from timescaledb_information.job_stats where job_status = 'Running'";
const RUNNING_WAIT_MS = 30000;

// A session on another database of the same server, as the binding's own: the address, user,
// password and TLS its session connected with (pg's Client keeps them), another database.
async function connectTo(client, database) {
  const c = new Client({
    host: client.host, port: client.port, user: client.user, password: client.password, ssl: client.ssl, database, connectionTimeoutMillis: 5000,
  });
  await c.connect();
  return c;
}

async function waitNotRunning(c) {
  const until = Date.now() + RUNNING_WAIT_MS;
  for (;;) {
    const { rows: [r] } = await c.query(RUNNING_SQL);
    if (r.n === 0 || Date.now() >= until) return r.n;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

// client: the binding's session (its handle). Returns {found, unscheduled, about}:
// every job seen (database, job_id, proc, schedule_interval, scheduled as found, next_start,
// job_status, last_run_status, total_runs), and `database job_id` of those this call unscheduled.
async function unscheduleJobs(client) {
  const found = [];
  const unscheduled = [];
  const stillRunning = [];
  const { rows: dbs } = await client.query(DATABASES_SQL);
  for (const { datname, current } of dbs) {
    const c = current ? client : await connectTo(client, datname);
    try {
      const { rows: ext } = await c.query("select 1 from pg_extension where extname = 'timescaledb'");
      if (!ext.length) continue;
      const { rows } = await c.query(JOBS_SQL);
      const due = rows.filter((j) => j.scheduled).map((j) => j.job_id);
      for (const j of rows) found.push({ database: datname, ...j });
      if (due.length) {
        await c.query('update _timescaledb_config.bgw_job set scheduled = false where id = any($1::int[])', [due]);
        await c.query('select _timescaledb_functions.restart_background_workers()');
        unscheduled.push(...due.map((id) => `${datname} ${id}`));
      }
      if (rows.length && await waitNotRunning(c)) stillRunning.push(datname);
    } finally {
      if (!current) await c.end();
    }
  }
  return {
    found,
    unscheduled,
    still_running: stillRunning,
    about: 'timescaledb_information.jobs of every database that can run them, read outside the windows; each scheduled one '
      + 'unscheduled (_timescaledb_config.bgw_job.scheduled = false, the scheduler restarted), a running one waited for up to 30 s',
  };
}

// init's words for them: "job 3 (..., every 1 mon) in postgres, jsonbench" or "none".
function describeJobs(jobs) {
  if (!jobs.unscheduled.length) return `background jobs unscheduled: none (${jobs.found.length} found, none scheduled)`;
  const byJob = new Map();
  for (const j of jobs.found.filter((f) => jobs.unscheduled.includes(`${f.database} ${f.job_id}`))) {
    const key = `job ${j.job_id} (${j.proc}, every ${j.schedule_interval})`;
    byJob.set(key, [...(byJob.get(key) || []), j.database]);
  }
  return `background jobs unscheduled: ${[...byJob].map(([k, d]) => `${k} in ${d.join(', ')}`).join('; ')}`
    + (jobs.still_running.length ? `; still running after 30 s in ${jobs.still_running.join(', ')}` : '');
}

module.exports = { unscheduleJobs, describeJobs, JOBS_SQL };
