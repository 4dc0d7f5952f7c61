"""SummaryEval: goldens from the original code, formulas, the evaluate module, and the judge over a mock transport.

The judge tests use the real ``openai`` client on ``httpx2.MockTransport`` (no sockets); the real-model tier is in
``tests/test_summary_eval_llm.py`` (marker ``llm``, ``make test-llm``). See docs/summary_eval.md §9.
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
    assert "response_format" not in body
    assert SOURCE in body["messages"][1]["content"]
    assert SUMMARY in body["messages"][1]["content"]


@pytest.mark.parametrize(
    ("content", "score", "status"),
    [
        ('```json\n{"score": 3, "rationale": "ok"}\n```', 3, "json"),
        ('Sure! {"score": 1, "rationale": "meh",} done', 1, "json"),
        ('<think>hmm 9</think>{"score": 0, "rationale": "bad"}', 0, "json"),
        ('{"score": 2.0, "rationale": "x"}', 2, "json"),
        ('{"score": 3.5, "rationale": "x"}', 0, "invalid"),
        ('{"score": true, "rationale": "x"}', 0, "invalid"),
        ("Score: 2 because", 2, "first-integer"),
        ("Score 25", 0, "invalid"),
        ("no digits", 0, "invalid"),
        ("", 0, "invalid"),
    ],
)
def test_parse_answer(content: str, score: int, status: str) -> None:
    parsed = parse_answer(content)
    assert (parsed.score, parsed.status) == (score, status)


def test_num_invalid_and_rationale_per_item() -> None:
    server = Server((200, completion('{"score": 3, "rationale": "fine"}')), (200, completion("junk 7")))
    result = score_summary_eval([SUMMARY, "Another summary."], [SOURCE, SOURCE], judge=server.judge(concurrency=1))
    out = result.as_dict(per_item=True, signature=True)
    assert out["num_invalid"] == 1
    assert "note" not in out
    assert out["per_item"]["accuracy"] == [1.0, 0.0]
    assert out["per_item"]["rationale"][0] == "fine"
    assert out["per_item"]["raw_response"][1] == "junk 7"
    assert out["overall"] == pytest.approx(sum(result.overall) / 2)
    assert "judge:judge-model@judge.invalid" in out["signature"]
    assert "fp:fp_test" in out["signature"]
    assert "prompt:summary-eval-accuracy-v1" in out["signature"]


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
    assert judge.options.response_format == "none"


def test_cache_makes_reruns_free_and_never_stores_errors(tmp_path: Path) -> None:
    failing = Server((500, {"error": {"message": "down"}}))
    with pytest.raises(JudgeError):
        failing.judge(cache_dir=tmp_path).judge(SUMMARY, SOURCE)
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
    [entry, *_] = sorted(tmp_path.glob("*.json"))
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
