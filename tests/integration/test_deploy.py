"""deploy/: the files a host uses, checked by the programs that will read them.

The systemd unit passes `systemd-analyze verify` (and its offline security score), stops later
than carcd's longest shutdown-grace, and its system call filter and address families admit
every call carcd makes through a whole game (strace). nginx and HAProxy accept their examples,
and both, started on loopback with a self-signed certificate, pass the websocket upgrade and
set X-Forwarded-For / X-Real-IP (an echo backend shows what they send), then carry a whole
game over wss:// to carcd. promtool accepts prometheus.yml and alerts.yml and runs the alerts'
unit tests (tests/data/deploy/alerts_test.yml). The Dockerfile is read, not built (no docker
daemon in CI): Debian 12 bases, a non-root user, the volume, the health check, and a runtime
package list that holds every library carcd names (readelf -d). `make install DESTDIR=...`
installs a carcd that starts with the installed config and serves the installed web root.

Every program comes from a Debian package that deploy/deps.sh installs (nginx, haproxy,
prometheus, systemd, strace, openssl, python3-yaml). Helpers: deploy_util.py."""

import json
import os
import random
import re
import shutil
import signal
import subprocess
import tempfile
import unittest

import yaml

import harness as h
from deploy_util import (DEPLOY, EchoServer, apt_packages, dockerfile_stages, free_port,
                         haproxy_cfg, http_get, https_get, nginx_conf, package_of,
                         play_game_via, read, release_carcd, run, seconds, stop,
                         syscall_group, tls_pair, unit_values, wait_port)


# ---------------------------------------------------------------------------------------------
# systemd

def unit_for(tmp, text):
    """The unit text with its carcd replaced by the built one (verify needs the binary)."""
    path = os.path.join(tmp, "carcd.service")
    with open(path, "w") as f:
        f.write(text.replace("/usr/local/bin/carcd", os.path.abspath(h.CARCD)))
    return path


