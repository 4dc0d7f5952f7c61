"""The judge's robustness (issue 35): transient server errors, prompts beyond the context window, option ranges.

Every judge here talks to the real 127.0.0.1 server of ``tests/judge_server.py`` (no other network):

1. A transient HTTP 5xx is retried by the SDK in the same format and never counts as the server refusing the
   format; only a refusal (an HTTP 400/422, or a 5xx naming the format) drops it. Cache and results-file keys hold
   the format the answer was given in, never ``auto``; answers stored under the old ``auto`` keys are read only
   where their recorded format is the one asked for.
2. A prompt estimated above the model's context window (``context_tokens``, else the n_ctx a llama.cpp server
   reports at ``/props``, else 128,000) is sent whole, with one warning naming the item, the estimate and the remedy.
3. ``max_retries``, ``max_tokens``, ``top_logprobs``, ``concurrency`` (and ``timeout``, ``context_tokens``) have
   upper bounds: a ValueError naming the option and its range, from Python and, in one line with exit status 2,
   from the CLI.

See docs/summary_eval.md §5.
"""

from __future__ import annotations

import json
import re
import warnings
from pathlib import Path
from typing import Any

import pytest
from judge_server import judge_content, serve

from persona_metrics import PersonaMetricsWarning
from persona_metrics.cli import main
from persona_metrics.summary_eval import Judge, JudgeError, JudgeOptions
from persona_metrics.summary_eval.judge_cache import JudgeCache
from persona_metrics.summary_eval.results_log import ResultsLog

SUMMARIES = ["Quarry Steel raised its dividend.", "Harlow Foods will close bakeries.", "The museum drew more visitors."]
SOURCES = [
    "Quarry Steel raised its dividend by ten percent.",
    "Harlow Foods will close 12 of its 40 bakeries by March.",
    "The Tallis Museum drew 310,000 visitors last year, up from 250,000.",
]
#: A transient fault: a 5xx whose message does not name the response format.
TRANSIENT = {"error": {"message": "upstream connection reset by peer", "type": "server_error"}}


def make_judge(url: str, **options: Any) -> Judge:
    options.setdefault("max_retries", 0)
    return Judge("m", base_url=url, api_key="none", **options)


def failing_first(*faults: tuple[int, dict[str, Any]]) -> Any:
    """A server script answering the first requests with ``faults``, then as the deterministic judge."""
    left = list(faults)

    def script(body: dict[str, Any]) -> Any:
        return left.pop(0) if left else judge_content(body)

    return script


def format_warnings(caught: list[warnings.WarningMessage]) -> list[str]:
    return [str(w.message) for w in caught if "response_format" in str(w.message)]


# --------------------------------------------------------------------------- 1. transient errors and keys


def test_a_transient_500_on_the_first_request_keeps_json_schema_and_keys_answers_by_it(tmp_path: Path) -> None:
    """The first request answers HTTP 500 once; the SDK retries it (max_retries=1) in json_schema, the run stays
    there for every item, and cache files and results rows are keyed by json_schema, not auto."""
    with serve("scripted", script=failing_first((500, TRANSIENT))) as server:
        judge = make_judge(server.url, max_retries=1, concurrency=2, cache_dir=tmp_path / "cache")
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            verdicts = judge.judge_many(SUMMARIES, SOURCES)
    assert format_warnings(caught) == []
    assert [r["body"]["response_format"]["type"] for r in server.requests] == ["json_schema"] * 4  # 1 retried + 3
    assert judge.current_format == "json_schema"
    assert judge.formats_used == {"json_schema"}
    assert "format:auto=json_schema" in str(judge.signature())
    schema_judge = make_judge(server.url, response_format="json_schema")
    for summary, source, verdict in zip(SUMMARIES, SOURCES, verdicts, strict=True):
        assert verdict.status == "json"
        assert verdict.answer is not None
        assert verdict.answer["format"] == "json_schema"
        assert verdict.key == schema_judge.request_key(summary, source)  # the format used, not the option auto
        stored = json.loads((tmp_path / "cache" / f"{verdict.key}.json").read_text(encoding="utf-8"))
        assert stored["format"] == "json_schema"
    assert sorted(p.stem for p in (tmp_path / "cache").glob("*.json")) == sorted(str(v.key) for v in verdicts)
    log = ResultsLog(tmp_path / "results.jsonl")
    for i, verdict in enumerate(verdicts):
        log.append({"item": i, **verdict.record()})
    log.close()
    assert set(log.answers()) == {schema_judge.request_key(s, t) for s, t in zip(SUMMARIES, SOURCES, strict=True)}


