#!/usr/bin/env python3
"""tests/outbound_server.py: a small HTTPS endpoint for tests/test_outbound.c.

Usage: outbound_server.py CERT KEY. Listens on 127.0.0.1, port 0, prints the port on its first
line of stdout, then answers POSTs until killed:

  /status/NNN   NNN with a JSON body: the request's length, its body and its headers
  /retry        429 with Retry-After: 7
  /big          200 with 10000 bytes of "x"
  /slow         waits 30 s, then 200 (for timeouts and closes)
"""
import http.server
import json
import ssl
import sys
import time


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def answer(self, status, body, extra=()):
        self.send_response(status)
        for k, v in extra:
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self):
        n = int(self.headers.get("Content-Length", "0"))
        data = self.rfile.read(n)
        if self.path.startswith("/status/"):
            status = int(self.path[8:])
            echo = {"length": n, "body": data.decode("latin-1"),
                    "headers": {k.lower(): v for k, v in self.headers.items()}}
            self.answer(status, json.dumps(echo).encode())
        elif self.path == "/retry":
            self.answer(429, b"slow down", [("Retry-After", "7")])
        elif self.path == "/big":
            self.answer(200, b"x" * 10000)
        elif self.path == "/slow":
            time.sleep(30)
            self.answer(200, b"late")
        else:
            self.answer(404, b"no such path")


def main():
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(sys.argv[1], sys.argv[2])
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    srv.daemon_threads = True
    srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
    print(srv.server_address[1], flush=True)
    srv.serve_forever()


if __name__ == "__main__":
    main()
