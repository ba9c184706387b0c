"""CLI: python -m analysis <command> ... (run from the repository root; see analysis/README.md)."""
import argparse
import json
import sys

from .common import databases
from .common.errors import AnalysisError


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m analysis", description="Results, reports, flame graphs, "
                                "comparisons and run branches for the jsonbench lab.")
    sub = p.add_subparsers(dest="command", required=True)

    e = sub.add_parser("export", help="phase window metrics from Prometheus -> D.metrics.json + timeseries/D.csv.gz")
    e.add_argument("--bench-dir", required=True)
    e.add_argument("--database", required=True, choices=databases.names(), help="a database with a manifest (databases/<name>/)")
    e.add_argument("--phase", help="the phase id, file prefix (default: the database; e.g. mongodb-load)")
    e.add_argument("--prometheus", required=True, help="base URL, e.g. http://127.0.0.1:9090")
    e.add_argument("--project", help="compose project (default: phase.json's project)")
    e.add_argument("--scrape-interval", type=float, default=1.0, help="seconds (default 1)")

    r = sub.add_parser("results", help="bench folder -> results.json")
    r.add_argument("--bench-dir", required=True)
    r.add_argument("--lab-env", help="the lab's .env to record in config (secrets are redacted)")

    sub.add_parser("host-info", help="print host facts as JSON (kernel, CPU, memory, cgroup, docker, PMU)")

    s = sub.add_parser("summary", help="one line per database in the original study's spirit")
    s.add_argument("--bench-dir", required=True)

    ck = sub.add_parser("check", help="every figure of a (short) run's results.json has data or a stated reason? "
                        "table per database; exit 1 if one is missing without a reason")
    ck.add_argument("--bench-dir", required=True)
    ck.add_argument("--prometheus", help="base URL: also check the clients' metrics reached Prometheus")
    ck.add_argument("--name", help="bench name shown in the verdict (default: the folder's name)")

    sk = sub.add_parser("soak-check", help="long run steady? rates within 1%%, no error, client RSS growth < 10%%")
    sk.add_argument("--bench-dir", required=True)

    rp = sub.add_parser("report", help="benchN/report.md + plots, and a cross-bench report.md")
    rp.add_argument("benches", nargs="*", help="bench folders (default: every bench*/ with results.json)")
    rp.add_argument("--out-dir", help="where a cross-bench report.md of the benches goes (default: none; "
                    "each bench's report.md is in its folder)")

    f = sub.add_parser("flamegraph", help="perf script text -> flame graph SVG; gzips large profiles")
    f.add_argument("profile")
    f.add_argument("-o", "--output", required=True)
    f.add_argument("--title")
    f.add_argument("--gzip-over-mb", type=float, default=20.0)

    c = sub.add_parser("compare", help="two runs' per-document figures side by side")
    c.add_argument("ref1", help="bench folder, folder of benches, or git REF[:PATH]")
    c.add_argument("ref2")
    c.add_argument("--noise", type=float, default=None, help="noise threshold in %% (default 5)")
    c.add_argument("--out", help="also write the comparison as markdown to this file")

    b = sub.add_parser("branch", help="commit bench folders to a new run branch without touching the checkout")
    b.add_argument("--benches", nargs="+", required=True)
    b.add_argument("--files", nargs="*", default=[], help="config files/folders to include (compose.yaml, prometheus, ...)")
    b.add_argument("--no-branch", action="store_true", help="skip branching (prints what would be done)")
    b.add_argument("--push", metavar="REMOTE")
    b.add_argument("--allow-incomplete", action="store_true")

    rr = sub.add_parser("repeat", help="REPEAT=N bench: its repeat-1..N folders -> results.json + report.md "
                        "(mean, stdev, 95%% CI per figure and ratio)")
    rr.add_argument("--bench-dir", required=True)

    sw = sub.add_parser("sweep", help="sweep folder benchN/sweep-KEY: its KEY=<v> points -> results.json, "
                        "report.md, plots/*.png")
    sw.add_argument("--sweep-dir", required=True)

    sa = sub.add_parser("sweep-args", help="check a --sweep KEY=v1,v2,... argument; print the key and values")
    sa.add_argument("sweep")
    sa.add_argument("--specs", required=True, help="JSON {KEY: {type, allowed}} of the bench keys")

    tt = sub.add_parser("txn-outcomes", help="a transaction phase's committed and in-doubt transactions per client "
                        "(their indices) into --out, for `node client count`'s nothing-lost check (TXN_OUTCOMES); "
                        "nothing written when unknown: why on stderr")
    tt.add_argument("--bench-dir", required=True)
    tt.add_argument("--phase", required=True)
    tt.add_argument("--clients", type=int, required=True, help="client result files the phase should have")
    tt.add_argument("--out", required=True, help="the file to write (D.txn-outcomes.json)")

    ps = sub.add_parser("phase-status", help="decide a phase's status from the facts the lab recorded in D.phase.json; "
                        "write status and reason into it; print the verdict (`ok` or `failed (reason)`)")
    ps.add_argument("--phase-file", required=True)

    nl = sub.add_parser("nothing-lost", help="a failed nothing-lost check in `node client count`'s output: print its "
                        "problems as a JSON list, then as one line; exit 1 when the output holds no failed check")
    nl.add_argument("--count-output", required=True, help="the file count wrote (its last line is the JSON)")

    args = p.parse_args(argv)
    try:
        return run(args)
    except AnalysisError as err:
        print(f"analysis {args.command}: {err}", file=sys.stderr)
        return 2


