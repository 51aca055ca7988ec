"""HTTP over the wire: HEAD for every GET route, static files compressed (gzip) for clients that
accept it, with an ETag that gives 304 on revalidation."""

import gzip
import http.client
import unittest

import harness as h


def request(srv, method, path, headers=None):
    c = http.client.HTTPConnection(srv.host, srv.port, timeout=10)
    try:
        c.request(method, path, headers=headers or {})
        r = c.getresponse()
        return r.status, {k.lower(): v for k, v in r.getheaders()}, r.read()
    finally:
        c.close()


class Http(unittest.TestCase):
    def test_head_is_get_without_the_body(self):
        srv = h.shared()
        for path in ("/", "/js/main.js", "/api/rooms", "/api/tiles", "/healthz"):
            gs, gh, gb = request(srv, "GET", path)
            hs, hh, hb = request(srv, "HEAD", path)
            self.assertEqual((hs, gs), (200, 200), path)
            self.assertEqual(hb, b"", path)
            self.assertEqual(hh.get("content-length"), str(len(gb)), path)
        self.assertEqual(request(srv, "HEAD", "/nope.html")[0], 404)

    def test_gzip_and_etag(self):
        srv = h.shared()
        s, plain_h, plain = request(srv, "GET", "/js/main.js")
        self.assertEqual(s, 200)
        self.assertNotIn("content-encoding", plain_h)
        s, gz_h, gz = request(srv, "GET", "/js/main.js", {"Accept-Encoding": "gzip, deflate"})
        self.assertEqual(s, 200)
        self.assertEqual(gz_h.get("content-encoding"), "gzip")
        self.assertEqual(gz_h.get("vary"), "accept-encoding")
        self.assertLess(len(gz), len(plain))
        self.assertEqual(gzip.decompress(gz), plain)
        etag = plain_h.get("etag")
        self.assertTrue(etag and etag.startswith('"'), plain_h)
        self.assertEqual(gz_h.get("etag"), etag)
        s, _, body = request(srv, "GET", "/js/main.js", {"If-None-Match": etag})
        self.assertEqual((s, body), (304, b""))


if __name__ == "__main__":
    unittest.main()
