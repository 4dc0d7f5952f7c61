"""The vert family's metric as the package knows it: ``vert``."""

from persona_metrics.metric_spec import MetricSpec
from persona_metrics.vert.params import VertParams
from persona_metrics.vert.scorer import VertResult
from persona_metrics.vert.states import VERT as VERT_CODEC

#: VERT = ½(1 + sim − capped WMD / 5) (``docs/vert.md``); a reference may be a list (the best-scoring one is kept).
VERT = MetricSpec(
    name="vert",
    family="vert",
    function="persona_metrics.vert.scorer:score_vert",
    inputs=("predictions", "references"),
    params=(VertParams,),
    result=VertResult,
    headline="vert",
    list_inputs=("references",),
    extra="vert",
    codec=VERT_CODEC,
)
#: The family's metrics.
SPECS: tuple[MetricSpec, ...] = (VERT,)
