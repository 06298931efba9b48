"""A fixed-latency OpenAI-compatible server for throughput benches and tests.

``POST /v1/chat/completions`` answers every request after ``latency`` seconds with a valid
DREAM reply ``{"label": 0|1, "argument": ..., "evidence": []}`` in a chat.completions
response with usage tokens, however many requests are in flight. The label is a function
of the request's messages only (a SHA-256 of their roles and contents), so a debate run one
call at a time and the same debate run concurrently get the same labels. ``GET /v1/models``
names the model with vLLM's ``max_model_len``. ``GET /counters`` gives the requests
answered, the most in flight at once, and how many requests repeated an earlier one (same
messages); ``?arrivals=1`` adds each request's arrival time (Unix seconds). ``POST
/control`` with ``{"latency": s}`` changes the latency, ``{"reset": true}`` zeroes the
counters, and ``{"hold": true}`` holds every request (counted in flight) before its latency
until ``{"hold": false}``: tests use it to have a known set of requests in flight at once
whatever the machine's speed.

Run it: ``python bench/latency_server.py --port 8711 --latency 0.5``; or from Python,
:class:`LatencyServer` starts it in a subprocess on a free port (tests and benches).
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

MODEL = "latency-model"
MAX_MODEL_LEN = 8192


def reply_for(messages: list[dict[str, Any]]) -> tuple[str, str]:
    """``(digest, reply text)`` for a request's messages: the label is the digest's first
    byte modulo 2."""
    digest = hashlib.sha256(
        "\x00".join(f"{m.get('role')}\x01{m.get('content')}" for m in messages).encode()
    ).hexdigest()
    label = int(digest[:2], 16) % 2
    text = json.dumps(
        {"label": label, "argument": f"deterministic reply {digest[:12]}", "evidence": []}
    )
    return digest, text


def completion_body(body: dict[str, Any], digest: str, text: str) -> dict[str, Any]:
    """The OpenAI chat-completion JSON answering ``body`` with ``text`` (about 4 characters a
    prompt token, 20 completion tokens)."""
    prompt_tokens = sum(len(str(m.get("content", ""))) // 4 for m in body["messages"])
    return {
        "id": f"chatcmpl-{digest[:16]}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": body.get("model") or MODEL,
        "choices": [
            {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}
        ],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": 20,
            "total_tokens": prompt_tokens + 20,
        },
    }


def build_app(latency: float):
    """The starlette app; its state lives in the closure (one process)."""
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import JSONResponse
    from starlette.routing import Route

    state: dict[str, Any] = {"latency": latency}
    counters = {"requests": 0, "in_flight": 0, "peak_in_flight": 0, "repeated": 0}
    seen: set[str] = set()
    arrivals: list[float] = []
    released = asyncio.Event()  # cleared while requests are held (POST /control "hold")
    released.set()

    async def chat(request: Request) -> JSONResponse:
        body = await request.json()
        arrivals.append(time.time())
        counters["in_flight"] += 1
        counters["peak_in_flight"] = max(counters["peak_in_flight"], counters["in_flight"])
        try:
            await released.wait()
            await asyncio.sleep(state["latency"])
            digest, text = reply_for(body.get("messages") or [])
            counters["requests"] += 1
            if digest in seen:
                counters["repeated"] += 1
            seen.add(digest)
        finally:
            counters["in_flight"] -= 1
        return JSONResponse(completion_body(body, digest, text))

    async def models(request: Request) -> JSONResponse:
        return JSONResponse(
            {
                "object": "list",
                "data": [{"id": MODEL, "object": "model", "max_model_len": MAX_MODEL_LEN}],
            }
        )

    async def read_counters(request: Request) -> JSONResponse:
        extra = {"arrivals": arrivals} if request.query_params.get("arrivals") else {}
        return JSONResponse({**counters, "latency": state["latency"], **extra})

    async def control(request: Request) -> JSONResponse:
        body = await request.json()
        if "latency" in body:
            state["latency"] = float(body["latency"])
        if "hold" in body:
            released.clear() if body["hold"] else released.set()
        if body.get("reset"):
            counters.update(requests=0, peak_in_flight=counters["in_flight"], repeated=0)
            seen.clear()
            arrivals.clear()
        return JSONResponse({**counters, "latency": state["latency"]})

    return Starlette(
        routes=[
            Route("/v1/chat/completions", chat, methods=["POST"]),
            Route("/v1/models", models, methods=["GET"]),
            Route("/counters", read_counters, methods=["GET"]),
            Route("/control", control, methods=["POST"]),
        ]
    )


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class LatencyServer:
    """This server in a subprocess on 127.0.0.1 (a free port); a context manager.

    ``url`` is the base URL to give an OpenAI client (ends in ``/v1``).
    """

    def __init__(self, latency: float = 0.5, *, log: Path | None = None) -> None:
        self.latency, self.port, self.log = latency, _free_port(), log
        self.process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self, timeout: float = 30.0) -> LatencyServer:
        out = self.log.open("ab") if self.log else subprocess.DEVNULL
        self.process = subprocess.Popen(
            [sys.executable, __file__, "--port", str(self.port), "--latency", str(self.latency)],
            stdout=out,
            stderr=subprocess.STDOUT,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
        deadline = time.monotonic() + timeout
        while True:
            try:
                self.counters()
                return self
            except OSError:
                if self.process.poll() is not None or time.monotonic() > deadline:
                    self.stop()
                    raise RuntimeError("the latency server did not start") from None
                time.sleep(0.1)

    def _post(self, path: str, payload: dict[str, Any]) -> dict[str, Any]:
        request = urllib.request.Request(
            f"http://127.0.0.1:{self.port}{path}",
            data=json.dumps(payload).encode(),
            headers={"Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=10) as response:  # noqa: S310
            return json.loads(response.read())

    def counters(self, *, arrivals: bool = False) -> dict[str, Any]:
        """``{"requests", "in_flight", "peak_in_flight", "repeated", "latency"}``, plus
        ``"arrivals"`` (Unix seconds of each request's arrival) when asked."""
        url = f"http://127.0.0.1:{self.port}/counters" + ("?arrivals=1" if arrivals else "")
        with urllib.request.urlopen(url, timeout=10) as response:  # noqa: S310
            return json.loads(response.read())

    def reset(self, *, latency: float | None = None) -> dict[str, Any]:
        """Zero the counters (and set a new latency in seconds, when given)."""
        payload: dict[str, Any] = {"reset": True}
        if latency is not None:
            payload["latency"] = latency
        return self._post("/control", payload)

    def hold(self, on: bool) -> dict[str, Any]:
        """Hold every request from now on (``on``), counted in flight and unanswered, or let
        the held ones and every later one through (their latency starts then)."""
        return self._post("/control", {"hold": on})

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)

    def __enter__(self) -> LatencyServer:
        return self.start() if self.process is None else self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=8711)
    parser.add_argument("--latency", type=float, default=0.5, help="seconds per request")
    args = parser.parse_args()
    import uvicorn

    uvicorn.run(
        build_app(args.latency),
        host="127.0.0.1",
        port=args.port,
        log_level="warning",
        access_log=False,
        backlog=4096,
    )


if __name__ == "__main__":
    main()
