"""The context every part of a run shares: where the lab is, the engine, the probe, whether the run
was interrupted or a phase failed, and how the run speaks. One object, passed down; no globals.

Interface (the experiment level, lab/driver/experiments.py and check.py, calls these):
  lab.root                the repository (LAB_ROOT)
  lab.standins            True when the stand-in images run (USE_STANDINS=1)
  lab.interrupted         set by a signal's handler; every loop stops at its next turn
  lab.run_failed          set when a phase's status is not `ok`
  lab.say(msg, bench=None)    one line `[HH:MM:SS <bench>] msg` on stdout, flushed
  lab.run_bench(bench_dir)    one bench folder whose plan.json is written: fresh volumes, init,
                              its phases, then analysis's bench_finished (lab/driver/bench.py)
  lab.remove_databases()      every database container and volume of the project (the monitoring stays)
  lab.prometheus_url()        where the lab's Prometheus answers from the host
"""
