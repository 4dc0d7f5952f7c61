"""llama.cpp's own HTTP server (``llama-server``, C++) on 127.0.0.1, from the prebuilt ``xllamacpp`` wheel.

The judge tier (``tests/test_summary_eval_llm.py``, ``make test-llm``) talks to a real model behind a real
OpenAI-compatible server. ``xllamacpp`` is a registry wheel with llama.cpp's server compiled in, so this server
needs no compile step on a fresh machine (llama-cpp-python, the tier's other server, is built from source once per
machine). Run as a script, it serves until it is terminated:

    python tests/llama_server.py MODEL.gguf PORT ALIAS

One slot, two threads, a 4,096-token context and sampling seed 0, like the llama-cpp-python server of the tier.
"""

from __future__ import annotations

import signal
import sys
import threading


def main(argv: list[str]) -> None:
    """Start the server on 127.0.0.1:PORT with MODEL under ALIAS and block until SIGTERM or SIGINT."""
    import xllamacpp

    model, port, alias = argv
    params = xllamacpp.CommonParams()
    params.model.path = model
    params.model_alias = {alias}
    params.hostnames = ["127.0.0.1"]
    params.port = int(port)
    params.n_ctx = 4096
    params.n_parallel = 1
    params.cpuparams.n_threads = 2
    params.cpuparams_batch.n_threads = 2
    params.sampling.seed = 0
    server = xllamacpp.Server(params)  # listens from here on, in the server's own threads
    stop = threading.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: stop.set())
    stop.wait()
    del server


if __name__ == "__main__":
    main(sys.argv[1:])
