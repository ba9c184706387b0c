"""The images of a placed role on its host (issue 27): built once on the controller's engine (runme.sh
builds the client and the stand-ins there) and loaded onto each engine that runs them, `docker save |
docker --context X load`, skipped when X has the same image id already. The loading itself is
host/simulate-hosts.sh's load_image (one copy of that logic); this module names the images of the
services and keeps what each load did for the bench's records, and the port a service publishes."""
import json
import os
import time


class ImageError(RuntimeError):
    """An image could not be loaded onto a host; the message names the image, the context and why."""


def service_images(engine, env, services, profiles=("client",)):
    """{service: image} of SERVICES as compose resolves them on the lab's compose files (the same on
    every host)."""
    words = [w for p in profiles for w in ("--profile", p)]
    r = engine.compose([*words, "config", "--format", "json"], env=env)
    if r.returncode != 0:
        raise ImageError(f"docker compose config failed: {r.stderr.strip()[-500:]}")
    config = json.loads(r.stdout)["services"]
    out = {}
    for s in services:
        image = (config.get(s) or {}).get("image")
        if not image:
            raise ImageError(f"the compose service {s} names no image (an image is loaded onto a host by name)")
        out[s] = image
    return out


def load(engine, context, image):
    """IMAGE from ENGINE (the controller's) onto CONTEXT (host/simulate-hosts.sh load_image), for as
    long as both engines answer (Engine.run_watched): returns {image, id, context, seconds, loaded}
    (loaded False: the host had that id already)."""
    t0 = time.monotonic()
    r = engine.run_watched([os.path.join(engine.root, "host", "simulate-hosts.sh"), "load_image", context, image],
                           watch=[engine.on(context)])
    seconds = round(time.monotonic() - t0, 3)
    if r.returncode != 0 or not r.stdout.strip():
        raise ImageError(f"{image} could not be loaded onto context {context}: {r.stderr.strip()[-500:]}")
    return {"image": image, "id": r.stdout.strip().splitlines()[-1], "context": context, "seconds": seconds,
            "loaded": "already" not in r.stderr}


def published_port(engine, env, service):
    """The host port SERVICE publishes (its first port, as compose resolves it from .env: PG_PORT,
    MONGO_PORT, ...), where a client on another host dials it."""
    r = engine.compose(["config", "--format", "json"], env=env)
    if r.returncode != 0:
        raise ImageError(f"docker compose config failed: {r.stderr.strip()[-500:]}")
    ports = (json.loads(r.stdout)["services"].get(service) or {}).get("ports") or []
    if not ports or not ports[0].get("published"):
        raise ImageError(f"the compose service {service} publishes no port: a client on another host cannot reach it")
    return int(ports[0]["published"])
