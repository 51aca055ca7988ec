#!/usr/bin/env python3
"""tests/smtp_sink.py: a local SMTP sink (Debian's python3-aiosmtpd) for the e-mail tests.

Usage: smtp_sink.py CERT KEY DIR. Listens on 127.0.0.1 on a free port (STARTTLS offered with CERT
and KEY, not required), prints the port, and writes every message it accepts to DIR/N.eml (N from
1), its envelope to DIR/N.env ("FROM TO... tls|plain" on one line). A recipient whose address
starts with "refuse" is refused with 550.
"""
import os
import socket
import ssl
import sys
import threading

from aiosmtpd.controller import Controller


class Sink:
    def __init__(self, folder):
        self.folder = folder
        self.n = 0
        self.lock = threading.Lock()

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        if address.startswith("refuse"):
            return "550 no such mailbox"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):
        with self.lock:
            self.n += 1
            base = os.path.join(self.folder, str(self.n))
        with open(base + ".eml.tmp", "wb") as f:
            f.write(envelope.original_content or envelope.content)
        with open(base + ".env", "w") as f:
            tls = "tls" if session.ssl is not None else "plain"
            f.write(" ".join([envelope.mail_from] + envelope.rcpt_tos + [tls]) + "\n")
        os.rename(base + ".eml.tmp", base + ".eml")
        return "250 Message accepted"


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def main():
    port = free_port()
    ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ctx.load_cert_chain(sys.argv[1], sys.argv[2])
    c = Controller(Sink(sys.argv[3]), hostname="127.0.0.1", port=port, tls_context=ctx,
                   require_starttls=False)
    c.start()
    print(port, flush=True)
    threading.Event().wait()


if __name__ == "__main__":
    main()
