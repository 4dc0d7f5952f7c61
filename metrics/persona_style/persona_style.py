"""Persona style fidelity: how well a summary matches the writing style of its target persona."""

import evaluate

from persona_metrics.integrations.evaluate_support import ValidatedTextInputs
from persona_metrics.integrations.registry import warn_if_stale
from persona_metrics.persona.formulas import DEFAULT_STYLE_METHOD
from persona_metrics.persona.samples import BUILTIN_PERSONAS
from persona_metrics.persona.spec import PERSONA_STYLE
from persona_metrics.persona.style import StyleParams, score_style
from persona_metrics.significance import DEFAULT_BOOTSTRAP_SEED

warn_if_stale(PERSONA_STYLE.name, __file__)

_CITATION = """\
persona-metrics: persona-aware summary quality assessment (style fidelity); the formulas, samples and
held-out evaluation are described in the metric card.
"""

_DESCRIPTION = """\
Style fidelity compares 10 stylometric features of a summary (function-word rate, sentence length, type-token
ratio, comma/period/exclamation/question rates, pronoun rate, Flesch-Kincaid grade, word length) with the
centroid of a writing persona's sample texts. Both vectors are treated as distributions and compared by the
Jensen-Shannon divergence (base 2): style_similarity = 1 - JSD, in [0, 1] (the default, `method="jsd"`);
`method="zscore"` measures each feature in standard deviations of the pooled persona samples instead, and
`method="posterior"` gives the probability of the target persona among all personas in use (how strongly the
summary reads as the target rather than the others). `method="fidelity"` is graded, open-set and length-aware:
the share of texts of the summary's length, half the persona's own and half in none of the personas' registers,
that read less like the persona (use it for summaries; bands 0.74 / 0.62 / 0.53). Shipped personas: {personas};
add your own with `persona_samples` or `persona_dir`.
""".replace("{personas}", ", ".join(BUILTIN_PERSONAS))

_KWARGS_DESCRIPTION = """
Args:
    predictions (`list` of `str`): summaries to score; each must contain at least one word, unless empty="zero".
    personas (`list` of `str`): the target persona of each summary.
    method (`str`): "jsd" (default, the methodology: 1 - Jensen-Shannon divergence), "zscore" (the
        project's extension: per-feature agreement exp(-z^2/2), z in standard deviations of the pooled persona
        samples, averaged over the 10 features; spreads scores over [0, 1]) or "posterior" (the project's
        extension: the probability of the target among the personas from an L2 logistic regression fitted on
        their samples; the scores of one text over the personas sum to 1; needs 2 personas; see the card) or
        "fidelity" (the project's: a calibrated, length-aware fidelity against the persona's own texts and texts in
        12 other registers; needs 2 texts per persona; see the card).
    persona_samples (`dict`, optional): extra or overriding personas, `{name: [sample texts]}`.
    persona_dir (`str`, optional): a directory of `{persona}.txt` files (samples separated by `---` lines); its
        file names are its personas.
    centroid_cache (`str`, optional): the centroid cache file (default: persona_centroids.json in the library's
        cache directory).
    bootstrap (`int`): item resamples for a 95 % percentile interval of the mean similarity (0 = off, the
        default; else 2 to 1,000,000); the signature records `bootstrap:N,seed:S`.
    seed (`int`): bootstrap seed (default 12345; >= 0).
    empty (`str`): what a prediction without a word does: "error" (default) raises the named error; "zero"
        scores it 0 (nearest_persona, bands and features None), the mean over all items with those zeros.
    return_features (`bool`): add `features`: per item `{feature: [summary value, centroid value]}`.
    return_nearest (`bool`): add `nearest_persona` (per item) and `bands` (per item interpretation).
    return_signature (`bool`): add the config signature string (feature set, method, samples, version).
Returns:
    style_similarity (`float`): mean similarity, in [0, 1]; scores (`list` of `float`): per item, in [0, 1];
    style_similarity_ci_low, style_similarity_ci_high (`float`, with bootstrap > 0): its 95 % interval.
Examples:
    >>> import evaluate
    >>> style = evaluate.load("persona_style")
    >>> note = ("We maintain our Overweight rating, as we believe consensus estimates, which remain conservative, "
    ...         "underestimate the operating leverage inherent in the company's recurring revenue base.")
    >>> blog = "Wow, they crushed it! Sales are up 11%. Should you buy? I did!"
    >>> out = style.compute(predictions=[note, blog], personas=["formal_analyst", "formal_analyst"],
    ...                     return_nearest=True)
    >>> out["scores"][0] > out["scores"][1]
    True
    >>> out["nearest_persona"]
    ['formal_analyst', 'enthusiast']
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class PersonaStyle(ValidatedTextInputs, evaluate.Metric):
    """Persona style fidelity as an evaluate metric (a thin shell over ``persona_metrics.persona.style``)."""

    _spec = PERSONA_STYLE  # inputs, params, row options and install extra: the metric registry's
    _empty_ok = ("predictions",)  # accepted when added; the library refuses them unless empty="zero"

    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=self._text_features(),
            reference_urls=["https://doi.org/10.1109/18.61115"],
        )

    def _compute(
        self,
        predictions,
        personas,
        method=DEFAULT_STYLE_METHOD,
        persona_samples=None,
        persona_dir=None,
        centroid_cache=None,
        bootstrap=0,
        seed=DEFAULT_BOOTSTRAP_SEED,
        empty="error",
        return_features=False,
        return_nearest=False,
        return_signature=False,
    ):
        params = self.checked_params(StyleParams, locals())  # checked once: passed down
        result = score_style(predictions, personas, params=params, return_features=return_features)
        return self._output(
            result, return_features=return_features, return_nearest=return_nearest, return_signature=return_signature
        )

    def present(self, result, return_features=False, return_nearest=False, return_signature=False, **_):
        """The output dict of a StyleResult (also of a merged one)."""
        return result.as_dict(features=return_features, nearest=return_nearest, signature=return_signature)
