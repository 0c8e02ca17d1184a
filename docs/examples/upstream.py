#!/usr/bin/env python3
"""A stand-in for your API behind a gateway: it makes the one check an upstream owes Rampart, then echoes the request.

The check (docs/request-signature.md, "When the gateway cannot see the body"): when the request carries
Rampart-Verified-Digest, the body received must hash to it, byte for byte; otherwise the body was changed after the
gateway's check and the request is refused. Everything else the API trusts comes from Rampart-Subject and friends,
which the gateway set from Rampart's answer, read by their exact names: a header spelt with underscores
(Rampart_Key_Id) is another header, which the gateway drops and the API never reads as this one.

The body is read whole before the check, framed by Content-Length or, as Caddy forwards a body it streams, by
Transfer-Encoding: chunked (RFC 9112 7.1); otherwise the check would hash nothing and the unread bytes would be read
as the next request on the gateway's kept-alive connection. A body whose framing cannot be read is refused and the
connection closed.

Usage: python3 upstream.py [PORT]   (0 or nothing: a free port; the port is printed on the first line of stdout)
"""
import base64
import hashlib
import hmac
import json
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


MAXIMUM_BODY_BYTES = 1024 * 1024  # a DoS bound: larger bodies are refused (413) before they are read whole


class BadFraming(Exception):
    def __init__(self, status, message):
        super().__init__(message)
        self.status = status


def content_digest(body: bytes) -> str:
    return "sha-256=:" + base64.b64encode(hashlib.sha256(body).digest()).decode() + ":"


def read_chunked(stream) -> bytes:
    """A chunked body (RFC 9112 7.1): hex chunk sizes (extensions ignored), each chunk followed by CRLF, then a
    zero-size chunk, trailer fields (ignored) and an empty line."""
    body = bytearray()
    while True:
        line = stream.readline(1026)
        if not line.endswith(b"\r\n"):
            raise BadFraming(400, "a chunk size line without CRLF")
        size_text = line[:-2].split(b";", 1)[0].strip()
        if not size_text or any(c not in b"0123456789abcdefABCDEF" for c in size_text):
            raise BadFraming(400, "a chunk size that is not hexadecimal")
        size = int(size_text, 16)
        if size == 0:
            break
        if len(body) + size > MAXIMUM_BODY_BYTES:
            raise BadFraming(413, "the body is too large")
        chunk = stream.read(size)
        if len(chunk) != size or stream.read(2) != b"\r\n":
            raise BadFraming(400, "a chunk cut short or not followed by CRLF")
        body += chunk
    for _ in range(100):  # trailer fields, up to the empty line that ends the body
        line = stream.readline(8192)
        if line == b"\r\n":
            return bytes(body)
        if not line.endswith(b"\r\n"):
            break
    raise BadFraming(400, "the chunked body does not end with an empty line")


class Upstream(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def read_body(self) -> bytes:
        codings = self.headers.get_all("Transfer-Encoding") or []
        lengths = self.headers.get_all("Content-Length") or []
        if codings:
            # RFC 9112 6.1: chunked must be the final coding; with a Content-Length beside it, a request smuggler.
            if lengths or [c.strip().lower() for c in ",".join(codings).split(",")] != ["chunked"]:
                raise BadFraming(400, "only Transfer-Encoding: chunked, without Content-Length, is read")
            return read_chunked(self.rfile)
        if not lengths:
            return b""
        if len(lengths) != 1 or not lengths[0].strip().isdigit():
            raise BadFraming(400, "one Content-Length of digits")
        length = int(lengths[0])
        if length > MAXIMUM_BODY_BYTES:
            raise BadFraming(413, "the body is too large")
        body = self.rfile.read(length)
        if len(body) != length:
            raise BadFraming(400, "the body is shorter than its Content-Length")
        return body

    def handle_any(self):
        try:
            body = self.read_body()
        except BadFraming as error:
            self.close_connection = True
            return self.answer(error.status, {"error": "badFraming", "message": str(error)})
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
        if self.close_connection:
            self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(data)

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = handle_any

    def log_message(self, format, *args):
        pass


class Server(ThreadingHTTPServer):
    request_queue_size = 128  # the listen backlog: the default 5 drops connections a gateway opens in a burst


if __name__ == "__main__":
    server = Server(("127.0.0.1", int(sys.argv[1]) if len(sys.argv) > 1 else 0), Upstream)
    print(server.server_address[1], flush=True)
    server.serve_forever()
