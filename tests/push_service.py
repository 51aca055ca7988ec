#!/usr/bin/env python3
"""tests/push_service.py: a local Web Push service for the tests (RFC 8030, 8291, 8292).

Usage: push_service.py CERT KEY LOG. Listens over HTTPS on 127.0.0.1, port 0, and prints one
line: "PORT P256DH AUTH", the keys (base64url) of the one subscription it holds, as a browser's
PushSubscription would give them; its endpoints are https://127.0.0.1:PORT/push/NAME.

A POST to /hook/NAME is a webhook's (a chat service's): logged as {"path", "content_type",
"body"} and answered 204 (404 for NAME "gone"). Every other POST is checked as a push service
does and written as one JSON line to LOG:
  {"path", "ttl", "urgency", "encoding", "vapid": "ok" or why not, "aud", "sub", "exp",
   "key" (the k= of the Authorization header), "payload" (the decrypted text, or null),
   "error" (why it did not decrypt, or null)}
then answered by its path's NAME: "gone" 410, "missing" 404, "busy" 429 with Retry-After: 3,
"broken" 500, anything else 201 when the VAPID token verified and the body decrypted, else 400
(body) or 403 (token).

Needs python3-cryptography (deploy/deps.sh, test list).
"""
import base64
import http.server
import json
import os
import ssl
import sys
import threading
import time

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF


def b64d(s):
    return base64.urlsafe_b64decode(s + "=" * (-len(s) % 4))


def b64e(b):
    return base64.urlsafe_b64encode(b).rstrip(b"=").decode()


UA = ec.generate_private_key(ec.SECP256R1())
UA_PUB = UA.public_key().public_bytes(serialization.Encoding.X962,
                                      serialization.PublicFormat.UncompressedPoint)
AUTH = os.urandom(16)
LOCK = threading.Lock()


def hkdf(salt, ikm, info, n):
    return HKDF(algorithm=hashes.SHA256(), length=n, salt=salt, info=info).derive(ikm)


def decrypt(body):
    """RFC 8291 3.4 and RFC 8188, one record; the plaintext, or raises."""
    salt, rs, idlen = body[:16], int.from_bytes(body[16:20], "big"), body[20]
    if idlen != 65 or rs < 18:
        raise ValueError("bad header: idlen %d rs %d" % (idlen, rs))
    as_pub = body[21:86]
    ct = body[86:]
    if len(ct) > rs:
        raise ValueError("more than one record")
    peer = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), as_pub)
    secret = UA.exchange(ec.ECDH(), peer)
    ikm = hkdf(AUTH, secret, b"WebPush: info\x00" + UA_PUB + as_pub, 32)
    cek = hkdf(salt, ikm, b"Content-Encoding: aes128gcm\x00", 16)
    nonce = hkdf(salt, ikm, b"Content-Encoding: nonce\x00", 12)
    plain = AESGCM(cek).decrypt(nonce, ct, None).rstrip(b"\x00")
    if not plain.endswith(b"\x02"):
        raise ValueError("no last-record delimiter")
    return plain[:-1].decode("utf-8")


def vapid(header, origin):
    """(why not or "ok", claims, key) of an Authorization header."""
    if not header.startswith("vapid "):
        return "no vapid scheme", {}, None
    parts = dict(p.strip().split("=", 1) for p in header[6:].split(","))
    token, key = parts.get("t"), parts.get("k")
    if not token or not key:
        return "t= or k= missing", {}, key
    h, c, s = token.split(".")
    head, claims = json.loads(b64d(h)), json.loads(b64d(c))
    if head != {"typ": "JWT", "alg": "ES256"}:
        return "header %r" % head, claims, key
    pub = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), b64d(key))
    sig = b64d(s)
    if len(sig) != 64:
        return "signature of %d bytes" % len(sig), claims, key
    der = encode_dss_signature(int.from_bytes(sig[:32], "big"), int.from_bytes(sig[32:], "big"))
    try:
        pub.verify(der, (h + "." + c).encode(), ec.ECDSA(hashes.SHA256()))
    except Exception:
        return "signature does not verify", claims, key
    now = time.time()
    if claims.get("aud") != origin:
        return "aud %r, not %r" % (claims.get("aud"), origin), claims, key
    if not (now < claims.get("exp", 0) <= now + 24 * 3600):
        return "exp %r out of range" % claims.get("exp"), claims, key
    sub = claims.get("sub", "")
    if not (sub.startswith("mailto:") or sub.startswith("https:")):
        return "sub %r" % sub, claims, key
    return "ok", claims, key


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def answer(self, status, extra=()):
        self.send_response(status)
        for k, v in extra:
            self.send_header(k, v)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        origin = "https://127.0.0.1:%d" % self.server.server_address[1]
        if self.path.startswith("/hook/"):  # a webhook (a chat service's), not a push
            rec = {"path": self.path, "content_type": self.headers.get("Content-Type"),
                   "body": body.decode("utf-8", "replace")}
            with LOCK, open(self.server.log, "a") as f:
                f.write(json.dumps(rec) + "\n")
            name = self.path.rsplit("/", 1)[-1]
            self.answer(404 if name == "gone" else 204)
            return
        why, claims, key = vapid(self.headers.get("Authorization", ""), origin)
        payload, error = None, None
        try:
            payload = decrypt(body)
        except Exception as e:  # noqa: BLE001 - any failure is the test's finding
            error = "%s: %s" % (type(e).__name__, e)
        rec = {"path": self.path, "ttl": self.headers.get("TTL"),
               "urgency": self.headers.get("Urgency"),
               "encoding": self.headers.get("Content-Encoding"), "vapid": why,
               "aud": claims.get("aud"), "sub": claims.get("sub"), "exp": claims.get("exp"),
               "key": key, "payload": payload, "error": error}
        with LOCK, open(self.server.log, "a") as f:
            f.write(json.dumps(rec) + "\n")
        name = self.path.rsplit("/", 1)[-1]
        if name == "gone":
            self.answer(410)
        elif name == "missing":
            self.answer(404)
        elif name == "busy":
            self.answer(429, [("Retry-After", "3")])
        elif name == "broken":
            self.answer(500)
        elif why != "ok":
            self.answer(403)
        elif error is not None:
            self.answer(400)
        else:
            self.answer(201, [("Location", origin + "/message/1")])


def main():
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(sys.argv[1], sys.argv[2])
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    srv.daemon_threads = True
    srv.log = sys.argv[3]
    srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
    print(srv.server_address[1], b64e(UA_PUB), b64e(AUTH), flush=True)
    srv.serve_forever()


if __name__ == "__main__":
    main()