@pytest.mark.parametrize(
    ("status", "message"),
    [
        (500, "upstream connection reset by peer"),
        (502, "Bad Gateway"),
        (503, "Loading model"),  # llama.cpp's server while the model loads
    ],
)
def test_a_transient_5xx_after_the_retries_is_a_judge_error_and_never_drops_the_format(
    status: int, message: str
) -> None:
    """With the retries spent (max_retries=0) the item fails with a JudgeError naming the status and max_retries=;
    the format stays json_schema for the next item. A 500 naming the format is still a refusal: dropped."""
    fault = (status, {"error": {"message": message, "type": "server_error"}})
    with serve("scripted", script=failing_first(fault)) as server:
        judge = make_judge(server.url)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with pytest.raises(JudgeError, match=rf"HTTP {status} after 0 retries in response_format='json_schema'"):
                judge.judge(SUMMARIES[0], SOURCES[0])
            assert judge.current_format == "json_schema"
            assert judge.judge(SUMMARIES[1], SOURCES[1]).status == "json"
        assert format_warnings(caught) == []
        assert [r["body"]["response_format"]["type"] for r in server.requests] == ["json_schema"] * 2
    refusal = (500, {"error": {"message": "Input should be 'text' or 'json_object' (response_format.type)"}})
    with serve("scripted", script=failing_first(refusal)) as server:
        judge = make_judge(server.url)
        with pytest.warns(PersonaMetricsWarning, match="rejected response_format='json_schema'"):
            assert judge.judge(SUMMARIES[0], SOURCES[0]).status == "json"
    assert judge.current_format == "json_object"
    assert [r["body"]["response_format"]["type"] for r in server.requests] == ["json_schema", "json_object"]


def test_a_context_error_before_the_first_answer_is_not_a_refusal_of_the_format() -> None:
    """llama.cpp answers a too-long prompt with HTTP 400: a JudgeError at once, not json_schema, json_object and none
    tried in turn with the run left in the last one."""
    too_long = (400, {"error": {"message": "the request exceeds the available context size, try increasing it"}})
    with serve("scripted", script=failing_first(too_long)) as server:
        judge = make_judge(server.url, context_tokens=10**6)
        with pytest.raises(JudgeError, match="exceeds the available context size"):
            judge.judge(SUMMARIES[0], SOURCES[0])
        assert len(server.requests) == 1
        assert judge.current_format == "json_schema"
        assert judge.judge(SUMMARIES[1], SOURCES[1]).answer["format"] == "json_schema"  # type: ignore[index]


def legacy_key(judge: Judge, summary: str, source: str) -> str:
    """The key the request had when keys held the option ``auto`` (docs/summary_eval.md §5, Cache)."""
    request = {
        "model": judge.model,
        "messages": judge.prompt.messages(summary, source),
        "temperature": 0.0,
        "max_tokens": 200,
        "seed": 0,
    }
    return JudgeCache.key(
        {"base_url": judge.endpoint_digest, "prompt": judge.prompt.version, "format": "auto", **request}
    )


def test_answers_under_the_old_auto_keys_are_read_only_in_the_format_they_record(tmp_path: Path) -> None:
    """A cache entry or results row written under the ``auto`` key is reused when its answer was given in the
    format asked for now, and asked again when it was given in another (json_object, say)."""
    cache = JudgeCache(tmp_path / "cache")
    with serve() as server:
        judge = make_judge(server.url, cache_dir=tmp_path / "cache")
        old = legacy_key(judge, SUMMARIES[0], SOURCES[0])
        assert old != judge.request_key(SUMMARIES[0], SOURCES[0])
        answer = {"content": '{"score": 2, "rationale": "old"}', "logprobs": None, "system_fingerprint": None}
        cache.put(old, {**answer, "model": "m", "format": "json_schema"})
        other = legacy_key(judge, SUMMARIES[1], SOURCES[1])
        cache.put(other, {**answer, "model": "m", "format": "json_object"})
        known = {legacy_key(judge, SUMMARIES[2], SOURCES[2]): {**answer, "format": "none"}}
        judge = make_judge(server.url, cache_dir=tmp_path / "cache", known_answers=known, concurrency=1)
        verdicts = judge.judge_many(SUMMARIES, SOURCES)
    assert [v.cached for v in verdicts] == [True, False, False]
    assert verdicts[0].rationale == "old"
    assert verdicts[0].key == judge.request_key(SUMMARIES[0], SOURCES[0])
    assert len(server.requests) == 2  # the json_object and none answers are asked again in json_schema
    assert {r["body"]["response_format"]["type"] for r in server.requests} == {"json_schema"}


# --------------------------------------------------------------------------- 2. the context window

LONG_SOURCE = "The council met again on Tuesday. " * 30_000  # 1,020,000 characters


