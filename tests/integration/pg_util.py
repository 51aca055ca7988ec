"""pg_util.py: a real PostgreSQL for the storage tests, started by the tests themselves.

Postgres() runs Debian's initdb/pg_ctl (/usr/lib/postgresql/*/bin) in a temporary directory, as
`nobody` when the suite runs as root (initdb refuses root), listening only on a Unix socket in
that directory: no TCP port to collide with other runs. Superuser "carcd", trust auth on that
socket only. stop()/start() stop and start the same cluster (a database restart); url(db) is a
libpq connection string; database(name) creates a database once. shared() is one cluster for
the whole run, stopped at exit."""

import atexit
import glob
import hashlib
import os
import shutil
import subprocess
import tempfile

PGBIN = os.environ.get("PGBIN") or (sorted(glob.glob("/usr/lib/postgresql/*/bin")) or [""])[-1]


def available():
    return os.access(os.path.join(PGBIN, "initdb"), os.X_OK)


class Postgres:
    def __init__(self):
        if not available():
            raise RuntimeError("no initdb under /usr/lib/postgresql (deploy/deps.sh installs"
                               " postgresql)")
        self.dir = tempfile.mkdtemp(prefix="carcd-pg-")
        self.data = os.path.join(self.dir, "data")
        self.root = os.getuid() == 0
        if self.root:
            shutil.chown(self.dir, "nobody")
        self.dbs = set()
        self._run(["initdb", "-D", self.data, "-U", "carcd", "--auth=trust", "-E", "UTF8",
                   "--no-sync"])
        self.start()

    def _run(self, argv, check=True, timeout=60):
        cmd = [os.path.join(PGBIN, argv[0])] + argv[1:]
        if self.root:
            cmd = ["runuser", "-u", "nobody", "--"] + cmd
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                           stdin=subprocess.DEVNULL)
        if check and p.returncode != 0:
            raise RuntimeError("%s: %s %s" % (" ".join(argv[:2]), p.stdout, p.stderr))
        return p

    def start(self):
        self._run(["pg_ctl", "-D", self.data, "-l", os.path.join(self.dir, "server.log"), "-w",
                   "-t", "30", "-o", "-c listen_addresses='' -k %s -p 5432 -c max_connections=80"
                   % self.dir, "start"])

    def stop(self, mode="fast"):
        """Stop the server; mode immediate is a crash of the database."""
        self._run(["pg_ctl", "-D", self.data, "-m", mode, "-w", "stop"], check=False)

    def running(self):
        return self._run(["pg_ctl", "-D", self.data, "status"], check=False).returncode == 0

    def url(self, db="postgres"):
        return "host=%s port=5432 dbname=%s user=carcd" % (self.dir, db)

    def psql(self, sql, db="postgres"):
        """Run sql; its output (tuples only, | separated)."""
        p = subprocess.run(["psql", "-X", "-q", "-t", "-A", "-v", "ON_ERROR_STOP=1", "-d",
                            self.url(db), "-c", sql], capture_output=True, text=True, timeout=30)
        if p.returncode != 0:
            raise RuntimeError("psql: %s" % p.stderr)
        return p.stdout.strip()

    def database(self, name):
        if name not in self.dbs:
            if self.psql("SELECT 1 FROM pg_database WHERE datname = '%s'" % name) != "1":
                self.psql("CREATE DATABASE %s" % name)
            self.dbs.add(name)
        return self.url(name)

    def database_for(self, data_dir):
        """One database per carcd data directory: a fresh directory is a fresh database, a
        restart on the same directory finds what the last carcd stored."""
        return self.database("d" + hashlib.sha1(os.path.abspath(data_dir).encode())
                             .hexdigest()[:16])

    def close(self):
        self.stop("immediate")
        shutil.rmtree(self.dir, ignore_errors=True)


_shared = None


def shared():
    global _shared
    if _shared is None:
        _shared = Postgres()
        atexit.register(_shared.close)
    elif not _shared.running():
        _shared.start()
    return _shared
