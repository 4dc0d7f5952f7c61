"""SummaryEval: accuracy (LLM judge), completeness (topic coverage) and coherence (ROUGE-enhanced) of summaries.

A port of oshea00/summaryeval @ cd0cb51 (MIT); ``overall = 0.6·accuracy + 0.25·completeness + 0.15·coherence``
(``docs/summary_eval.md``):

* :mod:`~persona_metrics.summary_eval.formulas`: the arithmetic (pure functions, ``aggregate``);
* :mod:`~persona_metrics.summary_eval.components`: sentences, TF-IDF topics, ROUGE, embeddings, readability;
* :mod:`~persona_metrics.summary_eval.judge`: the accuracy judge (``openai`` client, parsing, cache);
* :mod:`~persona_metrics.summary_eval.scorer`: :func:`score_summary_eval`, :class:`SummaryEvalResult`.
"""

from persona_metrics.summary_eval.formulas import DEFAULT_WEIGHTS, aggregate, overall_score
from persona_metrics.summary_eval.judge import DEFAULT_PROMPT, Judge, JudgeError, JudgePrompt, Verdict, parse_answer
from persona_metrics.summary_eval.scorer import NO_JUDGE_NOTE, SummaryEvalResult, SummaryEvalScorer, score_summary_eval

__all__ = [
    "DEFAULT_PROMPT",
    "DEFAULT_WEIGHTS",
    "NO_JUDGE_NOTE",
    "Judge",
    "JudgeError",
    "JudgePrompt",
    "SummaryEvalResult",
    "SummaryEvalScorer",
    "Verdict",
    "aggregate",
    "overall_score",
    "parse_answer",
    "score_summary_eval",
]
