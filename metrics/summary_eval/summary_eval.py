"""SummaryEval: LLM-judged accuracy, topic completeness and ROUGE-enhanced coherence of summaries."""

import evaluate

from persona_metrics.integrations.evaluate_support import ValidatedTextInputs
from persona_metrics.integrations.registry import warn_if_stale
from persona_metrics.summary_eval import Judge, JudgeOptions, SummaryEvalParams, score_summary_eval
from persona_metrics.summary_eval.rubrics import DEFAULT_RUBRIC
from persona_metrics.summary_eval.spec import SUMMARY_EVAL

warn_if_stale(SUMMARY_EVAL.name, __file__)


_CITATION = """\
@misc{oshea2025summaryeval,
  title  = {SummaryEval: Evals for text summaries: accuracy, completeness, coherence},
  author = {O'Shea, Michael},
  year   = {2025},
  note   = {https://github.com/oshea00/summaryeval, commit cd0cb51, MIT License}
}
"""

_DESCRIPTION = """\
SummaryEval scores a summary against its source on three axes and combines them:
overall = 0.6 * accuracy + 0.25 * completeness + 0.15 * coherence (weights configurable).
Accuracy: a chat model (OpenAI or any OpenAI-compatible server) rates the summary against the source with a
rubric of the registry; the default, "accuracy", is the original's: 0 Poor, 1 Fair, 2 Good or 3 Excellent, as JSON
{"score": int, "rationale": str}; accuracy = score / 3 (a rubric on the scale low..high: (score - low) / (high -
low)). An answer that is not exactly that JSON on the rubric's scale is invalid: no score, left out of the accuracy
and overall means, counted in `num_invalid`.
Completeness: the source's 10 most important sentences (TF-IDF x position x length) are covered when the MiniLM
cosine with the whole summary is >= 0.4; completeness = min(1, 0.7 * recall + 0.3 * importance share).
Coherence: leave-one-out ROUGE-1/2/L with a repetition bonus, sentence-to-sentence semantic flow, PDTB discourse
markers, windowed lexical diversity, readability, a contradiction penalty and a length penalty.
Completeness and coherence reproduce oshea00/summaryeval @ cd0cb51 to 1e-6 and run offline; without a judge
(no `model`) accuracy and overall are None and the result carries a `note`.
Consistency (this project's, offline, no model, its own field: never part of accuracy or overall): the share of the
summary's checkable facts (numbers, percentages, money amounts, dates, years, capitalised names) that the source
supports, after normalising formats ("$2.4bn" = "2.4 billion dollars", "12%" = "12 percent", "seven" = "7"); 1.0
for a summary without a checkable fact. It sees surface figures and names only, not reversed relations,
paraphrased facts or negation.
"""

