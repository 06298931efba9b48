"""A recording proxy in front of the real llama.cpp server (``tests.llm_fixtures``).

Import explicitly::

    from tests.recording_proxy_fixtures import recording_proxy_fixture  # noqa: F401
    from tests.llm_fixtures import llama_server  # noqa: F401

It records every request's method, path, ``Authorization`` header and answer status, and
can act as other OpenAI-compatible servers do:

- ``models_extra``: fields merged into every entry of ``GET /v1/models`` (e.g. vLLM's
  ``{"max_model_len": 2048}``; llama-cpp-python's server reports no context there);
- ``reject_next_as_too_long(n)``: answer the next n chat requests with HTTP 400
  ``context_length_exceeded`` without stating the maximum (as some servers word it).
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from .llm_fixtures import forward

TOO_LONG = {
    "error": {
        "message": "prompt is too long for this model",
        "type": "invalid_request_error",
        "code": "context_length_exceeded",
    }
}


@dataclass
class RecordingProxy:
    upstream: str  # http://127.0.0.1:port (no /v1)
    base_url: str = ""  # the proxy's /v1 URL, for clients
    models_extra: dict[str, Any] = field(default_factory=dict)
    requests: list[dict[str, Any]] = field(default_factory=list)
    too_long: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def reject_next_as_too_long(self, times: int = 1) -> None:
        with self.lock:
            self.too_long += times

    def chat_requests(self) -> list[dict[str, Any]]:
        """The recorded POSTs to ``/v1/chat/completions``."""
        return [r for r in self.requests if r["path"].endswith("/chat/completions")]


def _handler(proxy: RecordingProxy):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: Any) -> None:
            pass

        def _reply(self, status: int, body: bytes, ctype: str = "application/json") -> None:
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def _handle(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            record = {
                "method": self.command,
                "path": self.path,
                "authorization": self.headers.get("Authorization"),
            }
            with proxy.lock:
                proxy.requests.append(record)
                reject = proxy.too_long > 0 and self.path.endswith("/chat/completions")
                if reject:
                    proxy.too_long -= 1
            if reject:
                record["status"] = 400
                self._reply(400, json.dumps(TOO_LONG).encode())
                return
            status, payload, ctype = forward(proxy.upstream, self, body)
            if status == 200 and self.path.rstrip("/").endswith("/v1/models"):
                listing = json.loads(payload)
                for entry in listing.get("data", []):
                    entry.update(proxy.models_extra)
                payload = json.dumps(listing).encode()
            record["status"] = status
            self._reply(status, payload, ctype)

        do_GET = do_POST = _handle

    return Handler


@pytest.fixture(name="recording_proxy")
def recording_proxy_fixture(llama_server):
    """A :class:`RecordingProxy` on 127.0.0.1 in front of the real llama.cpp server."""
    proxy = RecordingProxy(upstream=llama_server.base_url.removesuffix("/v1"))
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(proxy))
    server.daemon_threads = True
    proxy.base_url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield proxy
    server.shutdown()
    server.server_close()