class Unit(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="carcd-deploy-")
        self.addCleanup(self.tmp.cleanup)
        self.text = read("carcd.service")
        self.keys = unit_values(self.text)

    def test_verify_says_nothing(self):
        # verify prints each problem (unknown key, bad value, missing binary) and may still exit 0.
        code, out = run(["systemd-analyze", "verify", unit_for(self.tmp.name, self.text)])
        self.assertEqual((code, out), (0, ""))

    def test_verify_catches_a_broken_unit(self):
        # The check above can fail: a misspelt key and a binary that is not there.
        text = self.text.replace("ProtectHome=yes", "ProtectHomes=yes")
        code, out = run(["systemd-analyze", "verify", unit_for(self.tmp.name, text)])
        self.assertIn("ProtectHomes", out)
        text = self.text.replace("/usr/local/bin/carcd", "/nonexistent/carcd")
        path = os.path.join(self.tmp.name, "carcd.service")
        with open(path, "w") as f:
            f.write(text)
        code, out = run(["systemd-analyze", "verify", path])
        self.assertNotEqual((code, out), (0, ""))

    def test_the_runbooks_credential_drop_in_verifies(self):
        # deploy/README.md "Secrets in the config": the drop-in it tells hosts to write, applied
        # to the unit (systemctl edit's override: ExecStart= empties the list first).
        with open(os.path.join(DEPLOY, "README.md")) as f:
            lines = re.findall(r"(?m)^#   (.*)$", f.read())
        self.assertEqual(lines[0], "[Service]")
        drop = dict(l.split("=", 1) for l in lines[1:] if not l.endswith("="))
        self.assertIn("%d/carcd.conf", drop["ExecStart"])
        text = self.text.replace(
            "ExecStart=" + self.keys["ExecStart"][0],
            "LoadCredential=%s\nExecStart=%s" % (drop["LoadCredential"], drop["ExecStart"]))
        self.assertIn("LoadCredential=carcd.conf:/etc/carcd/carcd.conf", text)
        code, out = run(["systemd-analyze", "verify", unit_for(self.tmp.name, text)])
        self.assertEqual((code, out), (0, ""))

    def test_security_exposure_is_low(self):
        # systemd's own score of the sandbox, 0 (locked down) .. 10 (none); --threshold is in
        # tenths and makes it exit non-zero above. The unit scores 1.3 with systemd 252.
        path = unit_for(self.tmp.name, self.text)
        code, out = run(["systemd-analyze", "security", "--offline=yes", "--threshold=20", path])
        self.assertEqual(code, 0, out[-3000:])
        m = re.search(r"Overall exposure level for carcd.service: (\d+\.\d)", out)
        self.assertTrue(m, out[-500:])
        self.assertLessEqual(float(m.group(1)), 2.0)

    def test_hardening_and_lifecycle_directives(self):
        k = self.keys
        self.assertEqual(k["ExecStart"], ["/usr/local/bin/carcd --config /etc/carcd/carcd.conf "
                                          "--data-dir /var/lib/carcd"])
        for key, value in (("DynamicUser", "yes"), ("StateDirectory", "carcd"),
                           ("ProtectSystem", "strict"), ("ProtectHome", "yes"),
                           ("PrivateTmp", "yes"), ("NoNewPrivileges", "yes"),
                           ("CapabilityBoundingSet", ""), ("Restart", "on-failure"),
                           ("KillSignal", "SIGTERM")):
            self.assertEqual(k.get(key), [value], key)
        self.assertEqual(k["SystemCallFilter"][0], "@system-service")
        self.assertGreaterEqual(int(k["LimitNOFILE"][0]), 65536)
        # The flags it passes are carcd's.
        code, out = run([h.CARCD, "--help"])
        self.assertEqual(code, 0)
        for flag in ("--config", "--data-dir"):
            self.assertIn(flag, out)

    def test_stop_waits_longer_than_any_shutdown_grace(self):
        # config.c bounds shutdown-grace (ms); systemd must not SIGKILL carcd before it has
        # closed its clients and written what was dirty.
        with open(os.path.join(h.ROOT, "server", "config.c")) as f:
            m = re.search(r'\{"shutdown-grace", K_INT, OFF\(shutdown_grace\), 0, (\d+), (\d+),',
                          f.read())
        self.assertTrue(m, "shutdown-grace's entry in config.c")
        grace_max_s = int(m.group(2)) / 1000
        self.assertGreaterEqual(seconds(self.keys["TimeoutStopSec"][0]), grace_max_s + 10)

    def test_every_system_call_of_a_game_is_allowed(self):
        """carcd, as an unprivileged user like the unit's DynamicUser, under strace from exec to
        exit, twice (a game left half played; then that game restored at start, and another
        played to its end): every system call is in the unit's SystemCallFilter, every socket
        in RestrictAddressFamilies, every file written under the data directory
        (ProtectSystem=strict)."""
        if shutil.which("strace") is None:
            self.fail("strace is not installed (deploy/deps.sh)")
        filters = self.keys["SystemCallFilter"]
        allowed = set()
        for f in filters:
            deny = f.startswith("~")
            names = set()
            for g in f.lstrip("~").split():
                names |= syscall_group(g) if g.startswith("@") else {g}
            allowed = allowed - names if deny else allowed | names
        self.assertIn("epoll_wait", allowed)
        self.assertNotIn("setrlimit", allowed)
        families = set(self.keys["RestrictAddressFamilies"][0].split())

        data = os.path.join(self.tmp.name, "data")
        os.mkdir(data, 0o700)
        trace = os.path.join(self.tmp.name, "trace")
        user = []
        binary = release_carcd(self.tmp.name)
        web = os.path.join(h.ROOT, "clients", "web")
        if os.geteuid() == 0:  # root (CI): run carcd as nobody, as the unit does not run as root
            os.chown(data, 65534, 65534)
            os.chmod(self.tmp.name, 0o755)
            user = ["-u", "nobody"]
            # The checkout may sit in a folder only root can enter (CI clones into mktemp -d):
            # nobody gets its own copies of the binary and the web root, as an install would.
            shutil.copy(binary, os.path.join(self.tmp.name, "carcd-bin"))
            binary = os.path.join(self.tmp.name, "carcd-bin")
            os.chmod(binary, 0o755)
            shutil.copytree(web, os.path.join(self.tmp.name, "web"))
            web = os.path.join(self.tmp.name, "web")
        wrapper = os.path.join(self.tmp.name, "carcd")
        with open(wrapper, "w") as f:
            f.write("#!/bin/sh\nexec strace -f -qq -e signal=none -o %s %s %s \"$@\"\n"
                    % (trace, " ".join(user), binary))
        os.chmod(wrapper, 0o755)
        real = h.CARCD
        h.CARCD = wrapper
        try:
            # The first run leaves a game half played; the second restores it at start (the
            # game dealt again, its moves replayed), then plays another one to its end.
            for run_no in range(2):
                srv = h.Server(data_dir=data, extra=["--web-root", web])
                srv.start(timeout=30)
                try:
                    rng = random.Random(5 + run_no)
                    players = h.create_room(srv, ["Ann", "Bob"])
                    if run_no == 0:
                        players[0].send({"v": h.V, "type": "start"})
                        h.sync_all(players, players[0].seq + 1)
                        for _ in range(6):
                            mover = h.mover_of(players)
                            ack = mover.request("play", **h.random_move(rng, mover))
                            self.assertEqual(ack["type"], "ack", ack)
                            h.sync_all(players, ack["seq"])
                    else:
                        self.assertIn("restored 1 room", srv.log())
                        h.play_to_end(players, rng)
                    for c in players:
                        c.close()
                    self.assertEqual(http_get(srv.port, "/healthz")[0], 200)
                finally:
                    # SIGTERM to carcd, strace's child: strace then exits with its status.
                    with open("/proc/%d/task/%d/children" % (srv.pid(), srv.pid())) as f:
                        kids = f.read().split()
                    if kids:
                        os.kill(int(kids[0]), signal.SIGTERM)
                    self.assertEqual(srv.proc.wait(30), 0, srv.log())
                    srv._reader.join(5)
                self.check_trace(trace, allowed, families, data)
        finally:
            h.CARCD = real

    def check_trace(self, trace, allowed, families, data):
        used, bad_families, writes = set(), set(), []
        call_re = re.compile(r"^\d+\s+([a-z0-9_]+)\((.*)$")
        with open(trace) as f:
            for line in f:
                m = call_re.match(line)
                if not m:
                    continue
                name, rest = m.groups()
                used.add(name)
                failed = re.search(r"\) += -1 [A-Z]+", rest) is not None
                if name == "socket":
                    fam = rest.split(",", 1)[0]
                    if fam not in families:
                        bad_families.add(fam)
                if failed:  # e.g. mkdir of the data directory's parents: EEXIST
                    continue
                if name in ("openat", "open"):
                    pm = re.search(r'"([^"]*)", ([A-Z_|]+)', rest)
                    if pm and re.search(r"O_WRONLY|O_RDWR|O_CREAT", pm.group(2)):
                        writes.append(pm.group(1))
                if name in ("mkdir", "mkdirat", "unlink", "unlinkat", "rename", "renameat",
                            "renameat2", "ftruncate") and '"' in rest:
                    writes.append(rest.split('"')[1])
        self.assertIn("execve", used)  # the trace is carcd's, from its start
        self.assertGreater(len(used), 30)
        self.assertEqual(sorted(used - allowed), [], "system calls the unit's filter refuses")
        self.assertEqual(bad_families, set(), "socket families the unit refuses")
        self.assertIn(os.path.join(data, "carcd.db"), writes)  # the parse above sees writes
        outside = [p for p in writes if not os.path.abspath(p).startswith(data)
                   and p not in ("/dev/null",)]
        self.assertEqual(outside, [], "files written outside the data directory")


