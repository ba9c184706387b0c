"""Per client group (GROUPS: a run phase whose clients form streams at once, client/src/groups.js):
results.json runs[].groups, each group's figures from its own clients' result files, merged exactly
as the phase's are (analysis/figures/operations.py: counts added, histograms merged bucket by bucket,
percentiles read from the merged histograms, never averaged across clients), and its operations per
second, so that a stall of one stream shows beside the others (plots/timeline.png)."""
from . import operations as ops_mod


def of_phase(clients):
    """[{name, clients, asked_rate, achieved_rate, ok, errors, dropped, operations, seconds}] in client
    order of the groups, or None when no client result names a group (runs without GROUPS)."""
    order, members = [], {}
    for path, c in clients:
        g = c.get("group")
        if g is None:
            continue
        if g not in members:
            order.append(g)
            members[g] = []
        members[g].append((path, c))
    if not order:
        return None
    out = []
    for name in order:
        mine = members[name]
        operations, _ = ops_mod.merge(mine)
        timeline = ops_mod.merge_timeline(mine)
        out.append({
            "name": name,
            "clients": len(mine),
            # each client's RATE added: the group's asked operations per second (0: unpaced)
            "asked_rate": sum(float(c.get("target_rate") or 0) for _, c in mine),
            # each client's ok / its own elapsed seconds, added
            "achieved_rate": sum(float(c.get("achieved_rate") or 0) for _, c in mine),
            "ok": sum(int(c.get("docs_ok") or 0) for _, c in mine),
            "errors": sum(int(c.get("errors") or 0) for _, c in mine),
            "dropped": sum(int(c.get("dropped") or 0) for _, c in mine),
            "operations": operations,
            "seconds": [{"t": s["t"], "ok": sum(o["ok"] for o in s["ops"].values()),
                         "errors": sum(o["errors"] for o in s["ops"].values())} for s in timeline["seconds"]],
        })
    return out
