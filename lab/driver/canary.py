"""The network canary (issue 27): just before a run, the round-trip time and throughput between the
clients' host and each database host, over the path the clients' traffic takes (a port the database
host publishes on its lab address). A small server container on the database host (perl's
IO::Socket::INET) and a small client container on the clients' host (bash's /dev/tcp, its
microsecond $EPOCHREALTIME and builtins: no process started between two readings of the clock but
`dd` once before the bulk transfer); perl-base and bash are in every Debian or Ubuntu based image (the
databases', the client's, the stand-ins'), so nothing is downloaded.

The server answers one connection at a time: `echo` returns each byte it reads (the round trips),
`sink N` reads N bytes and answers `done <peer address>`: the address it saw the connection come
from, which shows the traffic crossed the hosts' own network. The client sends PINGS single bytes
one after the other, then BYTES (dd from /dev/zero in 1 MiB writes), timed from before `dd` starts to the
answer: the bulk time includes starting `dd` (about a millisecond), a small share of BYTES' time.

Interface (a placed run calls measure() before its first phase and writes canary.json):
  measure(client_context, client_image, databases, project, environ=None, pings=PINGS, size=BYTES)
      client_image: one with bash on the clients' host (the client image);
      databases: {context: (lab address, an image with perl there)} -> canary.json (lab/canary.schema.json)
"""
import os
import statistics
import subprocess
import time

PINGS = 20
MIB = 1024 * 1024
BYTES = 64 * MIB
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
host=$1 port=$2 pings=$3 total=$4
exec 3<>"/dev/tcp/$host/$port" || exit 1
printf 'echo\n' >&3
read -r line <&3
[ "$line" = ready ] || { echo "echo: the server answered '$line'" >&2; exit 1; }
for ((i = 0; i < pings; i++)); do
  t0=$EPOCHREALTIME; printf x >&3; read -r -N1 c <&3; t1=$EPOCHREALTIME
  [ "$c" = x ] || { echo "echo: the server returned '$c'" >&2; exit 1; }
  echo "rtt $t0 $t1"
done
exec 3>&-
exec 3<>"/dev/tcp/$host/$port" || exit 1
printf 'sink %d\n' "$total" >&3
read -r line <&3
[ "$line" = ready ] || { echo "sink: the server answered '$line'" >&2; exit 1; }
t0=$EPOCHREALTIME
dd if=/dev/zero bs=1048576 count=$((total / 1048576)) status=none >&3
read -r reply <&3
t1=$EPOCHREALTIME
echo "sink $t0 $t1 $reply"
"""


def _docker(context, args, environ, timeout=120):
    return subprocess.run(["docker", "--context", context, *args], capture_output=True, text=True,
                          timeout=timeout, env=environ, stdin=subprocess.DEVNULL)


def _server(context, address, image, project, environ):
    """(container id, published host port) of a canary server on CONTEXT, its port on ADDRESS only."""
    # --pull never: the image is the host's own (images reach a host by docker load), never a registry's
    r = _docker(context, ["run", "-d", "--rm", "--pull", "never", "--label", f"com.docker.compose.project={project}",
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


def parse(stdout, size):
    """The client's lines (`rtt T0 T1`, then `sink T0 T1 REPLY`, bash's $EPOCHREALTIME) as {rtts,
    seconds, bytes, reply}; ValueError when they are not that."""
    rtts, sink = [], None
    for line in stdout.splitlines():
        words = line.split()
        if words[:1] == ["rtt"] and len(words) == 3:
            rtts.append(float(words[2]) - float(words[1]))
        elif words[:1] == ["sink"] and len(words) >= 3:
            sink = (float(words[2]) - float(words[1]), " ".join(words[3:]))
    if not rtts or sink is None:
        raise ValueError(f"the canary client's output is not rtt/sink lines: {stdout.strip()[-300:]!r}")
    return {"rtts": rtts, "seconds": sink[0], "bytes": size, "reply": sink[1]}


def result(database_host, address, out):
    """One pair's record from the client's readings (OUT: parse())."""
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
    if size <= 0 or size % MIB:
        raise ValueError(f"canary: the bulk transfer is whole MiB (dd's 1 MiB writes), got {size} bytes")
    environ = dict(os.environ if environ is None else environ)
    pairs = []
    for context in sorted(databases):
        address, image = databases[context]
        cid = None
        try:
            cid, port = _server(context, address, image, project, environ)
            r = _docker(client_context, ["run", "--rm", "--pull", "never", "--label", f"com.docker.compose.project={project}",
                                         "--label", "jsonbench.canary=client", "--entrypoint", "bash", client_image,
                                         "-c", CLIENT, "canary", address, str(port), str(pings), str(size)],
                        environ, timeout=300)
            if r.returncode != 0:
                raise RuntimeError(f"the canary client on {client_context} failed: {(r.stderr or r.stdout).strip()[-300:]}")
            pairs.append(result(context, address, parse(r.stdout, size)))
        except (RuntimeError, ValueError, IndexError, subprocess.TimeoutExpired) as e:
            pairs.append(failed(context, address, str(e)))
        finally:
            if cid:
                _docker(context, ["rm", "-f", cid], environ)
    return {"schema_version": 1, "client_host": client_context, "measured_at": time.time(),
            "pings": pings, "pairs": pairs}
