#!/opt/secantusdb/bin/python3
"""First-start user creation on the stand-in's temporary server (127.0.0.1, no auth), as the
official image does with `db.createUser({user, pwd, roles: [{role: 'root', db: 'admin'}]})` on its
temporary mongod (docker-library/mongo 8.0/docker-entrypoint.sh). Waits for the server the way
upstream does: up to 30 tries a second apart, failing at once if the server process has gone.
Usage: standin-create-root-user.py PORT SERVER_PID   (env MONGO_INITDB_ROOT_USERNAME / _PASSWORD)"""
import os
import sys
import time

from pymongo import MongoClient
from pymongo.errors import PyMongoError


def server_alive(pid):
    try:
        os.kill(pid, 0)
        return True
    except ProcessLookupError:
        return False


def main(port, pid):
    client = MongoClient("127.0.0.1", port, directConnection=True, serverSelectionTimeoutMS=1000)
    for _ in range(30):
        if not server_alive(pid):
            sys.exit("error: the temporary secantusd-py did not stay running (its log is above)")
        try:
            client.admin.command("ping")
            break
        except PyMongoError:
            time.sleep(1)
    else:
        sys.exit("error: the temporary secantusd-py did not accept connections within 30 s")
    client.admin.command("createUser", os.environ["MONGO_INITDB_ROOT_USERNAME"],
                         pwd=os.environ["MONGO_INITDB_ROOT_PASSWORD"],
                         roles=[{"role": "root", "db": "admin"}])
    client.close()


if __name__ == "__main__":
    main(int(sys.argv[1]), int(sys.argv[2]))