def test_a_million_character_source_is_sent_whole_with_a_warning_naming_the_item() -> None:
    """The server reports n_ctx 4096 at /props (asked once); item 1's prompt is far beyond it: sent whole, warned."""
    props = {"default_generation_settings": {"n_ctx": 4096}, "total_slots": 1}
    with serve(props=props) as server:
        judge = make_judge(server.url, concurrency=1)
        summaries, sources = [SUMMARIES[0], SUMMARIES[1], SUMMARIES[2]], [SOURCES[0], LONG_SOURCE, SOURCES[2]]
        with pytest.warns(PersonaMetricsWarning, match="context window") as caught:
            verdicts = judge.judge_many(summaries, sources)
    [message] = [str(w.message) for w in caught if "context window" in str(w.message)]
    assert message.startswith("the judge prompt of item 1 is likely to exceed the context window of model 'm'")
    assert "4,096 tokens (the n_ctx the server reports at /props)" in message
    assert "estimated at 340," in message  # 1,020,000 UTF-8 bytes / 3 + the prompt + max_tokens
    assert "1,020,000 characters" in message
    assert "never cut" in message
    assert "context_tokens=" in message
    assert "item 0" not in message
    assert "item 2" not in message
    assert server.props_requests == 1
    assert [v.status for v in verdicts] == ["json"] * 3
    assert LONG_SOURCE in server.requests[1]["body"]["messages"][1]["content"]  # whole, never truncated


def test_context_tokens_option_and_the_assumed_window() -> None:
    """context_tokens= is used as given (no /props request); without it and without /props, 128,000 is assumed."""
    source = "Quarry Steel raised its dividend by ten percent. " * 200  # about 10,000 bytes: some 3,600 tokens
    with serve() as server:
        judge = make_judge(server.url, context_tokens=2048)
        with pytest.warns(
            PersonaMetricsWarning, match=r"^the judge prompt is likely .* 2,048 tokens \(context_tokens=\)"
        ):
            judge.judge(SUMMARIES[0], source)
        assert server.props_requests == 0
        roomy = make_judge(server.url, context_tokens=8192)
        with warnings.catch_warnings():
            warnings.simplefilter("error", PersonaMetricsWarning)
            roomy.judge(SUMMARIES[1], source)  # fits: no warning
        assumed = make_judge(server.url)
        with pytest.warns(PersonaMetricsWarning, match=r"128,000 tokens \(assumed: context_tokens= is not set\)"):
            assumed.judge(SUMMARIES[0], LONG_SOURCE)
        assert server.props_requests == 1  # asked, answered 404: the assumed window
    assert LONG_SOURCE in server.requests[-1]["body"]["messages"][1]["content"]


# --------------------------------------------------------------------------- 3. upper bounds

HUGE = 10**400
BOUNDS = [
    ("max_retries", 0, 100),
    ("max_tokens", 1, 131_072),
    ("top_logprobs", 1, 20),
    ("concurrency", 1, 1024),
    ("context_tokens", 256, 10**7),
]


@pytest.mark.parametrize(("name", "low", "high"), BOUNDS)
def test_whole_number_options_have_an_upper_bound(name: str, low: int, high: int) -> None:
    shown = re.escape(f"[{low:g}, {high:g}]")
    for value in (high + 1, HUGE):
        options: dict[str, Any] = {name: value}
        with pytest.raises(ValueError, match=rf"^{name} must be an int in {shown}, got "):
            JudgeOptions.from_options(options)
        with pytest.raises(ValueError, match=rf"^{name} must be an int in {shown}"):
            Judge("m", base_url="http://127.0.0.1:9/v1", api_key="none", **options)
    assert getattr(JudgeOptions.from_options({name: high}), name) == high
    assert shown.replace("\\", "") in " ".join(JudgeOptions.help_lines())


def test_timeout_has_an_upper_bound() -> None:
    with pytest.raises(ValueError, match=r"^timeout must be a finite number in \[0\.001, 86400\], got 1e\+300"):
        JudgeOptions(timeout=1e300)


@pytest.mark.parametrize(
    ("flag", "name", "range_"),
    [
        ("--max-retries", "max_retries", "[0, 100]"),
        ("--concurrency", "concurrency", "[1, 1024]"),
        ("--max-tokens", "max_tokens", "[1, 131072]"),
        ("--top-logprobs", "top_logprobs", "[1, 20]"),
    ],
)
def test_cli_refuses_an_out_of_range_judge_option_in_one_line(
    flag: str, name: str, range_: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``persona-metrics judge-check … --max-retries 10**400``: one line naming the option and range, exit 2."""
    case = {
        "id": "c1",
        "source": SOURCES[0],
        "faithful": SUMMARIES[0],
        "false_fact": {"kind": "number", "text": "Quarry Steel raised its dividend by twenty percent."},
        "off_topic": "Rain is expected on Friday.",
    }
    cases = tmp_path / "cases.jsonl"
    cases.write_text(json.dumps(case) + "\n", encoding="utf-8")
    with serve() as server:
        argv = ["judge-check", "--base-url", server.url, "-m", "m", "--cases", str(cases), "--no-cache"]
        try:
            status = main([*argv, flag, str(HUGE)])
        except SystemExit as exit_:  # an argparse error
            status = exit_.code  # type: ignore[assignment]
    err = capsys.readouterr().err
    assert status == 2
    assert err.count("\n") == 1, err
    assert err.startswith(f"persona-metrics judge-check: error: {name} must be an int in {range_}, got an int of 401")
    assert "Traceback" not in err
    assert server.requests == []  # refused before any call
