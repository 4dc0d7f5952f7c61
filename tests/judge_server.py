"""A small deterministic OpenAI-compatible judge server for the tests: a real HTTP server on 127.0.0.1.

It answers one request at a time (``http.server.HTTPServer``, no threads), like a local llama.cpp server with one
slot. ``POST …/chat/completions`` answers ``{"score": s, "rationale": "judged <digest>"}`` where ``digest`` is a
SHA-256 of the request's messages and ``s`` is that digest modulo 4, so every run gives the same verdicts. Other
modes serve faulty responses (a truncated JSON body, a text/plain body, an empty ``choices`` list) or scripted
answers (a script returns the answer's text, a whole chat completion such as :func:`completion` with logprobs, or
``(status, body)``: an HTTP error, a transient 500 say). ``GET …/props`` serves ``props`` when given (llama.cpp's
server reports its context window there), else 404. Every chat request is recorded (path with query,
``Authorization`` header, body); with ``--log`` one JSON line per request is appended and flushed *before* the
answer is sent.

In a test (a thread)::

    with serve(mode="truncated") as server:
        url = server.url  # http://127.0.0.1:PORT/v1

As a process (prints the port on its first line, then serves until killed)::

    python tests/judge_server.py --log requests.jsonl --delay 0.2
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from typing import Any

#: What the server can serve.
MODES = ("judge", "truncated", "text", "empty-choices", "scripted")
#: A script: the request body -> the answer's text, a whole chat completion, or ``(status, body)`` (an HTTP error).
Script = Callable[[dict[str, Any]], str | dict[str, Any] | tuple[int, dict[str, Any]]]


def digest(body: dict[str, Any]) -> str:
    """12 hex digits identifying a request by its messages."""
    return hashlib.sha256(json.dumps(body.get("messages"), sort_keys=True).encode()).hexdigest()[:12]


def judge_content(body: dict[str, Any]) -> str:
    """The deterministic answer of a request."""
    key = digest(body)
    return json.dumps({"score": int(key, 16) % 4, "rationale": f"judged {key}"})


def completion(content: str, logprobs: dict[str, Any] | None = None) -> dict[str, Any]:
    """A chat completion carrying ``content`` (and the choice's ``logprobs``, OpenAI's shape, when given)."""
    choice = {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": content}}
    return {
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "created": 0,
        "model": "test-judge",
        "system_fingerprint": "fp_test_server",
        "choices": [{**choice, "logprobs": logprobs} if logprobs is not None else choice],
    }


class JudgeServer(HTTPServer):
    """The server and what it recorded."""

    def __init__(
        self,
        mode: str = "judge",
        delay: float = 0.0,
        log: Path | None = None,
        script: Script | None = None,
        props: dict[str, Any] | None = None,
    ) -> None:
        if mode not in MODES:
            raise ValueError(f"mode must be one of {MODES}, got {mode!r}")
        super().__init__(("127.0.0.1", 0), Handler)
        self.mode, self.delay, self.log, self.script, self.props = mode, delay, log, script, props
        self.requests: list[dict[str, Any]] = []
        self.props_requests = 0

    @property
    def url(self) -> str:
        """The base URL (``http://127.0.0.1:PORT/v1``)."""
        return f"http://127.0.0.1:{self.server_address[1]}/v1"

    def record(self, entry: dict[str, Any]) -> None:
        self.requests.append(entry)
        if self.log is not None:
            with self.log.open("a", encoding="utf-8") as handle:
                handle.write(json.dumps(entry) + "\n")
                handle.flush()


class Handler(BaseHTTPRequestHandler):
    """Serves one request; ``self.server`` is the :class:`JudgeServer`."""

    server: JudgeServer

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet."""

    def _send(self, status: int, body: bytes, content_type: str = "application/json") -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:
        """``/props``: the server's ``props`` (404 without); any other path: ``/v1/models``, one model."""
        if self.path.split("?")[0].endswith("/props"):
            self.server.props_requests += 1
            props = self.server.props
            status, body = (200, props) if props is not None else (404, {"error": {"message": "File Not Found"}})
            self._send(status, json.dumps(body).encode())
            return
        self._send(200, json.dumps({"object": "list", "data": [{"id": "test-judge", "object": "model"}]}).encode())

    def do_POST(self) -> None:
        """A chat completion in the server's mode."""
        length = int(self.headers.get("Content-Length", 0))
        body = json.loads(self.rfile.read(length) or b"{}")
        server = self.server
        server.record(
            {
                "path": self.path,
                "authorization": self.headers.get("Authorization"),
                "digest": digest(body),
                "body": body,
            }
        )
        if server.delay:
            time.sleep(server.delay)
        if server.mode == "truncated":
            self._send(200, json.dumps(completion('{"score": 2, "rationale": "x"}')).encode()[:57])
        elif server.mode == "text":
            self._send(200, b"upstream proxy error: model is loading", "text/plain")
        elif server.mode == "empty-choices":
            self._send(200, json.dumps({**completion(""), "choices": []}).encode())
        else:
            answer = server.script(body) if server.script is not None else judge_content(body)
            if isinstance(answer, tuple):  # (status, body): an HTTP error
                self._send(answer[0], json.dumps(answer[1]).encode())
                return
            self._send(200, json.dumps(answer if isinstance(answer, dict) else completion(answer)).encode())


@contextmanager
def serve(
    mode: str = "judge", delay: float = 0.0, script: Script | None = None, props: dict[str, Any] | None = None
) -> Iterator[JudgeServer]:
    """A :class:`JudgeServer` serving in a background thread for the ``with`` block."""
    server = JudgeServer(mode, delay, script=script, props=props)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


def main(argv: list[str] | None = None) -> None:
    """Serve until killed; print the port first."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mode", choices=MODES[:-1], default="judge")
    parser.add_argument("--delay", type=float, default=0.0, help="seconds before each answer")
    parser.add_argument("--log", type=Path, default=None, help="append one JSON line per request")
    args = parser.parse_args(argv)
    server = JudgeServer(args.mode, args.delay, args.log)
    sys.stdout.write(f"{server.server_address[1]}\n")
    sys.stdout.flush()
    server.serve_forever()


if __name__ == "__main__":
    main()
