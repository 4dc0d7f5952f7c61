"""The persona family's metrics as the package knows them: ``persona_style`` and ``persona_quality``.

Style needs a word, so a prediction without one counts as empty for both.
"""

from persona_metrics.metric_spec import MetricSpec
from persona_metrics.persona.params import QualityParams, StyleParams
from persona_metrics.persona.quality import QualityResult
from persona_metrics.persona.states import QUALITY as QUALITY_CODEC
from persona_metrics.persona.states import STYLE as STYLE_CODEC
from persona_metrics.persona.style import StyleResult

#: Style fidelity to a writing persona (``docs/style.md``).
PERSONA_STYLE = MetricSpec(
    name="persona_style",
    family="persona",
    function="persona_metrics.persona.style:score_style",
    inputs=("predictions", "personas"),
    params=(StyleParams,),
    result=StyleResult,
    headline="style_similarity",
    hook_columns={"personas": "persona"},
    wordless_empty=True,
    codec=STYLE_CODEC,
)
#: 0.7 × content quality + 0.3 × style fidelity (``docs/style.md``).
PERSONA_QUALITY = MetricSpec(
    name="persona_quality",
    family="persona",
    function="persona_metrics.persona.quality:score_quality",
    inputs=("predictions", "references", "personas"),
    params=(QualityParams,),
    result=QualityResult,
    headline="overall_quality",
    hook_columns={"personas": "persona"},
    wordless_empty=True,
    extra="neural",
    codec=QUALITY_CODEC,
)
#: The family's metrics, in table order.
SPECS: tuple[MetricSpec, ...] = (PERSONA_STYLE, PERSONA_QUALITY)
