"""A webhook receiver for trying DREAM Assess's job callbacks: prints each event and whether
its signature verifies. Standard library only.

    DREAM_WEBHOOK_SECRET=<your secret from /account/tokens/> python3 webhook_receiver.py 9000

Every POST is answered 200; the signature is ``X-Dream-Signature: sha256=<hex>``, the
HMAC-SHA256 of ``<X-Dream-Timestamp>.<body>`` under your secret.
"""

import hashlib
import hmac
import os
import sys
from http.server import BaseHTTPRequestHandler, HTTPServer

SECRET = os.environ.get("DREAM_WEBHOOK_SECRET", "").encode()


class Receiver(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        message = self.headers.get("X-Dream-Timestamp", "").encode() + b"." + body
        expected = "sha256=" + hmac.new(SECRET, message, hashlib.sha256).hexdigest()
        valid = hmac.compare_digest(expected, self.headers.get("X-Dream-Signature", ""))
        print(self.headers.get("X-Dream-Event"), "signature ok" if valid else "BAD SIGNATURE")
        print(body.decode(), flush=True)
        self.send_response(200)
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


if __name__ == "__main__":
    port = int(sys.argv[1]) if len(sys.argv) > 1 else 9000
    HTTPServer(("127.0.0.1", port), Receiver).serve_forever()
