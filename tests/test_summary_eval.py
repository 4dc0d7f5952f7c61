"""SummaryEval: goldens from the original code, formulas, the evaluate module, and the judge over a mock transport.

The judge tests use the real ``openai`` client on ``httpx2.MockTransport`` (no sockets); the judge against real
local HTTP servers (faulty responses, credentials, hostile texts, an interrupted ``cnndm`` run) is in
``tests/test_summary_eval_judge_server.py``; the real-model tier is in ``tests/test_summary_eval_llm.py`` (marker
``llm``, ``make test-llm``). See docs/summary_eval.md §9.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import persona_metrics
from persona_metrics.summary_eval import (
    DEFAULT_PROMPT,
    Judge,
    JudgeError,
    JudgePrompt,
    parse_answer,
    score_summary_eval,
)
from persona_metrics.summary_eval import formulas as F
from persona_metrics.summary_eval.judge import weighted_score
from persona_metrics.summary_eval.judge_cache import JudgeCache

GOLDEN = json.loads((Path(__file__).parent / "golden" / "summary_eval_original.json").read_text(encoding="utf-8"))
COMPONENTS = {
    "rouge_1": "rouge_1_coherence",
    "rouge_2": "rouge_2_coherence",
    "rouge_l": "rouge_l_coherence",
    "semantic": "semantic_coherence",
    "discourse": "discourse_coherence",
    "lexical": "lexical_diversity",
    "contradiction": "contradiction_penalty",
    "readability": "readability",
    "length": "length_penalty",
}


@pytest.fixture(scope="module")
def golden_result():
    pairs = GOLDEN["pairs"]
    return score_summary_eval([p["summary"] for p in pairs], [p["source"] for p in pairs])


def test_golden_file_covers_the_edge_cases() -> None:
    pairs = GOLDEN["pairs"]
    assert len(pairs) >= 20
    assert GOLDEN["tolerance"] == 1e-6
    assert "command" in GOLDEN
    assert any(len(p["summary"].split()) == 1 for p in pairs)
    assert any(len(p["topics"]) == 1 for p in pairs)  # one-sentence sources
    assert any(p["summary"] == "" for p in pairs)


def test_completeness_and_coherence_equal_the_original(golden_result) -> None:
    for i, pair in enumerate(GOLDEN["pairs"]):
        assert golden_result.completeness[i] == pytest.approx(pair["completeness"], abs=1e-6), pair["name"]
        assert golden_result.coherence[i] == pytest.approx(pair["coherence"]["overall_coherence"], abs=1e-6)
        for ours, theirs in COMPONENTS.items():
            assert golden_result.components[i][ours] == pytest.approx(pair["coherence"][theirs], abs=1e-6)
        topics = golden_result.topics[i].topics
        assert [t[0] for t in topics] == [t[0] for t in pair["topics"]]
        assert [t[1] for t in topics] == pytest.approx([t[1] for t in pair["topics"]], abs=1e-12)


def test_no_judge_gives_none_and_a_note(golden_result) -> None:
    out = golden_result.as_dict(per_item=True, signature=True, components=True)
    assert out["accuracy"] is None
    assert out["overall"] is None
    assert "need an LLM judge" in out["note"]
    assert out["per_item"]["accuracy"] == [None] * len(golden_result)
    assert "judge:none" in out["signature"]
    assert "rationale" not in out["per_item"]
    assert set(out["components"]) == set(COMPONENTS)


def test_formulas() -> None:
    assert [F.position_weight(i, 10) for i in (0, 1, 2, 5, 8, 9)] == [1.5, 1.2, 1.0, 1.0, 1.0, 1.5]
    assert F.length_weight(20) == 1.0
    assert F.length_weight(30) == 1.5
    assert F.length_weight(60) == 1.5
    assert F.completeness_from_coverage([], []) == 1.0
    assert F.completeness_from_coverage([True, True], [0.0, 0.0]) == pytest.approx(0.7)
    assert F.repetition_bonus("a b c d e f".split(), 1) == pytest.approx(0.3 * (1 - 0.15 / 0.25))
    assert F.discourse_parts([None, None]) == {"density": 0.0, "diversity": 0.0, "consistency": 0.5, "discourse": 0.15}
    assert F.first_marker_category("However, then it fell") == "temporal"  # category order decides
    assert F.first_marker_category("Whereas X") == "contingency"
    assert F.lexical_diversity([]) == 0.0
    assert F.lexical_diversity(["a", "a"]) == 0.5
    assert F.readability(None) == 0.5
    assert F.readability(-5) == 1
    assert F.readability(40) == 0
    assert F.coherence_from_components(dict.fromkeys(COMPONENTS, 1.0)) == pytest.approx(1.0)
    assert F.overall_score(1, 1, 1) == pytest.approx(1.0)
    with pytest.raises(ValueError, match="no items"):
        F.aggregate([])


def test_weights_are_validated() -> None:
    assert F.check_weights({"accuracy": 1}) == {"accuracy": 1.0, "completeness": 0.25, "coherence": 0.15}
    with pytest.raises(ValueError, match="unknown keys"):
        F.check_weights({"fluency": 1})
    with pytest.raises(ValueError, match="weights\\['coherence'\\]"):
        F.check_weights({"coherence": -1})
    with pytest.raises(TypeError, match="weights\\['accuracy'\\]"):
        F.check_weights({"accuracy": "high"})
    with pytest.raises(ValueError, match="not all be 0"):
        F.check_weights({"accuracy": 0, "completeness": 0, "coherence": 0})


def test_bad_inputs_name_field_and_index() -> None:
    with pytest.raises(TypeError, match=r"sources\[1\] must be a string"):
        score_summary_eval(["a", "b"], ["x", 3])  # type: ignore[list-item]
    with pytest.raises(ValueError, match="sources has 1 items but predictions has 2"):
        score_summary_eval(["a", "b"], ["x"])
    with pytest.raises(ValueError, match="no items"):
        score_summary_eval([], [])


def test_stopword_only_source_does_not_crash() -> None:
    result = score_summary_eval(["It is."], ["It is. It was. It has been."])
    assert 0.0 <= result.completeness[0] <= 0.7


# --------------------------------------------------------------------------- the evaluate module


def test_module_matches_library_and_documents_the_missing_judge() -> None:
    module = persona_metrics.load("summary_eval")
    pairs = GOLDEN["pairs"][:3]
    out = module.compute(
        predictions=[p["summary"] for p in pairs], sources=[p["source"] for p in pairs], return_per_item=True
    )
    assert out["per_item"]["completeness"] == pytest.approx([p["completeness"] for p in pairs], abs=1e-6)
    assert out["accuracy"] is None
    assert "note" in out
    with pytest.raises(TypeError, match=r"sources\[0\]"):
        module.compute(predictions=["a"], sources=[None])


# --------------------------------------------------------------------------- the judge (mock transport)


def completion(content: str, fingerprint: str | None = "fp_test", logprobs: Any = None) -> dict[str, Any]:
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 0,
        "model": "judge-model",
        "system_fingerprint": fingerprint,
        "choices": [
            {
                "index": 0,
                "finish_reason": "stop",
                "message": {"role": "assistant", "content": content},
                "logprobs": logprobs,
            }
        ],
    }


class Server:
    """A scripted OpenAI-compatible endpoint: answers in order (the last one repeats), requests recorded."""

    def __init__(self, *answers: tuple[int, Any]) -> None:
        self.answers = list(answers)
        self.requests: list[dict[str, Any]] = []

    def __call__(self, request):
        import httpx2

        self.requests.append(json.loads(request.content))
        status, body = self.answers[0] if len(self.answers) == 1 else self.answers.pop(0)
        headers = {"retry-after-ms": "1"}
        return httpx2.Response(status, json=body, headers=headers)

    def judge(self, **options: Any) -> Judge:
        import httpx2

        options.setdefault("max_retries", 0)
        return Judge(
            "judge-model",
            base_url="http://judge.invalid/v1",
            api_key="test-key",
            http_client=httpx2.Client(transport=httpx2.MockTransport(self)),
            **options,
        )


SUMMARY, SOURCE = "Quarry Steel raised its dividend.", "Quarry Steel raised its dividend by ten percent."


def test_request_body_and_parsed_verdict() -> None:
    server = Server((200, completion('{"score": 2, "rationale": "close"}')))
    verdict = server.judge().judge(SUMMARY, SOURCE)
    assert verdict.accuracy == pytest.approx(2 / 3)
    assert verdict.rationale == "close"
    assert verdict.valid
    body = server.requests[0]
    assert body["model"] == "judge-model"
    assert body["temperature"] == 0
    assert body["seed"] == 0
    assert body["max_tokens"] == 200
    assert body["response_format"]["type"] == "json_schema"  # structured output asked for by default
    schema = body["response_format"]["json_schema"]["schema"]
    assert schema["properties"]["score"]["enum"] == [0, 1, 2, 3]
    assert schema["additionalProperties"] is False
    assert body["response_format"]["json_schema"]["strict"] is True
    assert SOURCE in body["messages"][1]["content"]
    assert SUMMARY in body["messages"][1]["content"]


@pytest.mark.parametrize(
    ("content", "score"),
    [
        ('```json\n{"score": 3, "rationale": "ok"}\n```', 3),
        ('<think>hmm 9</think>{"score": 0, "rationale": "bad"}', 0),
        ('{"score": 2.0, "rationale": "x"}', 2),
        (' \n{"rationale": "order is free", "score": 1}\n', 1),
        ('Sure! {"score": 1, "rationale": "meh"} done', None),  # prose around the object
        ('{"score": 1, "rationale": "meh",}', None),  # not JSON
        ('{"score": 3.5, "rationale": "x"}', None),
        ('{"score": true, "rationale": "x"}', None),
        ('{"score": "3", "rationale": "x"}', None),
        ('{"score": 2}', None),  # no rationale
        ('{"score": 2, "rationale": "x", "confidence": 0.9}', None),  # extra key
        ('{"score": 3, "rationale": "x", "score": 0}', None),  # duplicate key
        ('{"score": 2, "rationale": null}', None),
        ('[{"score": 2, "rationale": "x"}]', None),
        ("Score: 2 because", None),
        ("Score 25", None),
        ("no digits", None),
        ("", None),
        (None, None),
    ],
)
def test_parse_answer(content: str | None, score: int | None) -> None:
    parsed = parse_answer(content)
    assert parsed.score == score
    assert parsed.status == ("invalid" if score is None else "json")


@pytest.mark.parametrize(
    "content",
    [
        "There are 3 factual errors in the summary, so it is Poor.",
        # the summary quotes a score before the judge's own answer: the quoted one must not win
        'The summary contains {"score": 3, "rationale": "perfect"}. My verdict: {"score": 0, "rationale": "made up"}',
        '{"score": 7}',
    ],
)
def test_strict_parsing_never_guesses_a_score(content: str) -> None:
    """The three answers of the issue: none of them has a score of its own that follows the contract."""
    parsed = parse_answer(content)
    assert parsed.score is None
    assert parsed.status == "invalid"
    assert content[:40] in parsed.rationale or content[:20] in parsed.rationale  # what was wrong, with the text


def test_invalid_answers_are_neither_scored_nor_cached(tmp_path: Path) -> None:
    """Prose, an off-scale score and an empty answer: no score, not in the mean, not cached, asked again later."""
    prose = "There are 3 factual errors in the summary, so it is Poor."
    down = Server((200, completion(prose)), (200, completion('{"score": 7, "rationale": "x"}')), (200, completion("")))
    judge = down.judge(cache_dir=tmp_path, concurrency=1)
    summaries = [SUMMARY, "Quarry Steel cut its dividend.", "Quarry Steel paid a dividend."]
    with pytest.warns(persona_metrics.PersonaMetricsWarning, match=r"3 of 3 judge answers had no valid score.*factual"):
        result = score_summary_eval(summaries, [SOURCE] * 3, judge=judge)
    out = result.as_dict(per_item=True)
    assert out["accuracy"] is None  # never 0
    assert out["overall"] is None
    assert out["num_invalid"] == 3
    assert "no judge answer had a valid score" in out["note"]
    assert out["per_item"]["accuracy"] == [None] * 3
    assert out["per_item"]["overall"] == [None] * 3
    assert out["per_item"]["judge_status"] == ["invalid"] * 3
    assert out["per_item"]["raw_response"] == [prose, '{"score": 7, "rationale": "x"}', ""]
    assert all(v.score is None for v in result.verdicts)
    assert not list(tmp_path.glob("*.json"))  # nothing cached
    # the server recovers: the rerun asks again (3 requests) and gets real scores
    up = Server((200, completion('{"score": 3, "rationale": "fine"}')))
    again = score_summary_eval(summaries, [SOURCE] * 3, judge=up.judge(cache_dir=tmp_path, concurrency=1))
    assert len(up.requests) == 3
    assert again.as_dict()["accuracy"] == 1.0
    assert len(list(tmp_path.glob("*.json"))) == 3


def test_invalid_answers_stored_by_an_older_version_are_asked_again(tmp_path: Path) -> None:
    first = Server((200, completion('{"score": 1, "rationale": "r"}')))
    judge = first.judge(cache_dir=tmp_path)
    judge.judge(SUMMARY, SOURCE)
    [entry] = tmp_path.glob("*.json")
    stored = json.loads(entry.read_text())
    stored = {**stored, "content": "junk 2"}  # what the old parser scored 2, in a well-formed entry
    stored["digest"] = JudgeCache._digest(stored)
    entry.write_text(json.dumps(stored))
    second = Server((200, completion('{"score": 3, "rationale": "r"}')))
    verdict = second.judge(cache_dir=tmp_path).judge(SUMMARY, SOURCE)
    assert (verdict.score, verdict.cached, len(second.requests)) == (3, False, 1)


def test_num_invalid_and_rationale_per_item() -> None:
    server = Server((200, completion('{"score": 3, "rationale": "fine"}')), (200, completion("junk 2")))
    judge = server.judge(concurrency=1)
    with pytest.warns(persona_metrics.PersonaMetricsWarning, match="1 of 2 judge answers had no valid score"):
        result = score_summary_eval([SUMMARY, "Another summary."], [SOURCE, SOURCE], judge=judge)
    out = result.as_dict(per_item=True, signature=True)
    assert out["num_invalid"] == 1
    assert "means over the 1 items with a valid judge answer" in out["note"]
    assert out["per_item"]["accuracy"] == [1.0, None]
    assert out["per_item"]["overall"] == [pytest.approx(result.overall[0]), None]
    assert out["per_item"]["rationale"][0] == "fine"
    assert out["per_item"]["raw_response"][1] == "junk 2"
    assert out["accuracy"] == 1.0  # the mean over the valid item only
    assert out["overall"] == pytest.approx(result.overall[0])
    assert "judge:judge-model@judge.invalid" in out["signature"]
    assert "fp:fp_test" in out["signature"]
    assert "prompt:summary-eval-accuracy-v2" in out["signature"]
    assert "format:auto=json_schema" in out["signature"]


def test_all_valid_answers_keep_the_canonical_numbers() -> None:
    """With every answer valid, accuracy is score / 3 and overall 0.6 / 0.25 / 0.15 of the three, as before."""
    server = Server(
        (200, completion('{"score": 2, "rationale": "a"}')), (200, completion('{"score": 1, "rationale": "b"}'))
    )
    result = score_summary_eval([SUMMARY, "Another summary."], [SOURCE] * 2, judge=server.judge(concurrency=1))
    assert result.accuracy.tolist() == [2 / 3, 1 / 3]
    expected = [
        0.6 * a + 0.25 * c + 0.15 * h
        for a, c, h in zip([2 / 3, 1 / 3], result.completeness, result.coherence, strict=True)
    ]
    assert result.overall.tolist() == pytest.approx(expected, abs=1e-15)
    out = result.as_dict()
    assert out["accuracy"] == pytest.approx(0.5)
    assert out["overall"] == pytest.approx(sum(expected) / 2)
    assert out["num_invalid"] == 0
    assert "note" not in out


def test_empty_inputs_make_no_call() -> None:
    server = Server((500, {"error": {"message": "must not be called"}}))
    verdict = server.judge().judge("  ", SOURCE)
    assert verdict.accuracy == 0.0
    assert verdict.status == "empty-input"
    assert not server.requests


def test_sdk_retries_429_then_500() -> None:
    server = Server(
        (429, {"error": {"message": "slow down", "type": "rate_limit"}}),
        (500, {"error": {"message": "oops"}}),
        (200, completion('{"score": 1, "rationale": "r"}')),
    )
    verdict = server.judge(max_retries=2).judge(SUMMARY, SOURCE)
    assert verdict.score == 1
    assert len(server.requests) == 3


@pytest.mark.parametrize(
    ("status", "body", "match"),
    [
        (401, {"error": {"message": "bad key"}}, "rejected the API key.*api_key"),
        (429, {"error": {"message": "quota", "code": "insufficient_quota"}}, "quota exhausted"),
        (403, {"error": {"message": "no"}}, "denied access"),
    ],
)
def test_errors_name_the_option(status: int, body: dict, match: str) -> None:
    server = Server((status, body))
    with pytest.raises(JudgeError, match=match):
        server.judge().judge(SUMMARY, SOURCE)
    assert len(server.requests) == 1  # max_retries=0; 401 is never retried


def test_unreachable_server_and_missing_key(monkeypatch: pytest.MonkeyPatch) -> None:
    judge = Judge("m", base_url="http://127.0.0.1:9/v1", api_key="k", max_retries=0, timeout=2)
    with pytest.raises(JudgeError, match=r"cannot reach the judge.*base_url"):
        judge.judge(SUMMARY, SOURCE)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(ValueError, match=r"OPENAI_API_KEY.*api_key="):
        Judge("m")


def test_response_format_fallback() -> None:
    server = Server(
        (500, {"error": {"message": "Input should be 'text' or 'json_object'"}}),
        (200, completion('{"score": 3, "rationale": "r"}')),
    )
    judge = server.judge(response_format="json_schema")
    with pytest.warns(persona_metrics.PersonaMetricsWarning, match="response_format"):
        verdict = judge.judge(SUMMARY, SOURCE)
    assert verdict.score == 3
    assert server.requests[0]["response_format"]["type"] == "json_schema"
    assert "response_format" not in server.requests[1]
    assert judge.current_format == "none"
    assert "format:json_schema=none" in str(judge.signature())


def test_auto_format_moves_to_the_grammar_then_to_the_prompt_only() -> None:
    """auto: json_schema (OpenAI, vLLM), then json_object with the schema (llama.cpp's grammar), then none."""
    server = Server(
        (400, {"error": {"message": "json_schema is not supported"}}),
        (200, completion('{"score": 2, "rationale": "r"}')),
    )
    judge = server.judge()
    with pytest.warns(persona_metrics.PersonaMetricsWarning, match="'json_object' from now on"):
        assert judge.judge(SUMMARY, SOURCE).score == 2
    assert [r["response_format"]["type"] for r in server.requests] == ["json_schema", "json_object"]
    assert server.requests[1]["response_format"]["schema"]["required"] == ["score", "rationale"]
    judge.judge("Another summary.", SOURCE)
    assert server.requests[2]["response_format"]["type"] == "json_object"  # kept for the rest of the run
    assert "format:auto=json_object" in str(judge.signature())
    rejecting = Server((422, {"error": {"message": "no"}}), (422, {"error": {"message": "no"}}),
                       (200, completion('{"score": 1, "rationale": "r"}')))  # fmt: skip
    with pytest.warns(persona_metrics.PersonaMetricsWarning):
        assert rejecting.judge().judge(SUMMARY, SOURCE).score == 1
    assert "response_format" not in rejecting.requests[2]


def test_once_the_server_answered_a_format_a_later_rejection_is_a_judge_error() -> None:
    """A 400/500 after the first answer (a long article's context error, a server fault) never moves the rest of
    the run to another format: each item would otherwise be asked in a format that depends on call order."""
    server = Server(
        (200, completion('{"score": 2, "rationale": "r"}')),
        (500, {"error": {"message": "context size exceeded"}}),
        (200, completion('{"score": 1, "rationale": "r"}')),
    )
    judge = server.judge()
    assert judge.judge(SUMMARY, SOURCE).score == 2
    with pytest.raises(JudgeError, match="context size exceeded"):
        judge.judge("A much longer summary.", SOURCE)
    assert judge.current_format == "json_schema"
    assert judge.judge("Third.", SOURCE).score == 1
    assert [r["response_format"]["type"] for r in server.requests] == ["json_schema"] * 3


def test_on_verdict_reports_every_position_and_a_failure_stops_the_rest(monkeypatch: pytest.MonkeyPatch) -> None:
    import threading

    from persona_metrics.summary_eval import judge as judge_module

    server = Server((200, completion('{"score": 2, "rationale": "r"}')))
    summaries = [SUMMARY, "B.", SUMMARY, "C.", "D."]
    seen: list[tuple[int, int | None]] = []
    verdicts = server.judge(concurrency=3).judge_many(
        summaries, [SOURCE] * 5, on_verdict=lambda i, v: seen.append((i, v.score))
    )
    assert sorted(seen) == [(i, 2) for i in range(5)]  # the repeated pair reported at both positions
    assert len(server.requests) == 4  # judged once
    assert [v.score for v in verdicts] == [2] * 5

    class Gated(Server):
        """Answers the first request, fails the second at once, holds every later one until the cancel."""

        def __call__(self, request):
            if len(self.requests) >= 2:
                gate.wait(10)
            return super().__call__(request)

    gate = threading.Event()
    real_cancel = judge_module._cancel

    def cancel(futures):
        real_cancel(futures)
        gate.set()

    monkeypatch.setattr(judge_module, "_cancel", cancel)
    failing = Gated((200, completion('{"score": 2, "rationale": "r"}')), (401, {"error": {"message": "bad key"}}))
    reported: list[int] = []
    with pytest.raises(JudgeError, match="rejected the API key"):
        failing.judge(concurrency=2).judge_many(
            [f"S{i}." for i in range(8)], [SOURCE] * 8, on_verdict=lambda i, v: reported.append(i)
        )
    assert reported == [0]  # the first pair, asked alone until the server has answered once
    # 1 alone, then 2 workers: the failing call and one held call; the worker freed by the failure can start one
    # more before the cancel, which is held too; the other 4 were cancelled (not timing: held calls wait for it)
    assert len(failing.requests) <= 4


def test_results_log_resumes_without_a_cache(tmp_path: Path) -> None:
    """Answers read back from a results file are used instead of calls; invalid ones are asked again."""
    from persona_metrics.summary_eval.results_log import ResultsLog

    log = ResultsLog(tmp_path / "out" / "results.jsonl")
    server = Server((200, completion('{"score": 2, "rationale": "r"}')), (200, completion("prose")))
    with pytest.warns(persona_metrics.PersonaMetricsWarning, match="1 of 2 judge answers"):
        first = server.judge(concurrency=1).judge_many([SUMMARY, "Other."], [SOURCE] * 2)
    for i, verdict in enumerate(first):
        log.append({"item": i, **verdict.record()})
    log.append({"item": 1, **first[1].record()})  # the same row again is not written twice
    log.close()
    with (tmp_path / "out" / "results.jsonl").open("a") as handle:
        handle.write('{"item": 2, "key": "cut sho')  # a line cut short by a kill
    reread = ResultsLog(tmp_path / "out" / "results.jsonl")
    with pytest.warns(persona_metrics.PersonaMetricsWarning, match="results.jsonl:3: skipping a line"):
        answers = reread.answers()
    assert len(answers) == 1  # the valid one only
    again = Server((200, completion('{"score": 3, "rationale": "r"}')))
    verdicts = again.judge(known_answers=answers, concurrency=1).judge_many([SUMMARY, "Other."], [SOURCE] * 2)
    assert [v.score for v in verdicts] == [2, 3]
    assert [v.cached for v in verdicts] == [True, False]
    assert len(again.requests) == 1  # only the missing (invalid) one
    reread.append({"item": 1, **verdicts[1].record()})
    reread.close()
    lines = (tmp_path / "out" / "results.jsonl").read_text().splitlines()
    assert len(lines) == 4
    assert json.loads(lines[-1])["score"] == 3  # appended on a fresh line after the cut one


def test_cache_makes_reruns_free_and_never_stores_errors(tmp_path: Path) -> None:
    failing = Server((500, {"error": {"message": "down"}}))
    with pytest.raises(JudgeError):
        failing.judge(cache_dir=tmp_path, response_format="none").judge(SUMMARY, SOURCE)
    assert not list(tmp_path.glob("*.json"))
    server = Server((200, completion('{"score": 2, "rationale": "r"}')))
    first = server.judge(cache_dir=tmp_path).judge(SUMMARY, SOURCE)
    second = server.judge(cache_dir=tmp_path).judge(SUMMARY, SOURCE)
    assert len(server.requests) == 1
    assert second.cached
    assert not first.cached
    assert second.accuracy == first.accuracy
    other = server.judge(cache_dir=tmp_path, temperature=0.5).judge(SUMMARY, SOURCE)
    assert len(server.requests) == 2
    assert not other.cached
    entry = tmp_path / f"{first.key}.json"  # the entry the next judge reads (not the temperature=0.5 one)
    entry.write_text('{"key": "forged", "content": "{\\"score\\": 0}"}')
    with pytest.warns(persona_metrics.PersonaMetricsWarning, match="invalid judge cache entry"):
        server.judge(cache_dir=tmp_path).judge(SUMMARY, SOURCE)


def test_weighted_scoring_from_top_logprobs() -> None:
    import math

    tokens = [{"token": t, "top_logprobs": []} for t in ['{"', "score", '":', " "]]
    tops = [{"token": "2", "logprob": math.log(0.6)}, {"token": "3", "logprob": math.log(0.4)}]
    tokens.append({"token": "2", "top_logprobs": tops})
    assert weighted_score(tokens) == pytest.approx(2.4)
    logprobs = {
        "content": [
            {
                "token": t["token"],
                "logprob": -0.1,
                "bytes": None,
                "top_logprobs": [{**x, "bytes": None} for x in t["top_logprobs"]],
            }
            for t in tokens
        ]
    }
    server = Server((200, completion('{"score": 2, "rationale": "r"}', logprobs=logprobs)))
    verdict = server.judge(scoring="weighted").judge(SUMMARY, SOURCE)
    assert verdict.accuracy == pytest.approx(0.8)
    assert server.requests[0]["logprobs"] is True
    assert server.requests[0]["top_logprobs"] == 5


def test_judge_options_are_validated() -> None:
    with pytest.raises(ValueError, match="response_format"):
        Judge("m", api_key="k", response_format="xml")
    with pytest.raises(TypeError, match="max_retries"):
        Judge("m", api_key="k", max_retries=1.5)
    with pytest.raises(ValueError, match="model"):
        Judge("", api_key="k")
    with pytest.raises(ValueError, match="placeholder"):
        JudgePrompt("v2", "system", "no placeholders")
    assert "{source}" in DEFAULT_PROMPT.user
    with pytest.raises(ValueError, match=r"base_url must be an http\(s\) URL, got 'ftp://\*\*\*@host"):
        Judge("m", api_key="k", base_url="ftp://bob:pa55word@host/v1")


def test_endpoints_that_differ_only_in_a_query_value_never_share_answers() -> None:
    """Cache keys digest the whole endpoint URL (the redacted URL made ?api-version=A and =B one key)."""
    keys = {
        Judge("m", base_url=f"http://127.0.0.1:9/v1?api-version={version}", api_key="k").request_key(SUMMARY, SOURCE)
        for version in ("2024-01-01", "2025-01-01")
    }
    assert len(keys) == 2
    assert all("2024" not in key and "2025" not in key for key in keys)


def test_an_edited_cache_entry_is_never_used(tmp_path: Path) -> None:
    """A well-formed edit (the stored score changed from 1 to 3) fails the entry's digest: asked again, warned."""
    server = Server((200, completion('{"score": 1, "rationale": "r"}')))
    assert server.judge(cache_dir=tmp_path).judge(SUMMARY, SOURCE).score == 1
    [path] = tmp_path.glob("*.json")
    entry = json.loads(path.read_text(encoding="utf-8"))
    entry["content"] = '{"score": 3, "rationale": "r"}'
    path.write_text(json.dumps(entry), encoding="utf-8")
    with pytest.warns(persona_metrics.PersonaMetricsWarning, match="does not match its digest"):
        again = server.judge(cache_dir=tmp_path).judge(SUMMARY, SOURCE)
    assert (again.score, again.cached, len(server.requests)) == (1, False, 2)
    assert server.judge(cache_dir=tmp_path).judge(SUMMARY, SOURCE).cached  # rewritten whole by the new answer
