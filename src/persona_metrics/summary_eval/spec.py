"""The summary_eval family's metric as the package knows it: ``summary_eval``.

The library function takes its judge as ``judge=`` (the evaluate module's judge options build one); its params are
the scoring options.
"""

from persona_metrics.metric_spec import MetricSpec
from persona_metrics.summary_eval.params import SummaryEvalParams
from persona_metrics.summary_eval.scorer import SummaryEvalResult
from persona_metrics.summary_eval.states import SUMMARY_EVAL as SUMMARY_EVAL_CODEC

#: 0.6 judge accuracy + 0.25 completeness + 0.15 coherence (``docs/summary_eval.md``).
SUMMARY_EVAL = MetricSpec(
    name="summary_eval",
    family="summary_eval",
    function="persona_metrics.summary_eval.scorer:score_summary_eval",
    inputs=("predictions", "sources"),
    params=(SummaryEvalParams,),
    result=SummaryEvalResult,
    headline="overall",
    hook_columns={"sources": "document"},
    extra="neural",
    judged=True,
    codec=SUMMARY_EVAL_CODEC,
)
#: The family's metrics.
SPECS: tuple[MetricSpec, ...] = (SUMMARY_EVAL,)
