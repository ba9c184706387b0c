"""One database phase of a bench: quiet period, window, clients at the bench's rate, perf, counts,
logs, the phase manifest (D.phase.json, lab/phase.schema.json) and analysis's phase_finished (status,
then the window's metrics). A phase's state is one object, so that finishing it after an interrupt or
an error writes whatever was gathered (Phase.finish runs from run_phase's `finally`)."""
import json
import os
import time

from . import clock, decisions, placed


def now():
    return time.time()


class Phase:
    def __init__(self, bench, spec):
        """spec: the plan's phase (lab/driver/plan.py Phase, its words checked)."""
        self.bench, self.lab = bench, bench.lab
        self.db = spec.database
        self.probe = bench.probe_for(self.db)  # the probe of the database's host
        # the database's host and the clients' (the same engine unless the bench is placed: placement.py)
        self.engine = bench.db_engine(self.db)
        self.client_engine = bench.client_engine
        self.id = spec.id
        self.stage = spec.stage
        self.clients = spec.clients
        self.query = spec.query if self.stage == "query" else None
        self.expected_s = None
        self.plan_expected_s = spec.expected_s
        self.out = os.path.join(bench.dir, f"{self.id}.out")
        self.client_ids = []
        self.active = False
        # facts (lab/phase.schema.json `facts`): analysis decides the status from them
        self.wait_limit_s = None
        self.wait_timed_out = False
        self.lab_error = None
        self.quiet = {"start": None, "end": None}
        self.clients_start = None
        self.profile_why = "interrupted before the recording started"
        self.stats0 = None
        self.memory_limit = None
        self.perf_reason = None
        self.events, self.hardware = [], False
        self.perf_stat = self.perf_record = self.watch = None
        self.probe_cpu0 = None
        self.io0 = None
        self.clock0 = {}

    def say(self, msg):
        self.bench.say(f"{self.id}: {msg}")

    def append_out(self, text):
        with open(self.out, "a", encoding="utf-8") as f:
            f.write(text if text.endswith("\n") or not text else text + "\n")

    # -- before the window ------------------------------------------------------------------------
    def settle(self):
        """`node client settle` (VACUUM (ANALYZE) + CHECKPOINT; {fsync: 1}) outside any window;
        returns what it ran (its `settle: ...` line); its whole output goes to the phase's .out."""
        r = self.bench.oneshot(self.db, "settle", stderr=self.out)
        if r.returncode != 0:
            self.say(f"settle failed (see {self.id}.out)")
            return ""
        self.append_out(r.stdout)
        for line in r.stdout.splitlines():
            if line.startswith("settle: "):
                return line[len("settle: "):]
        return ""

    def server_stats(self):
        """`node client server-stats` as one JSON object, or None (the reason goes to D.out)."""
        r = self.bench.oneshot(self.db, "server-stats", stderr=self.out)
        for line in r.stdout.splitlines():
            if line.startswith("{"):
                try:
                    return json.loads(line)
                except ValueError:
                    return None
        return None

    def run(self):
        lab = self.lab
        self.cid = self.bench.container_of(self.db)
        state = self.engine.state(self.cid) or {}
        self.pid = state.get("Pid")
        self.image = self.engine.inspect(self.cid, "{{.Config.Image}}")
        self.stand_in = self.engine.label(self.cid, "jsonbench.stand_in")
        # Before a query phase, outside the window: VACUUM (ANALYZE) and CHECKPOINT on PostgreSQL, so
        # autovacuum does not change the plans mid-window and the count's hint bits are written;
        # {fsync: 1} on MongoDB. Then the quiet period.
        if self.query:
            self.say(f"settled before the quiet period: {self.settle()}")
        # The quiet period is also the database's idle reading: analysis nets per-query CPU of the
        # idle rate measured here and in the window's first guard seconds (phase.json `idle`).
        self.quiet["start"] = now()
        for left, step in decisions.quiet_steps(int(self.bench.settings.get("QUIET_S", 0))):
            if lab.interrupted:
                break
            self.say(f"quiet period, {left}s left")
            lab.nap(step)
        self.quiet["end"] = now()
        if lab.interrupted:
            return

        self.cgroup = self.probe.perf_cgroup(self.pid)
        self.perf_reason = self.probe.perf_unavailable_reason()
        if not self.perf_reason and not self.cgroup:
            self.perf_reason = "no perf_event cgroup for the container on this host"
        if not self.perf_reason:
            self.events, self.hardware = self.probe.perf_stat_events(), self.probe.hardware_counters()
        self.say("phase starts" + (f" (STAND-IN: {self.stand_in})" if self.stand_in else "")
                 + (f"; perf off: {self.perf_reason}" if self.perf_reason else ""))

        # Prometheus's client targets (their containers' names), before the window: no docker call in it
        self.bench.scrape_clients(self.id, self.clients)
        self.memory_limit = self.read_memory_limit()  # the container's limit as its cgroup holds it
        self.stats0 = self.server_stats()  # the server's own counters, just outside the window
        self.clock0 = placed.clock_marks(self.bench)  # each placed host's clock, just before the first mark
        self.probe.take_call_latencies()  # phase.json probe.calls: this phase's calls from the first mark on
        self.start = now()
        self.cpu0 = self.probe.cgroup_cpu_seconds(self.pid)
        self.io0 = self.read_process_io()
        self.probe_cpu0 = self.probe_cpu()
        self.db_started_at = state.get("StartedAt")
        self.active = True
        self.watch = self.probe.process_watch_start(self.pid)
        if not self.perf_reason:
            self.perf_stat = self.probe.perf_stat_start(self.cgroup, os.path.join(self.bench.dir, f"{self.id}.perfstat.csv"))
        lab.nap(decisions.WINDOW_GUARD_S)

        os.makedirs(os.path.join(self.bench.dir, "clients"), exist_ok=True)
        self.clients_start = now()
        self.start_clients()
        self.expected_s = decisions.expected_seconds(self.plan_expected_s)
        record_s = int(self.bench.settings.get("PERF_RECORD_S", 0))
        self.profile_why = "PERF_RECORD_S=0: no profile asked for"
        if self.perf_reason:
            self.profile_why = f"perf off: {self.perf_reason}"
        elif record_s > 0:
            self.profile_why = None
            self.perf_record = self.probe.perf_record_start(
                self.cgroup, decisions.perf_record_delay_s(self.expected_s, record_s),
                decisions.perf_record_seconds(self.expected_s, record_s),
                os.path.join(self.bench.dir, f"{self.id}.perf"))
        self.wait_clients()
        if not lab.interrupted:
            lab.nap(decisions.WINDOW_GUARD_S)

    # -- the clients --------------------------------------------------------------------------------
    def start_clients(self):
        """The phase's clients, started side by side (each `compose run -d` takes a second or more):
        their container ids in client order ('' where a start failed)."""
        from concurrent.futures import ThreadPoolExecutor
        with ThreadPoolExecutor(max_workers=max(self.clients, 1)) as pool:
            futures = [pool.submit(self.bench.client_start, self.db, i, self.id) for i in range(1, self.clients + 1)]
            self.client_ids = [f.result() for f in futures]
        self.lab.phase_clients = self.client_ids  # what a signal's handler stops, on the clients' engine
        self.lab.phase_clients_engine = self.client_engine

    def result_path(self, i):
        return os.path.join(self.bench.dir, "clients", f"{self.id}-client-{i}.json")

    def results_written(self):
        # clients on another host: their files are fetched first (lab/driver/files.py)
        self.kept("fetching the clients' results", self.bench.fetch_results)
        return [os.path.exists(self.result_path(i)) and os.path.getsize(self.result_path(i)) > 0
                for i in range(1, self.clients + 1)]

    def wait_clients(self):
        """Waits for the clients, printing progress; gives up (stopping them) far past the expected
        time. A phase's work ends when its clients have written their result files (each does so when
        its work is done); only afterwards does each keep /metrics up for the last scrape
        (METRICS_LINGER_S: 3 s, a query client's 8 s). The window does not wait for that linger: the
        closing guard (5 s) covers a 3 s linger's last scrape; finish waits for the exit."""
        started = time.time()
        self.wait_limit_s = decisions.wait_limit_s(self.expected_s)
        next_progress, db_down_said = 0, False
        while self.client_engine.running(self.client_ids) > 0:
            if self.lab.interrupted:
                self.client_engine.stop(self.client_ids)
                return
            if all(self.results_written()):
                break
            elapsed = int(time.time() - started)
            if not db_down_said and not (self.engine.state(self.cid) or {}).get("Running"):
                self.say("the database container is not running; clients retry until their reconnect timeout")
                db_down_said = True
            if elapsed >= next_progress:
                self.say(f"{elapsed}s elapsed, about {decisions.remaining_s(self.expected_s, elapsed)}s remaining, "
                         f"{self.client_engine.running(self.client_ids)} clients running")
                next_progress = elapsed + decisions.PROGRESS_EVERY_S
            if elapsed > self.wait_limit_s:
                self.wait_timed_out = True
                self.client_engine.stop(self.client_ids)
                return
            self.lab.nap(1)

    def wait_clients_exit(self, limit_s=60):
        """After the window: clients still lingering for their last scrape exit on their own; bounded."""
        deadline = time.time() + limit_s
        while self.client_engine.running(self.client_ids) > 0 and time.time() < deadline and not self.lab.interrupted:
            self.lab.nap(1)
        if self.client_engine.running(self.client_ids) > 0:
            self.client_engine.stop(self.client_ids)

    def collect_clients(self):
        """The clients' logs into the phase's .out; their exit codes in client order (None: docker
        could not say); the containers removed."""
        codes = []
        for i, cid in enumerate(self.client_ids, 1):
            log = self.client_engine.logs(cid) if cid else ""
            self.append_out("".join(f"client-{i}  | {line}\n" for line in log.splitlines()))
            state = self.client_engine.state(cid) if cid else None
            codes.append(state.get("ExitCode") if state else None)
        self.client_engine.remove(self.client_ids)
        self.client_ids = []
        self.lab.phase_clients = []
        self.bench.scrape_clients(self.id, 0)  # gone: Prometheus stops asking for them
        return codes

    # -- after the window ---------------------------------------------------------------------------
    def kept(self, what, step, default=None):
        """STEP's value, or DEFAULT when it fails: after an interrupt or an error any step may fail,
        and the steps after it must still run (the failure goes to the phase's .out)."""
        try:
            return step()
        except Exception as e:  # noqa: BLE001
            self.append_out(f"{what} failed: {type(e).__name__}: {e}")
            return default

    def finish(self):
        """Closes the window and writes everything the phase leaves behind: D.phase.json records the
        facts, and analysis decides from them the status it writes into the file and prints. Tolerates
        failures: after an interrupt any step may fail, and what can be kept must still be kept."""
        if not self.active:
            return
        self.active = False
        lab, bench, ph = self.lab, self.bench, self.id
        signalled = lab.interrupted
        end = now()
        cpu1 = self.kept("the cgroup CPU reading", lambda: self.probe.cgroup_cpu_seconds(self.pid))
        io1 = self.read_process_io()
        probe_cpu1 = self.kept("the probe's own CPU reading", self.probe_cpu)
        clock1 = self.kept("the hosts' clocks", lambda: placed.clock_marks(bench), {})
        samples = self.kept("the process watch", lambda: self.probe.process_watch_stop(self.watch), [])
        if self.perf_stat:
            self.kept("perf stat", lambda: self.probe.perf_stat_stop(self.perf_stat))
        if self.perf_record:
            stop = self.probe.perf_record_cancel if lab.interrupted else self.probe.perf_record_wait
            self.kept("perf record", lambda: stop(self.perf_record))
        if self.profile_why is None:
            profile = self.kept("the profile", lambda: self.probe.perf_profile(os.path.join(bench.dir, f"{ph}.perf")))
        else:  # the probe's answer; its host gone (an engine stopped mid-run), the same without it
            no_profile = {"file": None, "samples": None, "frequency_hz": None, "reason": self.profile_why}
            profile = self.kept("the profile's reason", lambda: self.probe.perf_profile(None, self.profile_why), no_profile)
        if lab.interrupted:
            self.client_engine.stop(self.client_ids)
        self.kept("waiting for the clients to exit", lambda: self.wait_clients_exit(60))
        missing = decisions.missing_clients(self.results_written()[:len(self.client_ids)])
        codes = self.kept("collecting the clients' logs", self.collect_clients, [])
        # the database's state read once: on a host gone silent each reading waits out a call's timeout
        db_state, db_exit = decisions.database_state(self.engine.state(self.cid), self.db_started_at)
        running = db_state in ("running", "restarted")
        # A transaction phase whose database stopped is started again, after the window, so that
        # count's nothing-lost check still runs: every transaction a client saw committed must have survived.
        restarted = False
        if not lab.interrupted and bench.transactions and not running:
            restarted = self.kept("the restart for the check", self.restart_for_check, False)
        # A database that is not running now (stopped, gone, or its host's engine gone or silent) gives
        # no end reading and no count: asking it would only wait out the clients' connection timeouts
        # (count's patient MongoDB connection: 5 minutes) to learn what docker has said already.
        down = None if running or restarted else self.down_reason(db_state, db_exit)
        csv = os.path.join(bench.dir, f"{ph}.perfstat.csv")
        if os.path.exists(csv) and os.path.getsize(csv):
            with open(csv, encoding="utf-8") as f:
                self.append_out(f"perf stat ({','.join(self.events)}) on cgroup {self.cgroup}:\n{f.read()}")

        # After the clients are gone and before `count`: with the reading at the start it brackets the
        # window (analysis/figures/reconcile.py compares the deltas with what the lab sent). A
        # restarted server's counters begin again: its reading would not bracket the window (no end).
        self.kept("pool-close", self.pool_close)
        stats1 = None
        if restarted:
            self.append_out("server-stats: no end reading: the database was restarted after it stopped in the window")
        elif down:
            self.append_out(f"server-stats: no end reading: {down}")
        else:
            stats1 = self.kept("server-stats", self.server_stats)
        if not lab.interrupted:
            lab.write_json(os.path.join(bench.dir, f"{ph}.server-stats.json"), {"start": self.stats0, "end": stats1})
        # A query phase's plan: execution 0 once more under EXPLAIN, outside the window (not counted).
        if self.query and not lab.interrupted and not down:
            r = bench.oneshot(self.db, "explain", stdout=os.path.join(bench.dir, f"{ph}.plan.json"), stderr=self.out)
            if r.returncode != 0:
                self.say(f"explain failed (see {ph}.out)")

        if down:
            self.say(f"count not attempted: {down}")
            self.append_out(f"count: not attempted: {down}")
            count_outcome, count_problems = "failed", None
        else:
            count_outcome, count_problems = self.kept("count", self.count, ("failed", None))
        # After a load phase, outside any window: VACUUM and CHECKPOINT / fsync, so that the work the
        # load deferred (checkpoint, autovacuum, hint bits) does not land in the next phase's window.
        settled = self.kept("settle", self.settle, "") if self.stage == "load" and not lab.interrupted and not down else ""
        # the database's log since it started: a run phase's log holds its load phase's too
        with open(os.path.join(bench.dir, f"{ph}.log"), "w", encoding="utf-8") as f:
            f.write(self.engine.logs(self.cid) if self.cid else "")

        manifest = {
            "database": self.db, "phase": ph, "stage": self.stage, "service": self.db, "project": self.engine.project,
            "container_id": self.cid, "image": self.image, "stand_in": self.stand_in or None, "cgroup": self.cgroup,
            "window": {"start": self.start, "end": end},
            # the idle intervals: the quiet period, and the window's first guard up to the clients'
            # start (null where the phase did not get there), for analysis's idle rate
            "idle": {"quiet": dict(self.quiet), "guard": {"start": self.start, "end": self.clients_start}},
            "settled_after": settled or None,
            "cgroup_cpu_seconds": {"start": self.cpu0, "end": cpu1},
            # the memory limit the database container ran under, read from its own cgroup before the
            # window (analysis holds it to DB_MEMORY: analysis/figures/memory.py)
            "memory_limit": self.memory_limit,
            # /proc/<pid>/io of the container's processes at the marks (analysis/figures/read_io.py)
            "process_io": {"start": self.io0, "end": io1},
            "clients": self.clients, "query": self.query, "missing_clients": missing,
            "perf": {"events": list(self.events), "hardware_counters": self.hardware, "reason": self.perf_reason or None,
                     "profile": profile},
            "cgroup_processes": self.kept("the process summary", lambda: self.probe.process_summary(
                self.db, bool(self.stand_in), samples)),
            "image_os": bench.image_os.get(self.db),
            "pooler": self.kept("the pooler's facts", self.pooler_json),
            "probe": {**self.probe.describe(), "cgroup_cpu_seconds": {"start": self.probe_cpu0, "end": probe_cpu1},
                      "calls": self.probe.take_call_latencies()},
            "facts": {
                "client_exit_codes": codes,
                "wait": {"expected_s": self.expected_s, "limit_s": self.wait_limit_s, "timed_out": self.wait_timed_out},
                "lab_error_exit_code": self.lab_error,
                "database": {"state": db_state, "exit_code": db_exit, "restarted_for_check": restarted},
                "count": {"outcome": count_outcome, "problems": count_problems},
                "interrupted": signalled,
            },
        }
        if self.clock0 or clock1:  # a placed run: each host's clock at the marks (a single host records none)
            manifest["clock"] = clock.phase_clock(self.clock0, clock1)
        path = os.path.join(bench.dir, f"{ph}.phase.json")
        lab.write_json(path, manifest)
        # the verdict, decided by analysis from those facts (also written into D.phase.json), then the
        # window's metrics exported from Prometheus
        self.say("exporting the window's metrics from Prometheus")
        verdict = self.kept("analysis's phase_finished", lambda: lab.phase_finished(bench, self.db, ph))
        verdict = verdict or f"failed (no status: {ph}.phase.json was not written or its facts were refused, see above)"
        if not verdict.startswith("ok"):
            lab.run_failed = True
        self.say(f"phase {verdict}")

    def read_memory_limit(self):
        """The probe's cgroup_memory_limit of the database container; a probe that fails says why
        (bytes null with the reason), the phase goes on."""
        try:
            return self.probe.cgroup_memory_limit(self.pid)
        except Exception as e:  # noqa: BLE001
            return {"bytes": None, "file": None, "cgroup": None, "reason": f"the probe failed: {type(e).__name__}: {e}"}

    def read_process_io(self):
        """The container's processes' I/O counters now (the probe's process_io), or {"t", "error"}
        when the probe could not answer: the figure is then null with that reason."""
        try:
            return self.probe.process_io(self.pid)
        except Exception as e:  # noqa: BLE001  (a failed reading is said, never a failed phase)
            return {"t": now(), "error": f"the probe's process_io failed: {type(e).__name__}: {e}"}

    def probe_cpu(self):
        """The probe container's own CPU seconds (its cgroup, read by itself); None in-process (the
        driver's own CPU is not the probe's alone)."""
        pid = getattr(self.probe, "pid", None)
        return self.probe.cgroup_cpu_seconds(pid) if self.probe.describe()["kind"] == "container" and pid else None

    def restart_for_check(self):
        """The phase's stopped database container started again (same container, same volume), outside
        the window, and waited for as before the first window; what happened goes to the phase's .out."""
        self.say("the database stopped during the phase; starting it again for the nothing-lost check")
        r = self.engine.start(self.cid)
        if r.returncode == 0:
            self.append_out(r.stderr)
            try:
                self.bench.database_ready(self.db)
                self.append_out(f"restart: {self.db} container started again after the window for the nothing-lost check")
                return True
            except Exception as e:  # noqa: BLE001
                self.append_out(str(e))
        else:
            self.append_out(r.stderr)
        self.say(f"the database could not be started again: no nothing-lost check (see {self.id}.out)")
        return False

    def down_reason(self, db_state, db_exit):
        """Why a database that is not running cannot be asked anything after the window: its state as
        docker gave it at the window's end, and its host."""
        host = f" on {self.engine.context}" if self.engine.context else ""
        code = f", exit code {db_exit}" if db_exit is not None else ""
        gone = " (or its host's engine does not answer)" if db_state == "gone" else ""
        return f"the database container{host} is {db_state}{code}{gone}"

    def count(self):
        """`node client count` into D.count.json: (outcome ok | failed | check_failed, problems or
        None). A transaction phase's count also checks that nothing was lost against the clients'
        committed and in-doubt transactions, booking by booking (analysis txn-outcomes writes
        D.txn-outcomes.json from the phase's result files); its exit 1 (a failed check) keeps
        D.count.json with the `booking_check` rows."""
        bench, ph = self.bench, self.id
        outcomes = None
        if bench.transactions:
            path = os.path.join(bench.dir, f"{ph}.txn-outcomes.json")
            why = self.lab.txn_outcomes(bench.dir, ph, self.clients, path)
            if why:
                self.append_out(why)
                self.say(f"txn-outcomes failed (see {ph}.out)")
            if os.path.exists(path) and os.path.getsize(path):
                outcomes = path
                self.append_out(f"count: TXN_OUTCOMES={ph}.txn-outcomes.json (analysis txn-outcomes over the phase's client results)")
        tmp = os.path.join(bench.dir, f"{ph}.count.json.tmp")
        final = os.path.join(bench.dir, f"{ph}.count.json")
        if os.path.exists(tmp):
            os.remove(tmp)
        r = bench.oneshot(self.db, "count", stdout=tmp, stderr=self.out, txn_outcomes=outcomes)
        if r.returncode == 0:
            os.replace(tmp, final)
            return "ok", None
        if r.returncode == 1 and bench.transactions:
            # a failed check: analysis names its problems
            problems = self.lab.nothing_lost(tmp, self.out)
            if problems is not None:
                os.replace(tmp, final)
                self.say(f"nothing-lost check FAILED: {problems[1]}")
                return "check_failed", problems[0]
        if os.path.exists(tmp):
            os.remove(tmp)
        self.say(f"count failed (see {ph}.out)")
        return "failed", None

    # -- the pooler ---------------------------------------------------------------------------------
    def pool_close(self):
        """A pooled phase: the pool's server connections closed (its close hook), outside the window."""
        bench = self.bench
        if self.db not in bench.pooled:
            return
        try:
            line = bench.pool_hooks(self.db).close(bench, bench.pooled[self.db])
        except Exception as e:  # noqa: BLE001
            line = f"pool-close: the pooler's close hook failed ({type(e).__name__}: {e})"
        self.append_out(line)

    def pooler_json(self):
        """phase.json `pooler`: null without a pool, else what ran between the clients and the server."""
        bench = self.bench
        if self.db not in bench.pooled:
            return None
        service = bench.pooled[self.db]
        return bench.pool_hooks(self.db).phase_json(
            bench, service, bench.pool_ready.get(self.db), bench.image_os.get(service))


def run_phase(bench, spec):
    """Runs one phase of the plan (every file named after its id); on any exit, even an interrupt or
    an error, what was gathered is written (Phase.finish)."""
    phase = Phase(bench, spec)
    bench.phase_id = phase.id
    bench.lab.phase = phase
    try:
        phase.run()
    except BaseException as e:
        # an error with a phase open: a fact of that phase (analysis decides its status from it)
        if not bench.lab.interrupted:
            phase.lab_error = getattr(e, "code", None) if isinstance(e, SystemExit) else 1
        raise
    finally:
        try:
            phase.finish()
        finally:
            bench.lab.phase = None
            bench.phase_id = ""
