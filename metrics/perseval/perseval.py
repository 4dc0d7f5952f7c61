"""PerSEval: degree of personalization of a summarizer (DEGRESS penalised for accuracy drop and inconsistency)."""

import evaluate

from persona_metrics.distances import DEFAULT_DISTANCE, distance_names
from persona_metrics.integrations.evaluate_support import ValidatedTextInputs
from persona_metrics.integrations.registry import warn_if_stale
from persona_metrics.personalization import (
    DEFAULT_ALPHA,
    DEFAULT_BETA,
    DEFAULT_BOOTSTRAP_SEED,
    DEFAULT_GAMMA,
    PersevalParams,
    score_personalization,
)
from persona_metrics.personalization.spec import PERSEVAL

warn_if_stale(PERSEVAL.name, __file__)

_CITATION = """\
@article{dasgupta2024perseval,
  title   = {Accuracy Leaderboards Can Mislead: On Evaluation of Personalized Summarizers (PerSEval)},
  author  = {Dasgupta, Sourish and Chander, Ankush and Borad, Parth and Motiyani, Isha and Chakraborty, Tanmoy},
  journal = {Transactions on Machine Learning Research},
  year    = {2024}
}
"""

_DESCRIPTION = """\
PerSEval measures how personalized a summarizer is: DEGRESS (how differently the model answers different
users, relative to how differently the users themselves summarize the same document) multiplied by the
Effective DEGRESS Penalty EDP, which shrinks the score when the model's summaries are far from the users'
own (accuracy drop, ADP) or unevenly accurate across users (accuracy inconsistency, ACP). Semantics follow
the authors' reference code; see the metric card for every difference from the paper.
"""

_KWARGS_DESCRIPTION = """
Args:
    predictions (`list` of `str`): the model's summary of `documents[i]` generated for user i. May be empty
        (an empty summary is at distance 1 from everything).
    references (`list` of `str`): user i's own summary of `documents[i]`.
    documents (`list` of `str`): the source text; items with equal text are one document.
    document_ids (`list`, optional): explicit grouping, one id per item (overrides grouping by text).
    distance (`str`): {distances} (the registered distances; table in the metric card).
    distance_options (`dict`, optional): options of the distance, e.g. `{"model": "distilbert-base-uncased"}`.
    beta (`float`): EDP slope β in (0, 300], default 1.7 (the paper's choice; the authors' code default is 1.0).
    alpha (`float`): EDP offset α in (0, 300], default 3.
    gamma (`float`): ADP/ACP offset γ in (0, 300], default 4.
    bootstrap (`int`): document resamples for a 95 % interval of the system scores (0 = off, else 2 to 1,000,000).
    seed (`int`): bootstrap seed (>= 0).
    return_per_summary (`bool`): also return per-item PerSEval, DEGRESS and EDP.
    return_per_document (`bool`): also return per-document PerSEval, DEGRESS and EDP (means over the
        document's users, the inner means of eqs. 2 and 7) as `per_document` = `{"document": [...], ...}`.
    return_signature (`bool`): also return the config signature string.
Returns:
    perseval (`float`): system PerSEval in [0, 1 - 1/(1 + 10**alpha) + 1e-7], higher = more personalized: below
        0.99901 with the default alpha = 3, above 1 (up to 1 + 1e-7) only for alpha > 7 (EDP = 1 - S + 1e-7, the
        authors' formula).
    degress (`float`): system DEGRESS in (0, 1]; egises (`float`): 1 - degress, in [0, 1).
    edp (`float`): mean EDP, in [1e-7, 1 - 1/(1 + 10**alpha) + 1e-7]; accuracy_distance (`float`): mean distance
        of summaries to their user's reference ([0, 1] for a bounded distance; bertscore [0, 2]).
    num_documents (`int`), num_excluded_documents (`int`): scored and excluded (single-reference) documents.
    per_summary (`dict`, optional): `{"perseval": [...], "degress": [...], "edp": [...]}` aligned with the
        inputs, `None` for items of excluded documents.
Examples:
    >>> import evaluate
    >>> perseval = evaluate.load("perseval")
    >>> doc = "Shares of Harbor Foods rose after the grocer raised its outlook and opened two stores."
    >>> refs = ["Harbor Foods lifts its outlook", "Two new Harbor Foods stores open"]
    >>> results = perseval.compute(predictions=refs, references=refs, documents=[doc, doc])
    >>> print(round(results["perseval"], 6), round(results["degress"], 6))
    0.998991 1.0
    >>> same = ["Harbor Foods raises outlook", "Harbor Foods raises outlook"]
    >>> results = perseval.compute(predictions=same, references=refs, documents=[doc, doc])
    >>> print(results["perseval"] < 0.001, results["num_documents"])
    True 1
""".replace("{distances}", distance_names())


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class Perseval(ValidatedTextInputs, evaluate.Metric):
    """PerSEval as an evaluate metric (a thin shell over ``persona_metrics.personalization``)."""

    _spec = PERSEVAL  # inputs, params, row options and install extra: the metric registry's
    _empty_ok = ("predictions",)
    _params_not_taken = ("p_acc_alpha", "p_acc_beta")  # perseval does not report P-Acc

    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=self._text_features(),
            codebase_urls=["https://github.com/KDM-LAB/Perseval-TMLR", "https://github.com/KDM-LAB/EGISES-EMNLP23"],
            homepage="https://github.com/KDM-LAB/Perseval-TMLR",
            reference_urls=[
                "https://openreview.net/forum?id=yqT7eBz1VJ",
                "https://arxiv.org/abs/2407.00453",
                "https://aclanthology.org/2023.findings-emnlp.169",
            ],
        )

    def _compute(
        self,
        predictions,
        references,
        documents,
        document_ids=None,
        distance=DEFAULT_DISTANCE,
        distance_options=None,
        beta=DEFAULT_BETA,
        alpha=DEFAULT_ALPHA,
        gamma=DEFAULT_GAMMA,
        bootstrap=0,
        seed=DEFAULT_BOOTSTRAP_SEED,
        return_per_summary=False,
        return_per_document=False,
        return_signature=False,
    ):
        result = score_personalization(
            predictions,
            references,
            documents,
            document_ids,
            distance=distance,
            distance_options=distance_options,
            params=self.checked_params(PersevalParams, locals()),
        )
        return self._output(
            result,
            return_per_summary=return_per_summary,
            return_per_document=return_per_document,
            return_signature=return_signature,
        )

    def present(self, result, return_per_summary=False, return_per_document=False, return_signature=False, **_):
        """The output dict of a PersonalizationResult (also of a merged one)."""
        return result.as_dict(
            keys=("perseval", "degress", "egises", "edp", "accuracy_distance"),
            per_summary=("perseval", "degress", "edp") if return_per_summary else (),
            per_document=("perseval", "degress", "edp") if return_per_document else (),
            signature=return_signature,
        )
