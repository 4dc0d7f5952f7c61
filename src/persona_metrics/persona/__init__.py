"""Persona style fidelity and persona quality: stylometric features, persona centroids, content + style scores.

* :mod:`~persona_metrics.persona.stylometry`: the 10 features of a text (pure);
* :mod:`~persona_metrics.persona.formulas`: JSD, z-score agreement, centroids, nearest persona (pure, on vectors);
* :mod:`~persona_metrics.persona.posterior`: the persona posterior of ``method="posterior"`` (pure, on vectors);
* :mod:`~persona_metrics.persona.fidelity`: the length models and calibration of ``method="fidelity"`` (pure);
* :mod:`~persona_metrics.persona.samples`: the persona folder, its ``{persona}.txt`` files and the persona registry
  (:data:`~persona_metrics.persona.samples.BUILTIN_PERSONAS`, :func:`~persona_metrics.persona.samples.persona_names`);
* :mod:`~persona_metrics.persona.params`: :class:`StyleParams` and :class:`QualityParams`, the validated options;
* :mod:`~persona_metrics.persona.style`: :func:`score_style`, its result and the centroid cache;
* :mod:`~persona_metrics.persona.recognition`: held-out recognition, own-persona ranking, the methodology's ranges,
  persona inference;
* :mod:`~persona_metrics.persona.content`: content quality: ROUGE-Lsum, BERTScore, optional BLEURT;
* :mod:`~persona_metrics.persona.quality`: the 70/30 combination of content quality and style similarity;
* :mod:`~persona_metrics.persona.comparison`: :func:`compare_quality`, the paired test of two quality results.

The public names are re-exported here: ``from persona_metrics.persona import score_style``.
"""

from persona_metrics.persona.comparison import compare_quality
from persona_metrics.persona.content import ContentResult, score_content
from persona_metrics.persona.params import BertScoreConfig, QualityParams, StyleParams
from persona_metrics.persona.quality import QUALITY_BANDS, QualityResult, quality_band, score_quality
from persona_metrics.persona.style import (
    BUILTIN_PERSONAS,
    DEFAULT_STYLE_METHOD,
    METHODOLOGY_RANGES,
    PRONOUN_ORDER,
    SAMPLE_SEPARATOR,
    STYLE_BANDS,
    STYLE_METHODS,
    PersonaEvaluation,
    StyleModel,
    StyleResult,
    build_centroids,
    evaluate_personas,
    infer_persona,
    leave_one_out_accuracy,
    leave_one_out_ranking,
    load_persona_samples,
    own_persona_ranking,
    persona_names,
    sample_feature_means,
    score_style,
    style_band,
)

__all__ = [
    "BUILTIN_PERSONAS",
    "DEFAULT_STYLE_METHOD",
    "METHODOLOGY_RANGES",
    "PRONOUN_ORDER",
    "QUALITY_BANDS",
    "SAMPLE_SEPARATOR",
    "STYLE_BANDS",
    "STYLE_METHODS",
    "BertScoreConfig",
    "ContentResult",
    "PersonaEvaluation",
    "QualityParams",
    "QualityResult",
    "StyleModel",
    "StyleParams",
    "StyleResult",
    "build_centroids",
    "compare_quality",
    "evaluate_personas",
    "infer_persona",
    "leave_one_out_accuracy",
    "leave_one_out_ranking",
    "load_persona_samples",
    "own_persona_ranking",
    "persona_names",
    "quality_band",
    "sample_feature_means",
    "score_content",
    "score_quality",
    "score_style",
    "style_band",
]
