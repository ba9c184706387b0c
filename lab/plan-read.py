#!/usr/bin/env python3
"""Reads a run's plan.json (written by `node client plan --json`, schema client/src/plan.schema.json)
for bash, in the words bash already reads, so lab/plan.sh takes the plan from the file and never
computes it a second time:
  plan-read.py env FILE      every bench key as KEY='value' (shell-quoted; `eval` in bash)
  plan-read.py phases FILE   one line per phase: phase=<id> database=<db> stage=<stage> ops=<n>
                             rate=<n> expected_s=<n> clients=<n> query=<name|->
  plan-read.py given FILE    the run's keys as written (settings.given: bench.env plus the overrides),
                             KEY=value per line, unquoted: the --set words that plan a repetition
  plan-read.py repetitions FILE  REPEAT (the plan's repetitions)
  plan-read.py fact NAME FILE  a fact of the workload (plan.json `workload`, declared by its file):
                             true/false for a yes-or-no one (transactions, ingest), else its JSON
Standard library only (the host's python3, as lab/service-settings.py); lab/plan.sh checks each
word (parse_plan_line) and analysis checks the file against its schema."""
import json
import sys


def shell_quote(text):
    return "'" + text.replace("'", "'\\''") + "'"


def number(x):
    # 15.0 prints as 15, as the client's own line form (JavaScript numbers) did
    return str(int(x)) if isinstance(x, float) and x.is_integer() else str(x)


def env_lines(plan):
    return [f"{k}={shell_quote(v)}" for k, v in plan["settings"]["environment"].items()]


def phase_lines(plan):
    return [f"phase={p['id']} database={p['database']} stage={p['stage']} ops={number(p['ops'])} "
            f"rate={number(p['rate'])} expected_s={number(p['expected_s'])} clients={number(p['clients'])} "
            f"query={p['query'] or '-'}" for p in plan["phases"]]


def given_lines(plan):
    return [f"{k}={v}" for k, v in plan["settings"]["given"].items()]


def fact_lines(plan, name):
    value = plan["workload"][name]
    return [json.dumps(value)]  # JSON: booleans print as true/false


def main(argv):
    fact = len(argv) == 4 and argv[1] == "fact"
    modes = {"env": env_lines, "phases": phase_lines, "given": given_lines,
             "repetitions": lambda plan: [str(plan["repetitions"])]}
    if not fact and (len(argv) != 3 or argv[1] not in modes):
        print("usage: plan-read.py env|phases|given|repetitions PLAN_JSON | plan-read.py fact NAME PLAN_JSON", file=sys.stderr)
        return 2
    path = argv[-1]
    try:
        with open(path, encoding="utf-8") as f:
            plan = json.load(f)
        lines = fact_lines(plan, argv[2]) if fact else modes[argv[1]](plan)
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as e:
        print(f"{path}: not a plan (client/src/plan.schema.json): {type(e).__name__}: {e}", file=sys.stderr)
        return 2
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
