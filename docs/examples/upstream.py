#!/usr/bin/env python3
"""A stand-in for your API behind a gateway: it makes the one check an upstream owes Rampart, then echoes the request.

The check (docs/request-signature.md, "When the gateway cannot see the body"): when the request carries
Rampart-Verified-Digest, the body received must hash to it, byte for byte; otherwise the body was changed after the
gateway's check and the request is refused. Everything else the API trusts comes from Rampart-Subject and friends,
which the gateway set from Rampart's answer.

Usage: python3 upstream.py [PORT]   (0 or nothing: a free port; the port is printed on the first line of stdout)
"""
import base64
import hashlib
import hmac
import json
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def content_digest(body: bytes) -> str:
    return "sha-256=:" + base64.b64encode(hashlib.sha256(body).digest()).decode() + ":"


class Upstream(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def handle_any(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length > 0 else b""
        verified = self.headers.get("Rampart-Verified-Digest")
        # The one-line check.
        if verified is not None and not hmac.compare_digest(content_digest(body).encode(), verified.encode()):
            return self.answer(400, {"error": "digestMismatch",
                                     "message": "the body does not match the digest Rampart verified"})
        self.answer(200, {
            "method": self.command,
            "target": self.path,
            "headers": {name.lower(): value for name, value in self.headers.items()},
            "body": base64.b64encode(body).decode(),
            "bodyDigest": content_digest(body),
        })

    def answer(self, status, document):
        data = json.dumps(document, sort_keys=True).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = handle_any

    def log_message(self, format, *args):
        pass


if __name__ == "__main__":
    server = ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1]) if len(sys.argv) > 1 else 0), Upstream)
    print(server.server_address[1], flush=True)
    server.serve_forever()
