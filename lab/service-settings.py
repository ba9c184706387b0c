"""Prints, as JSON, what the lab sets on one compose service beyond its image's defaults: image,
command, entrypoint, environment (secrets redacted), memory limit, shm size, labels. Reads `docker compose
config --format json` on stdin, so results record the configuration that actually ran.

Usage: service-settings.py SERVICE (the driver, lab/driver/bench.py, calls `settings` with a database's manifest `service`). It knows
no database: what a database's settings mean is read by its folder's analysis hooks
(databases/<db>/analysis.py `fairness_cells`, `setting`), and a database's own flags travel in its
compose service's command or entrypoint (MongoDB's topology: databases/<db>/lab.py `compose_env`)."""
import json
import sys

SECRET_WORDS = ("PASSWORD", "SECRET", "TOKEN")


def is_secret(name):
    return any(w in name.upper() for w in SECRET_WORDS)


def redact_command(command):
    """--setup-password=x and --setup-password x both lose their value."""
    if not isinstance(command, list):
        return command
    out, hide_next = [], False
    for arg in command:
        if hide_next:
            out.append("<redacted>")
            hide_next = False
        elif arg.startswith("-") and is_secret(arg.split("=", 1)[0]):
            hide_next = "=" not in arg
            out.append(arg.split("=", 1)[0] + "=<redacted>" if "=" in arg else arg)
        else:
            out.append(arg)
    return out


def settings(config, name):
    """The settings of compose service NAME in CONFIG (`docker compose config --format json`)."""
    if name not in config.get("services", {}):
        named = repr(name) if name else "given"
        raise KeyError(f"service-settings.py: no compose service {named} (allowed: "
                       f"{', '.join(sorted(config.get('services', {})))})")
    service = config["services"][name]
    env = service.get("environment") or {}
    return {
        "image": service.get("image"),
        "command": redact_command(service.get("command")),
        # a service's entrypoint may carry bench settings (its lab.py `compose_env`: e.g. topology flags)
        "entrypoint": redact_command(service.get("entrypoint")),
        "environment": {k: ("<redacted>" if is_secret(k) else v)
                        for k, v in sorted(env.items())},
        "mem_limit": service.get("mem_limit") or service.get("deploy", {}).get("resources", {})
        .get("limits", {}).get("memory"),
        "shm_size": service.get("shm_size"),
        "ulimits": service.get("ulimits") or {},
        "labels": service.get("labels") or {},
    }


def main(argv):
    config = json.load(sys.stdin)
    try:
        value = settings(config, argv[0] if len(argv) == 1 else None)
    except KeyError as e:
        sys.exit(e.args[0])
    json.dump(value, sys.stdout, indent=2)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main(sys.argv[1:])