# ---------------------------------------------------------------------------------------------
# TLS proxies

class Proxies(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="carcd-proxy-")
        self.addCleanup(self.tmp.cleanup)
        self.d = self.tmp.name
        os.chmod(self.d, 0o755)  # nginx's workers (www-data) read nothing here, but may stat
        self.cert, self.key, self.both = tls_pair(self.d)
        # nginx opens this before it reads the config (else its built-in /var/log/nginx/)
        self.errlog = os.path.join(self.d, "startup-error.log")

    def assert_clean(self, code, out, warn_re):
        self.assertEqual(code, 0, out)
        self.assertIsNone(re.search(warn_re, out), out)

    def test_nginx_accepts_the_example(self):
        path = nginx_conf(self.d, self.cert, self.key)
        code, out = run(["nginx", "-t", "-c", path, "-p", self.d, "-e", self.errlog])
        self.assert_clean(code, out, r"\[(warn|emerg|alert|crit|error)\]")
        self.assertIn("test is successful", out)

    def test_haproxy_accepts_the_example(self):
        path = haproxy_cfg(self.d, self.both)
        code, out = run(["haproxy", "-c", "-f", path])
        self.assert_clean(code, out, r"\[(WARNING|ALERT|NOTICE)\]")
        self.assertIn("Configuration file is valid", out)

    def test_the_checks_catch_a_broken_config(self):
        # nginx -t and haproxy -c really read the files: a missing certificate fails both.
        path = nginx_conf(self.d, self.cert + ".missing", self.key)
        self.assertNotEqual(run(["nginx", "-t", "-c", path, "-p", self.d, "-e", self.errlog])[0], 0)
        path = haproxy_cfg(self.d, self.both + ".missing")
        self.assertNotEqual(run(["haproxy", "-c", "-f", path])[0], 0)

    def start_nginx(self, upstream):
        http_port, https_port = free_port(), free_port()
        path = nginx_conf(self.d, self.cert, self.key, http_port, https_port, upstream)
        proc = subprocess.Popen(["nginx", "-c", path, "-p", self.d, "-e", self.errlog,
                                 "-g", "daemon off;"],
                                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL, preexec_fn=h._die_with_parent)
        self.addCleanup(stop, proc)
        wait_port(https_port, proc)
        return http_port, https_port

    def start_haproxy(self, upstream):
        http_port, https_port = free_port(), free_port()
        path = haproxy_cfg(self.d, self.both, http_port, https_port, upstream)
        proc = subprocess.Popen(["haproxy", "-db", "-f", path], stdin=subprocess.DEVNULL,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                preexec_fn=h._die_with_parent)
        self.addCleanup(stop, proc)
        wait_port(https_port, proc)
        return http_port, https_port

    def check_headers(self, start):
        """What the proxy sends carcd: the client's address in X-Forwarded-For and X-Real-IP,
        whatever the client claimed; the upgrade for /ws; admin and metrics not passed."""
        with EchoServer() as echo:
            http_port, https_port = start(echo.port)
            s, hd, _ = http_get(http_port, "/ws")
            self.assertEqual(s, 301)
            self.assertTrue(hd["location"].startswith("https://"), hd)
            s, _, body = https_get(https_port, self.cert, "/api/rooms",
                                   {"X-Forwarded-For": "203.0.113.9", "X-Real-IP": "203.0.113.9"})
            self.assertEqual(s, 200, body)
            seen = json.loads(body)["headers"]
            self.assertEqual(seen.get("x-forwarded-for"), "127.0.0.1", seen)
            self.assertEqual(seen.get("x-real-ip"), "127.0.0.1", seen)
            self.assertEqual(seen.get("x-forwarded-proto"), "https", seen)
            for path in ("/admin/rooms", "/metrics"):
                self.assertEqual(https_get(https_port, self.cert, path)[0], 404, path)
            # A websocket handshake reaches the backend as one (the echo does not upgrade).
            s, _, body = https_get(https_port, self.cert, "/ws", {
                "Upgrade": "websocket", "Connection": "Upgrade",
                "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==", "Sec-WebSocket-Version": "13"})
            seen = json.loads(body)["headers"]
            self.assertEqual(seen.get("upgrade"), "websocket", seen)
            self.assertIn("upgrade", seen.get("connection", "").lower(), seen)
            self.assertEqual(seen.get("x-forwarded-for"), "127.0.0.1", seen)

    def check_game(self, start):
        srv = h.shared()
        _, https_port = start(srv.port)
        s, hd, body = https_get(https_port, self.cert, "/healthz")
        self.assertEqual((s, body), (200, b"ok"))
        self.assertIn("strict-transport-security", hd)
        s, _, body = https_get(https_port, self.cert, "/")
        self.assertEqual(s, 200)
        with open(os.path.join(h.ROOT, "clients", "web", "index.html"), "rb") as f:
            self.assertEqual(body, f.read())
        play_game_via(self, https_port, self.cert, srv)

    def test_nginx_forwards_the_client_address(self):
        self.check_headers(self.start_nginx)

    def test_haproxy_forwards_the_client_address(self):
        self.check_headers(self.start_haproxy)

    def test_a_game_over_wss_through_nginx(self):
        self.check_game(self.start_nginx)

    def test_a_game_over_wss_through_haproxy(self):
        self.check_game(self.start_haproxy)


