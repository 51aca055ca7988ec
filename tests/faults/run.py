#!/usr/bin/python3
"""The fault suite (`make test-faults`): the real carcd against real faults (descriptors
exhausted, a full disk, SIGSTOP, a damaged write-ahead log, hostile origins, floods, bot rooms
left alone). Issue 25 lists what each module reproduces.

    /usr/bin/python3 tests/faults/run.py [MODULE[.Class[.test]] ...]

Runs every tests/faults/test_*.py (or the named tests) with tests/integration/harness.py's
Server and Client, and prints unittest's report and a last line `N passed, N failed`. Some
modules need root (a tmpfs mount); they skip with the reason when not root, and CI runs as root.
CARC_BUILD selects the build directory (default build).
"""

import faulthandler
import glob
import os
import sys
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "integration"))

try:
    import harness as h  # noqa: E402
except ImportError as e:  # websocket, jsonschema, jsonpatch: deploy/deps.sh installs them
    print("tests/faults: %s (run deploy/deps.sh; use /usr/bin/python3)" % e, file=sys.stderr)
    print("0 passed, 1 failed")
    sys.exit(1)


def modules():
    return sorted(os.path.basename(p)[:-3] for p in glob.glob(os.path.join(HERE, "test_*.py")))


def main(argv):
    names = argv or modules()
    faulthandler.dump_traceback_later(float(os.environ.get("CARC_FAULTS_TIMEOUT", "900")),
                                      exit=True)
    loader = unittest.TestLoader()
    suite = unittest.TestSuite(loader.loadTestsFromName(n) for n in names)
    t0 = time.monotonic()
    result = unittest.TextTestRunner(verbosity=2, stream=sys.stderr).run(suite)
    failed = len(result.failures) + len(result.errors) + len(result.unexpectedSuccesses)
    passed = result.testsRun - failed - len(result.skipped)
    status = h.stop_shared()
    if status is not None and status != 0:
        failed += 1
        print("FAIL: carcd exited with status %s after SIGTERM" % status, file=sys.stderr)
    print("faults: %d modules, %d skipped, %.1f s" % (len(names), len(result.skipped),
                                                      time.monotonic() - t0), file=sys.stderr)
    sys.stderr.flush()
    print("%d passed, %d failed" % (passed, failed), flush=True)
    return 0 if failed == 0 and passed > 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