def run(args):
    if args.command == "export":
        from .collect import export
        out = export.export(args.bench_dir, args.database, args.prometheus, args.project, args.scrape_interval,
                            args.phase)
        # what needs a look, and only that: a normal run's expected conditions stay in the file
        gaps, notes = export.to_look_at(out)
        start = out["window"]["start"]
        print(f"{args.bench_dir}/{args.phase or args.database}.metrics.json written" + ("; to look at:" if gaps or notes else ""))
        for g in gaps:
            print(f"  gap: {g['service']}/{g['container']} {g['seconds']:.1f} s without samples from "
                  f"{g['from'] - start:.1f} s into the window ({', '.join(g['metrics'])})")
        for n in notes:
            print(f"  note: {n}")
    elif args.command == "results":
        from .figures import results
        res = results.write(args.bench_dir, args.lab_env)
        print(f"{args.bench_dir}/results.json: {len(res['runs'])} run(s), "
              f"{'complete' if res['complete'] else 'INCOMPLETE: ' + '; '.join(res['incomplete'])}")
    elif args.command == "host-info":
        from .collect import hostinfo
        json.dump(hostinfo.gather(), sys.stdout, indent=2)
        sys.stdout.write("\n")
    elif args.command == "summary":
        from .render import summary
        print(summary.lines(args.bench_dir))
    elif args.command == "check":
        from .render import check
        text, passed = check.run(args.bench_dir, args.prometheus, args.name)
        print(text)
        return 0 if passed else 1
    elif args.command == "soak-check":
        from .render import soak
        lines, passed = soak.check(args.bench_dir)
        print("\n".join(lines))
        return 0 if passed else 1
    elif args.command == "report":
        from .render import report
        from .experiments import experiment_report
        # REPEAT and sweep folders have their own report; the other benches as before.
        plain, made = experiment_report.split(args.benches)
        if plain or not made:
            made += report.run(plain, args.out_dir)
        for path in made:
            print(path)
    elif args.command == "flamegraph":
        from .render import flamegraph
        stacks, kept = flamegraph.run(args.profile, args.output, args.title, int(args.gzip_over_mb * 1024 * 1024))
        print(f"{args.output}: {sum(stacks.values())} samples" + (f"; profile kept as {kept}" if kept != args.profile else ""))
    elif args.command == "compare":
        from .experiments import compare
        text = compare.run(args.ref1, args.ref2, args.noise)
        if args.out:
            from .common.fileio import write_text_atomic
            write_text_atomic(args.out, text)
        print(text)
    elif args.command == "branch":
        from .experiments import branch
        name = branch.run(args.benches, args.files, no_branch=args.no_branch, push=args.push,
                          allow_incomplete=args.allow_incomplete)
        print(name)
    elif args.command == "repeat":
        from .experiments import repeat
        res = repeat.write(args.bench_dir)
        print(f"{args.bench_dir}/results.json: {res['repeat']} repetition(s), "
              f"{'complete' if res['complete'] else 'INCOMPLETE: ' + '; '.join(res['incomplete'])}")
    elif args.command == "sweep":
        from .experiments import sweep
        res = sweep.write(args.sweep_dir)
        print(f"{args.sweep_dir}/results.json: {len(res['points'])} point(s) of {res['key']}, "
              f"{'complete' if res['complete'] else 'INCOMPLETE: ' + '; '.join(res['incomplete'])}")
    elif args.command == "sweep-args":
        from .experiments import sweep_args
        print(sweep_args.run(args.sweep, args.specs))
    elif args.command == "txn-outcomes":
        from .figures import transactions
        reason = transactions.write_outcomes(args.bench_dir, args.phase, args.clients, args.out)
        if reason:
            print(f"analysis txn-outcomes: {args.phase}: {reason}", file=sys.stderr)
    elif args.command == "phase-status":
        from .bench import phase_status
        print(phase_status.complete(args.phase_file))
    elif args.command == "nothing-lost":
        from .bench import phase_status
        problems = phase_status.nothing_lost_problems(args.count_output)
        if problems is None:
            return 1
        print(json.dumps(problems))
        print(phase_status.problems_text(problems))
    return 0


if __name__ == "__main__":
    sys.exit(main())
