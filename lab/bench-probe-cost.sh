#!/usr/bin/env bash
# What the probe container costs (issue 27: "under 1% of a core at rest, benchmarked, not asserted"):
#   - its own CPU at rest over REST_S seconds (default 60): no call made, read from its cgroup by
#     this host's LocalProbe before and after; a met/MISSED line against 1% of one core;
#   - the same while a process watch runs (what it does during every window: the container's
#     cgroup polled every 50 ms), over WATCH_S seconds (default 30), against a busy container;
#   - the latency (request written -> answer read) of CALLS (default 200) cgroup_cpu_seconds calls,
#     the reading taken at each window mark: median and maximum.
#   lab/bench-probe-cost.sh          (root: LocalProbe reads the box's cgroup; docker; the probe
#                                     image is built first with lab/probe/build.sh, its time printed)
# Its own compose project (jsonbench-probe-cost); every container it starts is removed at its end.
set -Euo pipefail
LAB_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
t0=$SECONDS
image=$("$LAB_ROOT/lab/probe/build.sh") || { echo "bench-probe-cost: the probe image did not build" >&2; exit 1; }
echo "bench-probe-cost: probe image $image ready in $((SECONDS - t0)) s"
base=jsonbench-standin/debian:bookworm
docker image inspect "$base" >/dev/null 2>&1 || base=debian:bookworm-slim
cd "$LAB_ROOT" && PYTHONPATH="$LAB_ROOT" python3 - "$image" "$base" "${REST_S:-60}" "${WATCH_S:-30}" "${CALLS:-200}" <<'PY'
import statistics, subprocess, sys, time
from lab.driver.probe import LocalProbe
from lab.driver.probe_box import ContainerProbe

image, base, rest_s, watch_s, calls = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4]), int(sys.argv[5])
local = LocalProbe()
busy = subprocess.run(["docker", "run", "-d", "--rm", "--cpus", "0.5", "--label", "com.docker.compose.project=jsonbench-probe-cost",
                       "--entrypoint", "sh", base, "-c", "while :; do :; done"],
                      capture_output=True, text=True, check=True).stdout.strip()
box = None
try:
    busy_pid = int(subprocess.run(["docker", "inspect", "-f", "{{.State.Pid}}", busy], capture_output=True, text=True,
                                  check=True).stdout)
    t = time.monotonic()
    box = ContainerProbe(image, "jsonbench-probe-cost")
    print(f"bench-probe-cost: the box answered its first line {time.monotonic() - t:.2f} s after docker run")
    if local.cgroup_cpu_seconds(box.pid) is None:
        sys.exit("bench-probe-cost: the box's cgroup cannot be read here (needs root)")

    def cpu_share(seconds):
        """The box's CPU seconds per second over `seconds`, and the CPU seconds themselves."""
        c0, t0 = local.cgroup_cpu_seconds(box.pid), time.monotonic()
        time.sleep(seconds)
        c1, t1 = local.cgroup_cpu_seconds(box.pid), time.monotonic()
        return (c1 - c0) / (t1 - t0), c1 - c0

    time.sleep(2)  # past its start
    rest, spent = cpu_share(rest_s)
    print(f"bench-probe-cost: CPU at rest over {rest_s:.0f} s: {spent:.6f} CPU-s, {100 * rest:.4f}% of one core; "
          f"target under 1%: {'met' if rest < 0.01 else 'MISSED'}")
    watch = box.process_watch_start(busy_pid)
    during, spent = cpu_share(watch_s)
    samples = box.process_watch_stop(watch)
    print(f"bench-probe-cost: CPU with a process watch running over {watch_s:.0f} s ({len(samples)} samples): "
          f"{spent:.3f} CPU-s, {100 * during:.3f}% of one core (no target: the window's cost, compare between commits)")
    box.take_call_latencies()
    for _ in range(calls):
        box.cgroup_cpu_seconds(busy_pid)
    lat = [c["latency_s"] * 1000 for c in box.take_call_latencies()]
    print(f"bench-probe-cost: cgroup_cpu_seconds latency over {len(lat)} calls: median {statistics.median(lat):.2f} ms, "
          f"p99 {sorted(lat)[int(0.99 * (len(lat) - 1))]:.2f} ms, max {max(lat):.2f} ms")
finally:
    if box is not None:
        box.close()
    subprocess.run(["docker", "rm", "-f", busy], capture_output=True)
PY
