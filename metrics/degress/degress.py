"""DEGRESS / EGISES / P-Accuracy: responsiveness of a personalized summarizer to its users."""

import evaluate

from persona_metrics.distances import DEFAULT_DISTANCE, distance_names
from persona_metrics.integrations.evaluate_support import ValidatedTextInputs
from persona_metrics.integrations.registry import warn_if_stale
from persona_metrics.personalization import (
    DEFAULT_BOOTSTRAP_SEED,
    DEFAULT_P_ACC_ALPHA,
    DEFAULT_P_ACC_BETA,
    PersevalParams,
    score_personalization,
)
from persona_metrics.personalization.spec import DEGRESS

warn_if_stale(DEGRESS.name, __file__)

_CITATION = """\
@inproceedings{vansh2023egises,
  title     = {Accuracy is not enough: Evaluating Personalization in Summarizers},
  author    = {Vansh, Rahul and Rank, Darsh and Dasgupta, Sourish and Chakraborty, Tanmoy},
  booktitle = {Findings of the Association for Computational Linguistics: EMNLP 2023},
  year      = {2023}
}
@article{dasgupta2024perseval,
  title   = {Accuracy Leaderboards Can Mislead: On Evaluation of Personalized Summarizers (PerSEval)},
  author  = {Dasgupta, Sourish and Chander, Ankush and Borad, Parth and Motiyani, Isha and Chakraborty, Tanmoy},
  journal = {Transactions on Machine Learning Research},
  year    = {2024}
}
"""

_DESCRIPTION = """\
DEGRESS (degree of responsiveness) compares, for every pair of users of the same document, how far apart the
model's summaries for the two users are with how far apart the users' own summaries are (each distance
weighted by a softmax of its ratio to the distance from the document). 1 means the model differentiates users
exactly as much as they differ; a model giving every user the same summary scores about 2e-5.
EGISES = 1 - DEGRESS (lower is better). P-Accuracy (eq. 3 of the PerSEval paper, formula only: the authors ship
no code for it) = (1 - accuracy_distance) - alpha * logistic(beta * EGISES).
"""

_KWARGS_DESCRIPTION = """
Args:
    predictions (`list` of `str`): the model's summary of `documents[i]` generated for user i (may be empty).
    references (`list` of `str`): user i's own summary of `documents[i]`.
    documents (`list` of `str`): the source text; items with equal text are one document.
    document_ids (`list`, optional): explicit grouping, one id per item (overrides grouping by text).
    distance (`str`): {distances} (the registered distances; table in the metric card).
    distance_options (`dict`, optional): options of the distance, e.g. `{"max_order": 4}` for `bleu`.
    p_acc_alpha (`float`): P-Acc alpha in (0, 1], default 0.5 (paper Table 8).
    p_acc_beta (`float`): P-Acc beta in [0, 1], default 1 (paper Table 8).
    bootstrap (`int`): document resamples for a 95 % interval of DEGRESS (0 = off, else 2 to 1,000,000).
    seed (`int`): bootstrap seed (>= 0).
    return_per_summary (`bool`): also return per-item DEGRESS.
    return_per_document (`bool`): also return per-document DEGRESS (mean over the document's users, the inner
        mean of eq. 2) as `per_document` = `{"document": [ids or texts], "degress": [...]}`.
    return_signature (`bool`): also return the config signature string.
Returns:
    degress (`float`) in (0, 1], egises (`float`) in [0, 1), p_accuracy (`float`) in (-0.7311, 1) for a bounded
    distance and any valid p_acc_alpha / p_acc_beta ((-0.3655, 0.75] with the defaults), accuracy_distance
    (`float`) in [0, 1] for a bounded distance, num_documents (`int`), num_excluded_documents (`int`);
    per_summary (`dict`, optional): `{"degress": [...]}`.
Examples:
    >>> import evaluate
    >>> degress = evaluate.load("degress")
    >>> doc = "Shares of Harbor Foods rose after the grocer raised its outlook and opened two stores."
    >>> refs = ["Harbor Foods lifts its outlook", "Two new Harbor Foods stores open"]
    >>> results = degress.compute(predictions=refs, references=refs, documents=[doc, doc])
    >>> print(results["degress"], results["egises"], round(results["p_accuracy"], 4))
    1.0 0.0 0.75
    >>> same = ["Harbor Foods raises outlook", "Harbor Foods raises outlook"]
    >>> results = degress.compute(predictions=same, references=refs, documents=[doc, doc])
    >>> print(results["degress"] < 1e-4)
    True
""".replace("{distances}", distance_names())


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class Degress(ValidatedTextInputs, evaluate.Metric):
    """DEGRESS / EGISES / P-Acc as an evaluate metric (a thin shell over ``persona_metrics.personalization``)."""

    _spec = DEGRESS  # inputs, params, row options and install extra: the metric registry's
    _empty_ok = ("predictions",)
    _params_not_taken = ("alpha", "beta", "gamma")  # EDP's: degress does not report PerSEval

    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=self._text_features(),
            codebase_urls=["https://github.com/KDM-LAB/EGISES-EMNLP23"],
            homepage="https://github.com/KDM-LAB/EGISES-EMNLP23",
            reference_urls=[
                "https://aclanthology.org/2023.findings-emnlp.169",
                "https://openreview.net/forum?id=yqT7eBz1VJ",
                "https://arxiv.org/abs/2407.00453",
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
        p_acc_alpha=DEFAULT_P_ACC_ALPHA,
        p_acc_beta=DEFAULT_P_ACC_BETA,
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
            keys=("degress", "egises", "p_accuracy", "accuracy_distance"),
            per_summary=("degress",) if return_per_summary else (),
            per_document=("degress",) if return_per_document else (),
            signature=return_signature,
        )
