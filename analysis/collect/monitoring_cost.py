"""The numbers of lab/bench-monitoring-cost.sh: cgroup CPU readings of the monitoring containers at
both edges of each round -> CPU seconds per second of window (= share of one core) per service,
best (lowest) of the rounds, and a met/MISSED line for cAdvisor + Prometheus against the target.

Input lines (tab-separated): round, service, start|end, unix time, cgroup CPU seconds (or null).
Services ending in -baseline are the pre-issue-9 pair that ran side by side under the same load;
-variant, the lab's pair plus one change under evaluation (named by --variant).
"""
import argparse
import sys
from collections import defaultdict

from ..common.errors import AnalysisError

PAIRS = {"lab": ("cadvisor", "prometheus"), "baseline": ("cadvisor-baseline", "prometheus-baseline"),
         "variant": ("cadvisor-variant", "prometheus-variant")}
LABELS = {"lab": "lab (this configuration)", "baseline": "baseline (before issue 9)", "variant": "variant (lab + change)"}


def parse(lines, name="samples"):
    edges = defaultdict(dict)  # (round, service) -> {start|end: (t, cpu)}
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        parts = line.rstrip("\n").split("\t")
        if len(parts) != 5 or parts[2] not in ("start", "end"):
            raise AnalysisError(f"{name}:{n}: expected round, service, start|end, time, cpu seconds; got {line!r}")
        r, svc, edge, t, cpu = parts
        edges[(int(r), svc)][edge] = (float(t), None if cpu == "null" else float(cpu))
    return edges


def per_second(edges):
    """{service: [cores per round]}; a round without both readings is left out."""
    out = defaultdict(list)
    for (r, svc), e in sorted(edges.items()):
        if "start" in e and "end" in e and None not in (e["start"][1], e["end"][1]):
            dt = e["end"][0] - e["start"][0]
            if dt > 0:
                out[svc].append((e["end"][1] - e["start"][1]) / dt)
    return dict(out)


def verdicts(rates, target):
    """Per pair present: best round of each service and of the pair together (the pair's own sum in
    one round, best over rounds), and whether that is under the target."""
    res = {}
    for pair, (cad, prom) in PAIRS.items():
        if cad not in rates or prom not in rates:
            continue
        together = [a + b for a, b in zip(rates[cad], rates[prom])]
        best = min(together)
        res[pair] = {"cadvisor": min(rates[cad]), "prometheus": min(rates[prom]), "together": best,
                     "rounds": together, "met": best < target}
    return res


def render(rates, res, target, load, database, variant=""):
    lines = [f"monitoring cost under {load}; % of one core (CPU seconds per second of window, from each "
             f"container's own cgroup), best of {max((len(v) for v in rates.values()), default=0)} round(s)"]
    for pair, v in res.items():
        lines.append(f"  {LABELS[pair]:28s} cAdvisor {100 * v['cadvisor']:.2f}%  Prometheus {100 * v['prometheus']:.2f}%  "
                     f"together {100 * v['together']:.2f}%  (rounds: "
                     + ", ".join(f"{100 * x:.2f}%" for x in v["rounds"]) + ")")
    if "variant" in res and variant:
        lines.append(f"  variant = lab + {variant.strip()}")
    if database in rates:
        lines.append(f"  {database:28s} {100 * min(rates[database]):.2f}% (the measured database, for scale)")
    lab = res.get("lab")
    if lab is None:
        lines.append("MISSED: no complete reading of the lab's cAdvisor and Prometheus")
    else:
        lines.append(f"{'met' if lab['met'] else 'MISSED'}: cAdvisor + Prometheus {100 * lab['together']:.2f}% "
                     f"of one core, target < {100 * target:.2f}%")
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(prog="monitoring_cost", description=__doc__.split("\n")[0])
    ap.add_argument("samples")
    ap.add_argument("--target", type=float, default=0.02)
    ap.add_argument("--load", default="the load")
    ap.add_argument("--database", default="")
    ap.add_argument("--variant", default="", help="what the -variant pair changes (printed with its line)")
    a = ap.parse_args(argv)
    try:
        with open(a.samples) as f:
            rates = per_second(parse(f, a.samples))
    except (OSError, AnalysisError) as e:
        print(f"monitoring_cost: {e}", file=sys.stderr)
        return 2
    res = verdicts(rates, a.target)
    print(render(rates, res, a.target, a.load, a.database, a.variant))
    return 0 if res.get("lab", {}).get("met") else 1


if __name__ == "__main__":
    sys.exit(main())
