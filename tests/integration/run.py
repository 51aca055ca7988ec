#!/usr/bin/python3
"""The integration suite: carcd on an ephemeral loopback port, real WebSocket clients.

    /usr/bin/python3 tests/integration/run.py [MODULE[.Class[.test]] ...]

CARC_BUILD selects the build directory (default build; build/asan for the sanitizer build).
Runs the modules below in order (or the named tests), stops the server with SIGTERM and checks
that it exits 0, then prints unittest's report and a last line `N passed, N failed`.
"""

import faulthandler
import os
import shutil
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

try:
    import harness as h  # noqa: E402
except ImportError as e:  # websocket, jsonschema, jsonpatch: deploy/deps.sh installs them
    print("tests/integration: %s (run deploy/deps.sh; use /usr/bin/python3)" % e, file=sys.stderr)
    print("0 passed, 1 failed")
    sys.exit(1)

MODULES = ["test_games", "test_session", "test_abuse", "test_errors", "test_conformance", "test_turns", "test_pybot", "test_http", "test_hostile",
           "test_coverage",
           "test_crash", "test_crash_pg",
           "test_storage", "test_storage_pg",
           "test_logs", "test_proxy",
           "test_metrics", "test_admin", "test_accounts", "test_accounts_admin",
           "test_seat_accounts", "test_ratings", "test_rated_rules", "test_rating_crash", "test_rated_multi", "test_me_games", "test_profiles",
           "test_claim", "test_push", "test_mail",
           "test_deploy", "test_variants",
           "test_fair", "test_rematch", "test_correspondence", "test_analysis"]


def unlisted():
    """The test_*.py files beside this one that MODULES does not name (a suite that would
    silently never run in `make test`)."""
    here = os.path.dirname(os.path.abspath(__file__))
    found = sorted(f[:-3] for f in os.listdir(here) if f.startswith("test_") and f.endswith(".py"))
    return [n for n in found if n not in MODULES]


def main(argv):
    names = argv or MODULES
    missing = unlisted()
    if missing:
        print("FAIL: tests/integration/run.py: MODULES does not name %s" % ", ".join(missing),
              file=sys.stderr)
        return 1
    # A hung test must not hang `make test`: dump every thread's stack and exit.
    faulthandler.dump_traceback_later(float(os.environ.get("CARC_IT_TIMEOUT", "1200")), exit=True)
    loader = unittest.TestLoader()
    suite = unittest.TestSuite(loader.loadTestsFromName(n) for n in names)
    t0 = time.monotonic()
    result = unittest.TextTestRunner(verbosity=2, stream=sys.stderr).run(suite)
    failed = len(result.failures) + len(result.errors) + len(result.unexpectedSuccesses)
    passed = result.testsRun - failed - len(result.skipped)
    status = h.stop_shared()
    if status is not None and status != 0:
        failed += 1  # counted as one more failed check
        print("FAIL: carcd exited with status %s after SIGTERM; its last output:\n%s"
              % (status, h.last_log), file=sys.stderr)
    # No token or password in any line any carcd of this run logged (harness.secret_problems),
    # and the check itself finds a planted one.
    if not h.secret_self_check():
        failed += 1
        print("FAIL: the log check did not find a token planted in a log line", file=sys.stderr)
    leaks, checked, short = h.secret_problems()
    failed += len(leaks)
    for leak in leaks[:20]:
        print("FAIL: a secret in carcd's log: %s" % leak, file=sys.stderr)
    print("logs: %d secrets searched for in every line of %s (%d too short to search)"
          % (checked, h.LOG_DIR, len(short)), file=sys.stderr)
    if not leaks and not os.environ.get("CARC_IT_LOGS"):
        shutil.rmtree(h.LOG_DIR, ignore_errors=True)
    print("server messages validated: %d (types: %s); schema failures: %d; %.1f s"
          % (h.STATS["messages"], ", ".join(sorted(t for t in h.STATS["types"] if t)),
             len(h.SCHEMA_ERRORS), time.monotonic() - t0), file=sys.stderr)
    for problem, text in h.SCHEMA_ERRORS[:10]:
        print("  schema: %s: %s" % (problem, text), file=sys.stderr)
    sys.stderr.flush()
    print("%d passed, %d failed" % (passed, failed), flush=True)
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