# ---------------------------------------------------------------------------------------------
# Prometheus

class Prometheus(unittest.TestCase):
    def test_promtool_accepts_the_config(self):
        code, out = run(["promtool", "check", "config", os.path.join(DEPLOY, "prometheus.yml")])
        self.assertEqual(code, 0, out)
        self.assertIn("1 rule files found", out)  # alerts.yml, found beside it

    def test_promtool_accepts_the_rules(self):
        code, out = run(["promtool", "check", "rules", os.path.join(DEPLOY, "alerts.yml")])
        self.assertEqual(code, 0, out)

    def test_every_alert_fires_when_it_should(self):
        tests = os.path.join(h.ROOT, "tests", "data", "deploy", "alerts_test.yml")
        code, out = run(["promtool", "test", "rules", tests])
        self.assertEqual(code, 0, out)
        self.assertIn("SUCCESS", out)
        # ... and each alert of alerts.yml is in that file, quiet and firing.
        alerts = {r["alert"] for g in yaml.safe_load(read("alerts.yml"))["groups"]
                  for r in g["rules"]}
        with open(tests) as f:
            cases = yaml.safe_load(f)["tests"]
        quiet = {t["alertname"] for c in cases for t in c["alert_rule_test"] if not t["exp_alerts"]}
        firing = {t["alertname"] for c in cases for t in c["alert_rule_test"] if t["exp_alerts"]}
        self.assertEqual(alerts - quiet, set())
        self.assertEqual(alerts - firing, set())

    def test_the_unit_tests_can_fail(self):
        # The same tests against rules whose threshold is off: promtool says so.
        d = tempfile.mkdtemp(prefix="carcd-prom-")
        self.addCleanup(shutil.rmtree, d)
        os.makedirs(os.path.join(d, "deploy"))
        os.makedirs(os.path.join(d, "tests", "data", "deploy"))
        with open(os.path.join(d, "deploy", "alerts.yml"), "w") as f:
            f.write(read("alerts.yml").replace("> 0.8 * process_max_fds",
                                               "> 0.95 * process_max_fds"))
        shutil.copy(os.path.join(h.ROOT, "tests", "data", "deploy", "alerts_test.yml"),
                    os.path.join(d, "tests", "data", "deploy"))
        code, out = run(["promtool", "test", "rules",
                         os.path.join(d, "tests", "data", "deploy", "alerts_test.yml")])
        self.assertNotEqual(code, 0, out)
        self.assertIn("CarcdFdsNearLimit", out)

    def test_alerts_use_the_agreed_metric_names(self):
        # The names issue 15 agreed on (server/metrics/ exports them): a rule on a name nobody
        # exports never fires, and promtool cannot tell.
        agreed = {"up", "carcd_store_commit_failures_total", "carcd_store_healthy",
                  "carcd_move_broadcast_seconds_bucket",
                  "carcd_store_commit_seconds_bucket", "carcd_loop_busy_seconds_total",
                  "process_open_fds", "process_max_fds", "process_start_time_seconds"}
        used = set()
        for g in yaml.safe_load(read("alerts.yml"))["groups"]:
            for r in g["rules"]:
                used |= set(re.findall(r"\b(up|carcd_[a-z_]+|process_[a-z_]+)\b", r["expr"]))
        self.assertEqual(used - agreed, set())


