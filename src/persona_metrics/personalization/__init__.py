"""DEGRESS, EGISES, P-Accuracy, ADP / ACP / DGP / EDP and PerSEval (``docs/perseval.md``).

* :mod:`~persona_metrics.personalization.formulas`: the paper's equations as pure functions of distance arrays,
  and :func:`~persona_metrics.personalization.formulas.aggregate`, the system reduction (eqs. 2 and 7);
* :mod:`~persona_metrics.personalization.params`: :class:`DistanceChoice` and :class:`PersevalParams`, the
  validated options;
* :mod:`~persona_metrics.personalization.scorer`: grouping, distance calls and the result objects;
* :mod:`~persona_metrics.personalization.merge`: the exact merge of results scored on parts of one input;
* :mod:`~persona_metrics.personalization.comparison`: the paired test of two results on their per-document values;
* :mod:`~persona_metrics.personalization.stability`: rank stability of a leaderboard under subsampling;
* :mod:`~persona_metrics.personalization.leaderboard`: systems scored, ranked and tested against each other.

The public names are re-exported here: ``from persona_metrics.personalization import score_personalization``.
"""

from persona_metrics.personalization.comparison import PERSONALIZATION_MEASURES, compare_personalization
from persona_metrics.personalization.formulas import (
    DEFAULT_ALPHA,
    DEFAULT_BETA,
    DEFAULT_BOOTSTRAP_SEED,
    DEFAULT_GAMMA,
    DEFAULT_P_ACC_ALPHA,
    DEFAULT_P_ACC_BETA,
    DEGRESS_EPSILON,
    PENALTY_SLOPE_EXPONENT,
    PERSEVAL_EPSILON,
    Penalties,
    SystemScores,
    accuracy_similarity,
    aggregate,
    bootstrap_interval,
    custom_sigmoid,
    degress_scores,
    document_means,
    edp_scores,
    p_accuracy,
)
from persona_metrics.personalization.leaderboard import LEADERBOARD_BOOTSTRAP, Leaderboard, rank_systems, score_systems
from persona_metrics.personalization.merge import ExcludedPart, merge_personalization, shard_of
from persona_metrics.personalization.params import DistanceChoice, PersevalParams, resolve_distance
from persona_metrics.personalization.scorer import (
    PER_SUMMARY_NAMES,
    SYSTEM_NAMES,
    DocumentGroup,
    DocumentScores,
    PersonalizationResult,
    PersonalizationScorer,
    group_documents,
    score_personalization,
)

__all__ = [
    "DEFAULT_ALPHA",
    "DEFAULT_BETA",
    "DEFAULT_BOOTSTRAP_SEED",
    "DEFAULT_GAMMA",
    "DEFAULT_P_ACC_ALPHA",
    "DEFAULT_P_ACC_BETA",
    "DEGRESS_EPSILON",
    "LEADERBOARD_BOOTSTRAP",
    "PENALTY_SLOPE_EXPONENT",
    "PERSEVAL_EPSILON",
    "PERSONALIZATION_MEASURES",
    "PER_SUMMARY_NAMES",
    "SYSTEM_NAMES",
    "DistanceChoice",
    "DocumentGroup",
    "DocumentScores",
    "ExcludedPart",
    "Leaderboard",
    "Penalties",
    "PersevalParams",
    "PersonalizationResult",
    "PersonalizationScorer",
    "SystemScores",
    "accuracy_similarity",
    "aggregate",
    "bootstrap_interval",
    "compare_personalization",
    "custom_sigmoid",
    "degress_scores",
    "document_means",
    "edp_scores",
    "group_documents",
    "merge_personalization",
    "p_accuracy",
    "rank_systems",
    "resolve_distance",
    "score_personalization",
    "score_systems",
    "shard_of",
]
