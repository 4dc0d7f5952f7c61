"""The personalization family's metrics as the package knows them: ``perseval`` and ``degress``.

Both score one summarizer with :func:`~persona_metrics.personalization.scorer.score_personalization` over whole
documents (a document's users are compared with each other), so their states are per document.
"""

from dataclasses import replace

from persona_metrics.metric_spec import MetricSpec
from persona_metrics.personalization.params import DistanceChoice, PersevalParams
from persona_metrics.personalization.scorer import PersonalizationResult

#: PerSEval = DEGRESS × EDP (``docs/perseval.md``).
PERSEVAL = MetricSpec(
    name="perseval",
    family="personalization",
    function="persona_metrics.personalization.scorer:score_personalization",
    inputs=("predictions", "references", "documents"),
    params=(DistanceChoice, PersevalParams),
    result=PersonalizationResult,
    headline="perseval",
    row_options=("document_ids",),
    by_document=True,
    hook_columns={"documents": "document"},
    empty_rewarded=True,  # an empty summary is at distance 1 from every text: it looks responsive
)
#: DEGRESS / EGISES / P-Acc: the same call, another headline.
DEGRESS = replace(PERSEVAL, name="degress", headline="degress")
#: The family's metrics, in table order.
SPECS: tuple[MetricSpec, ...] = (PERSEVAL, DEGRESS)