# ---------------------------------------------------------------------------------------------
# Docker (read, not built: CI has no docker daemon)

class Docker(unittest.TestCase):
    def setUp(self):
        self.stages = dockerfile_stages(read("Dockerfile"))
        self.final = self.stages[-1]

    def instr(self, name):
        return [a for i, a in self.final[1] if i == name]

    def test_debian_12_bases_only(self):
        self.assertGreaterEqual(len(self.stages), 2)
        for base, _ in self.stages:
            self.assertIn(base.split(" ")[0], ("debian:12", "debian:12-slim"))
        for base, _ in dockerfile_stages(read("prometheus.Dockerfile")):
            self.assertIn(base, ("debian:12", "debian:12-slim"))

    def test_runs_as_a_user_with_the_data_in_a_volume(self):
        users = self.instr("USER")
        self.assertTrue(users, "no USER in the final stage")
        self.assertNotIn(users[-1].split(":")[0], ("root", "0"))
        self.assertIn("/var/lib/carcd", " ".join(self.instr("VOLUME")))
        self.assertEqual(" ".join(self.instr("EXPOSE")).split(), ["8080", "9464"])
        self.assertIn("/healthz", " ".join(self.instr("HEALTHCHECK")))
        entry = json.loads(self.instr("ENTRYPOINT")[-1])
        self.assertEqual(entry, ["/usr/local/bin/carcd", "--config", "/etc/carcd/carcd.conf",
                                 "--data-dir", "/var/lib/carcd"])
        # the user's home and the volume are made for it before USER
        self.assertTrue(any("useradd" in a and "install -d -o carcd" in a
                            for a in self.instr("RUN")))
        self.assertEqual(users[-1], "carcd")

    def test_runtime_packages_hold_every_library(self):
        # The libraries carcd names itself (their own dependencies come with their packages),
        # found where ldd finds them.
        tmp = tempfile.mkdtemp(prefix="carcd-ldd-")
        self.addCleanup(shutil.rmtree, tmp)
        carcd = release_carcd(tmp)
        code, out = run(["ldd", carcd])
        self.assertEqual(code, 0, out)
        where = dict(re.findall(r"^\s*(\S+) => (/\S+)", out, flags=re.M))
        code, dyn = run(["readelf", "-d", carcd])
        self.assertEqual(code, 0, dyn)
        sonames = re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", dyn)
        self.assertIn("libwebsockets.so.17", sonames)
        needed = {package_of(where[n]) for n in sonames} - {"libc6"}  # in every Debian image
        # loaded by libwebsockets at run time, not linked (server/README.md)
        needed.add("libwebsockets-evlib-uv")
        runtime = set(apt_packages(self.final))
        self.assertEqual(needed - runtime, set())
        self.assertIn("curl", runtime)  # the health check's client
        # The build stage has the -dev packages deploy/deps.sh lists for the server.
        build = set(apt_packages(self.stages[0]))
        for p in ("gcc", "libc6-dev", "make", "pkg-config", "libjansson-dev", "libuv1-dev",
                  "libwebsockets-dev", "libsqlite3-dev", "zlib1g-dev"):
            self.assertIn(p, build)
            self.assertIn(p if p != "libc6-dev" else "gcc", read("deps.sh"))

    def test_every_package_is_in_debian_12(self):
        for stage in self.stages + dockerfile_stages(read("prometheus.Dockerfile")):
            for p in apt_packages(stage):
                code, out = run(["apt-cache", "show", "--no-all-versions", p])
                self.assertEqual(code, 0, "%s: %s" % (p, out[-300:]))

    def test_container_config_is_the_installed_one_on_the_container_network(self):
        # The build stage's sed and printf, applied to what `make install` writes.
        run_lines = [a for i, a in self.stages[0][1] if i == "RUN" and "make -j" in a]
        self.assertEqual(len(run_lines), 1)
        self.assertIn("install PREFIX=/usr/local DESTDIR=/out", run_lines[0])
        self.assertIn("s|^listen *=[^#]*|listen = 0.0.0.0   |", run_lines[0])
        example = read("carcd.conf.example")
        self.assertRegex(example, r"(?m)^listen *= *127\.0\.0\.1 ")
        self.assertIn("metrics-port = 9464", run_lines[0])
        self.assertIn("metrics-listen = 0.0.0.0", run_lines[0])

    def test_compose_runs_carcd_and_prometheus_that_scrapes_it(self):
        compose = yaml.safe_load(read("compose.yaml"))
        svc = compose["services"]
        self.assertEqual(set(svc), {"carcd", "prometheus"})
        for name, s in svc.items():
            self.assertEqual(s["build"]["context"], "..")
            self.assertTrue(os.path.isfile(os.path.join(h.ROOT, s["build"]["dockerfile"])), name)
        self.assertEqual(svc["carcd"]["build"]["dockerfile"], "deploy/Dockerfile")
        self.assertIn("carcd-data:/var/lib/carcd", svc["carcd"]["volumes"])
        self.assertIn("carcd-data", compose["volumes"])
        # published on the host's loopback only (a TLS proxy in front), metrics not at all
        for s in svc.values():
            for p in s.get("ports", []):
                self.assertTrue(p.startswith("127.0.0.1:"), p)
        self.assertNotIn("9464", json.dumps(svc["carcd"].get("ports", [])))
        # longer than shutdown-grace's default
        self.assertGreaterEqual(seconds(svc["carcd"]["stop_grace_period"]), 10)
        # prometheus.yml scrapes the carcd service on its metrics port, with alerts.yml beside
        prom = yaml.safe_load(read("prometheus.yml"))
        job = next(j for j in prom["scrape_configs"] if j["job_name"] == "carcd")
        self.assertEqual(job["static_configs"][0]["targets"], ["carcd:9464"])
        self.assertEqual(prom["rule_files"], ["alerts.yml"])
        self.assertIn("COPY deploy/prometheus.yml deploy/alerts.yml /etc/prometheus/",
                      read("prometheus.Dockerfile"))


