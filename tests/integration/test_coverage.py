"""Loaded last by run.py: every code of common/err.h was provoked over the wire by the other
modules, or is listed in test_errors.NOT_ON_THE_WIRE with the reason."""

import unittest

import test_abuse
import test_conformance
import test_errors


class Coverage(unittest.TestCase):
    def test_every_error_code(self):
        seen = test_errors.SEEN | test_abuse.SEEN | test_conformance.SEEN
        missing = [c for c in test_errors.table_codes()
                   if c not in seen and c not in test_errors.NOT_ON_THE_WIRE]
        self.assertEqual(missing, [], "error codes never provoked over the wire")
        self.assertFalse(set(test_errors.NOT_ON_THE_WIRE) & seen,
                         "a code listed as impossible over the wire was seen")


if __name__ == "__main__":
    unittest.main()
