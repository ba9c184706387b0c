"""The network canary (issue 27): just before a run, the round-trip time and throughput between the
clients' host and each database host, over the path the clients' traffic takes (a port the database
host publishes on its lab address). A small server container on the database host (perl's
IO::Socket::INET: perl-base is in every Debian or Ubuntu based image, the databases' and the stand-ins')
and a small client container on the clients' host (node, the client image's); nothing is downloaded.

The server answers one connection at a time: `echo` returns each byte it reads (the round trips),
`sink N` reads N bytes and answers `done <peer address>`: the address it saw the connection come
from, which shows the traffic crossed the hosts' own network. The client sends PINGS single bytes
one after the other, then BYTES in 64 KiB writes, timed from the first write to the answer.

Interface (a placed run calls measure() before its first phase and writes canary.json):
  measure(client_context, client_image, databases, project, environ=None, pings=PINGS, size=BYTES)
      databases: {context: (lab address, server image)} -> canary.json's object (lab/canary.schema.json)
"""
import json
import os
import statistics
import subprocess
import time

PINGS = 20
BYTES = 32 * 1024 * 1024
PORT = 5201  # inside the server container; published on an ephemeral port of the host's lab address

SERVER = r"""
use IO::Socket::INET; $| = 1;
my $s = IO::Socket::INET->new(LocalPort => %d, Listen => 5, ReuseAddr => 1) or die "listen: $!";
print "listening\n";
sub line { my ($c) = @_; my ($l, $b) = (""); while (sysread($c, $b, 1) == 1) { return $l if $b eq "\n"; $l .= $b } return undef }
while (my $c = $s->accept) {
  my $cmd = line($c);
  if (!defined $cmd) { close $c; next }
  syswrite($c, "ready\n");
  if ($cmd eq "echo") { my $b; while (sysread($c, $b, 1) == 1) { syswrite($c, $b, 1) } }
  elsif ($cmd =~ /^sink (\d+)$/) {
    my ($n, $buf) = ($1);
    while ($n > 0) { my $r = sysread($c, $buf, $n > 65536 ? 65536 : $n); last unless $r; $n -= $r }
    syswrite($c, "done " . $c->peerhost . "\n");
  }
  close $c;
}
""" % PORT

CLIENT = r"""
const net = require("net");
const [host, port, pings, total] = [process.argv[1], Number(process.argv[2]), Number(process.argv[3]), Number(process.argv[4])];
const now = () => Number(process.hrtime.bigint()) / 1e9;
function open(cmd) {
  return new Promise((resolve, reject) => {
    const s = net.connect({ host, port }, () => { s.setNoDelay(true); s.write(cmd + "\n"); });
    let got = "";
    const onData = (d) => { got += d.toString("latin1"); if (got.includes("ready\n")) { s.off("data", onData); resolve(s); } };
    s.on("data", onData);
    s.on("error", reject);
  });
}
async function echo() {
  const s = await open("echo");
  const rtts = [];
  for (let i = 0; i < pings; i++) {
    const t0 = now();
    await new Promise((r) => { s.once("data", r); s.write("x"); });
    rtts.push(now() - t0);
  }
  s.end();
  return rtts;
}
async function sink() {
  const s = await open("sink " + total);
  const chunk = Buffer.alloc(65536, 120);
  const answer = new Promise((r) => { let b = ""; s.on("data", (d) => { b += d; if (b.includes("\n")) r(b.trim()); }); });
  const t0 = now();
  for (let sent = 0; sent < total;) {
    const n = Math.min(chunk.length, total - sent);
    if (!s.write(n === chunk.length ? chunk : chunk.subarray(0, n))) await new Promise((r) => s.once("drain", r));
    sent += n;
  }
  const reply = await answer;
  const seconds = now() - t0;
  s.end();
  return { reply, seconds };
}
(async () => {
  const rtts = await echo();
  const { reply, seconds } = await sink();
  console.log(JSON.stringify({ rtts, seconds, bytes: total, reply }));
})().catch((e) => { console.error(String(e)); process.exit(1); });
"""


def _docker(context, args, environ, timeout=120):
    return subprocess.run(["docker", "--context", context, *args], capture_output=True, text=True,
                          timeout=timeout, env=environ, stdin=subprocess.DEVNULL)


def _server(context, address, image, project, environ):
    """(container id, published host port) of a canary server on CONTEXT, its port on ADDRESS only."""
    r = _docker(context, ["run", "-d", "--rm", "--label", f"com.docker.compose.project={project}",
                          "--label", "jsonbench.canary=server", "-p", f"{address}::{PORT}",
                          "--entrypoint", "perl", image, "-e", SERVER], environ)
    if r.returncode != 0:
        raise RuntimeError(f"the canary server did not start on {context}: {r.stderr.strip()[-300:]}")
    cid = r.stdout.strip()
    deadline = time.monotonic() + 60
    while "listening" not in _docker(context, ["logs", cid], environ).stdout:
        if time.monotonic() > deadline:
            raise RuntimeError(f"the canary server on {context} did not listen within 60 s")
        time.sleep(0.2)
    port = _docker(context, ["port", cid, f"{PORT}/tcp"], environ).stdout.split()[0].rsplit(":", 1)[-1]
    return cid, int(port)


def result(database_host, address, out):
    """One pair's record from the client's JSON line (OUT)."""
    rtts = sorted(out["rtts"])
    reply = out.get("reply") or ""
    # the throughput only when the server said it read every byte
    done = reply.startswith("done ") and out["seconds"] > 0
    return {"database_host": database_host, "address": address,
            "rtt_s": {"min": rtts[0], "median": statistics.median(rtts), "max": rtts[-1], "samples": len(rtts)},
            "bytes": out["bytes"], "seconds": out["seconds"],
            "throughput_bytes_per_s": out["bytes"] / out["seconds"] if done else None,
            "peer": reply[len("done "):] if reply.startswith("done ") else None,
            "reason": None if reply.startswith("done ") else f"the server's answer was {reply!r}"}


def failed(database_host, address, why):
    return {"database_host": database_host, "address": address, "rtt_s": None, "bytes": None, "seconds": None,
            "throughput_bytes_per_s": None, "peer": None, "reason": why}


def measure(client_context, client_image, databases, project, environ=None, pings=PINGS, size=BYTES):
    """canary.json: the clients' host against each database host ({context: (address, server image)}),
    one after the other (each pair measured alone). A pair that could not be measured has null figures
    and the reason; the servers are removed whatever happens."""
    environ = dict(os.environ if environ is None else environ)
    pairs = []
    for context in sorted(databases):
        address, image = databases[context]
        cid = None
        try:
            cid, port = _server(context, address, image, project, environ)
            r = _docker(client_context, ["run", "--rm", "--label", f"com.docker.compose.project={project}",
                                         "--label", "jsonbench.canary=client", "--entrypoint", "node", client_image,
                                         "-e", CLIENT, address, str(port), str(pings), str(size)], environ, timeout=300)
            if r.returncode != 0:
                raise RuntimeError(f"the canary client on {client_context} failed: {(r.stderr or r.stdout).strip()[-300:]}")
            pairs.append(result(context, address, json.loads(r.stdout.strip().splitlines()[-1])))
        except (RuntimeError, ValueError, IndexError, subprocess.TimeoutExpired) as e:
            pairs.append(failed(context, address, str(e)))
        finally:
            if cid:
                _docker(context, ["rm", "-f", cid], environ)
    return {"schema_version": 1, "client_host": client_context, "measured_at": time.time(),
            "pings": pings, "pairs": pairs}