# ---------------------------------------------------------------------------------------------
# make install

class Install(unittest.TestCase):
    def test_make_install_gives_a_carcd_that_runs(self):
        d = tempfile.mkdtemp(prefix="carcd-install-")
        self.addCleanup(shutil.rmtree, d)
        build = os.path.relpath(h.BUILD, h.ROOT)
        code, out = run(["make", "--no-print-directory", "BUILD=" + build, "install",
                         "DESTDIR=" + d, "PREFIX=/opt/carcd"], cwd=h.ROOT, timeout=300)
        self.assertEqual(code, 0, out)
        root = lambda p: os.path.join(d, p.lstrip("/"))  # noqa: E731
        for p in ("/opt/carcd/bin/carcd", "/opt/carcd/share/carcd/web/index.html",
                  "/opt/carcd/share/carcd/carcd.conf.example",
                  "/opt/carcd/share/doc/carcd/README.md",
                  "/opt/carcd/lib/systemd/system/carcd.service", "/etc/carcd/carcd.conf"):
            self.assertTrue(os.path.isfile(root(p)), p)
        self.assertTrue(os.access(root("/opt/carcd/bin/carcd"), os.X_OK))
        unit = open(root("/opt/carcd/lib/systemd/system/carcd.service")).read()
        self.assertIn("ExecStart=/opt/carcd/bin/carcd --config /etc/carcd/carcd.conf", unit)
        self.assertNotIn("/usr/local", unit)
        conf = open(root("/etc/carcd/carcd.conf")).read()
        self.assertRegex(conf, r"(?m)^web-root = /opt/carcd/share/carcd/web ")
        self.assertRegex(conf, r"(?m)^data-dir = /var/lib/carcd ")

        # The installed config as carcd reads it, with this test's paths: it serves the web root.
        conf_path = os.path.join(d, "test.conf")
        with open(conf_path, "w") as f:
            f.write(conf.replace("/opt/carcd/share/carcd/web", root("/opt/carcd/share/carcd/web")))
        real = h.CARCD
        h.CARCD = root("/opt/carcd/bin/carcd")
        try:
            srv = h.Server(config={}, data_dir=os.path.join(d, "data"),
                           extra=["--config", conf_path, "--port", "0"])
            srv.start()
            try:
                s, _, body = http_get(srv.port, "/")
                self.assertEqual(s, 200)
                with open(os.path.join(h.ROOT, "clients", "web", "index.html"), "rb") as f:
                    self.assertEqual(body, f.read())
                self.assertEqual(http_get(srv.port, "/healthz")[2], b"ok")
            finally:
                self.assertEqual(srv.stop(), 0, srv.log())
        finally:
            h.CARCD = real

        # A second install keeps the host's config; uninstall leaves it (and the data) alone.
        with open(root("/etc/carcd/carcd.conf"), "a") as f:
            f.write("port = 9000\n")
        code, out = run(["make", "--no-print-directory", "BUILD=" + build, "install",
                         "DESTDIR=" + d, "PREFIX=/opt/carcd"], cwd=h.ROOT, timeout=300)
        self.assertEqual(code, 0, out)
        self.assertTrue(open(root("/etc/carcd/carcd.conf")).read().endswith("port = 9000\n"))
        code, out = run(["make", "--no-print-directory", "uninstall", "DESTDIR=" + d,
                         "PREFIX=/opt/carcd"], cwd=h.ROOT)
        self.assertEqual(code, 0, out)
        self.assertFalse(os.path.exists(root("/opt/carcd/bin/carcd")))
        self.assertFalse(os.path.exists(root("/opt/carcd/share/carcd")))
        self.assertTrue(os.path.isfile(root("/etc/carcd/carcd.conf")))