_KWARGS_DESCRIPTION = """
Args:
    predictions (`list` of `str`): the summaries (an empty one is allowed: accuracy 0 without a call,
        coherence 0).
    sources (`list` of `str`): the source texts, aligned with the predictions.
    model (`str`, optional): the judge model (e.g. "gpt-4o"); None (default): no judge, accuracy and overall
        are None.
    base_url (`str`, optional): an OpenAI-compatible endpoint, e.g. "http://127.0.0.1:8080/v1".
    api_key (`str`, optional): the key; default the OPENAI_API_KEY environment variable.
    timeout (`float`): seconds per request (default 60, at most 86400). max_retries (`int`): SDK retries of a
        transient failure, in the same format (default 2, 0 to 100).
    temperature (`float`): default 0. seed (`int`): default 0. max_tokens (`int`): default 200 (1 to 131072).
    response_format (`str`): "auto" (default: "json_schema", then "json_object" with the schema, then "none",
        moving on when the server refuses a format; a transient server error never counts), "json_schema",
        "json_object" or "none".
    scoring (`str`): "argmax" (default: the integer answer) or "weighted" (G-Eval, from top_logprobs).
    top_logprobs (`int`): alternatives per token requested in "weighted" scoring (default 5, 1 to 20).
    concurrency (`int`): judge calls in flight (default 4, 1 to 1024).
    cache_dir (`str`, optional): on-disk cache of valid judge answers (reruns make no calls).
    rubric (`str`): the judge's rubric, a name in persona_metrics.summary_eval.RUBRICS (default "accuracy": the
        original's 0-3 scale, prompt version "summary-eval-accuracy-v2", the texts delimited as data; G-Eval's
        "coherence", "consistency", "relevance" (1-5) and "fluency" (1-3), best with scoring="weighted"). Check a
        judge first with `persona-metrics judge-check`: without a passing verdict cached, a warning says so.
    prompt (`JudgePrompt`, optional): a versioned prompt replacing the rubric's (same scale and parser).
    context_tokens (`int`, optional): the judge model's context window in tokens (256 to 10**7): a prompt
        estimated larger (UTF-8 bytes / 3 + max_tokens) is sent whole with a warning naming the item; None
        (default): the n_ctx a llama.cpp server reports at /props, else 128000.
    weights (`dict`, optional): {"accuracy", "completeness", "coherence"} weights of overall (each in [0, 1e6],
        not all 0; not renormalised).
    encoder (`str`, optional): a sentence-transformers model folder for completeness and coherence (default: the
        packaged all-MiniLM-L6-v2, the original's).
    coherence_method (`str`): "original" (default: the original's definition, exact) or "robust": near-duplicate
        sentences dropped and charged (novelty), the order of the sentences compared with the source's, an
        opening connective or pronoun charged, one-sentence texts capped at 0.3 (docs/summary_eval.md §3.1).
    completeness_method (`str`): "original" (default: the original's coverage of the topic sentences, exact) or
        "recall_precision": graded recall of the source's topics by the summary's sentences and the precision of
        the summary's sentences against the source's, their F-measure with beta 1.5, so that off-topic content
        and a truncated summary both cost (docs/summary_eval.md §2.1).
    return_per_item (`bool`): add `per_item` = {"accuracy", "completeness", "coherence", "overall",
        "consistency", "unsupported_facts", "checked_facts"} lists (None for accuracy and overall without a judge
        or with an invalid answer; "unsupported_facts" lists each item's unsupported facts as written), with
        "completeness_recall" and "completeness_precision" by the recall_precision method, plus "rationale",
        "judge_status" ("json", "invalid", "empty-input") and "raw_response" with a judge.
    return_components (`bool`): add the coherence components per item (nine; thirteen with "robust": also
        novelty, order, opening, ending).
    return_signature (`bool`): add the config signature (encoder, weights, judge model@host, prompt version,
        temperature, seed, system_fingerprint, versions).
Returns:
    accuracy, completeness, coherence, consistency (`float` in [0, 1]), overall (`float` in [0, sum of the
    weights], [0, 1] with the defaults): means over the items; accuracy and overall over the items with a valid
    judge answer, None without a judge or without any valid answer. `num_invalid` (judge answers without a valid
    score) with a judge; `note` when accuracy and overall are None or leave items out.
Examples:
    >>> import evaluate
    >>> summary_eval = evaluate.load("summary_eval")
    >>> source = "Quarry Steel raised its dividend by ten percent."
    >>> out = summary_eval.compute(predictions=["Quarry Steel increased its dividend by ten percent."],
    ...                            sources=[source])
    >>> round(out["completeness"], 3), round(out["coherence"], 3), out["accuracy"], out["overall"]
    (1.0, 0.396, None, None)
    >>> out["consistency"]  # "Quarry Steel" and "ten percent" are in the source
    1.0
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class SummaryEval(ValidatedTextInputs, evaluate.Metric):
    """SummaryEval as an evaluate metric (a thin shell over ``persona_metrics.summary_eval``)."""

    _spec = SUMMARY_EVAL  # inputs, params, row options and install extra: the metric registry's
    _empty_ok = ("predictions", "sources")
    _params = (JudgeOptions, SummaryEvalParams)  # their fields are the options below, checked before scoring

    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=self._text_features(),
            homepage="https://github.com/oshea00/summaryeval",
            reference_urls=["https://github.com/oshea00/summaryeval"],
        )

    def _compute(
        self,
        predictions,
        sources,
        model=None,
        base_url=None,
        api_key=None,
        timeout=60.0,
        max_retries=2,
        temperature=0.0,
        seed=0,
        max_tokens=200,
        response_format="auto",
        scoring="argmax",
        top_logprobs=5,
        concurrency=4,
        cache_dir=None,
        rubric=DEFAULT_RUBRIC,
        prompt=None,
        context_tokens=None,
        weights=None,
        encoder=None,
        coherence_method="original",
        completeness_method="original",
        return_per_item=False,
        return_components=False,
        return_signature=False,
    ):
        options = locals()  # the keywords above: the params objects' fields, with their defaults (a test checks)
        judge = Judge(options=self.checked_params(JudgeOptions, options)) if model is not None else None
        params = self.checked_params(SummaryEvalParams, options)
        result = score_summary_eval(predictions, sources, judge=judge, params=params)
        return self._output(
            result,
            return_per_item=return_per_item,
            return_components=return_components,
            return_signature=return_signature,
        )

    def present(self, result, return_per_item=False, return_components=False, return_signature=False, **_):
        """The output dict of a SummaryEvalResult (also of a merged one)."""
        return result.as_dict(per_item=return_per_item, signature=return_signature, components=return_components)
