"""Prints, as JSON, what the lab sets on one compose service beyond its image's defaults: image,
command, environment (secrets redacted), memory limit, shm size, labels. Reads `docker compose
config --format json` on stdin, so results record the configuration that actually ran."""
import json
import sys

SECRET_WORDS = ("PASSWORD", "SECRET", "TOKEN")

config = json.load(sys.stdin)
service = config["services"][sys.argv[1]]
env = service.get("environment") or {}
settings = {
    "image": service.get("image"),
    "command": service.get("command"),
    "environment": {k: ("<redacted>" if any(w in k.upper() for w in SECRET_WORDS) else v)
                    for k, v in sorted(env.items())},
    "mem_limit": service.get("mem_limit") or service.get("deploy", {}).get("resources", {})
    .get("limits", {}).get("memory"),
    "shm_size": service.get("shm_size"),
    "labels": service.get("labels") or {},
}
json.dump(settings, sys.stdout, indent=2)
sys.stdout.write("\n")
