"""Persona quality: 0.7 x content quality (ROUGE-Lsum, BERTScore, optional BLEURT) + 0.3 x style fidelity.

References may be one string or a list of strings per prediction, as in evaluate's rouge. An item with several
references keeps the one with the highest content_quality (the weighted ROUGE-Lsum / BERTScore / BLEURT sum; the
first on ties) and reports all its content components against that one reference, so content_quality stays
their weighted sum (evaluate's rouge instead maximises each ROUGE type on its own).
"""

import evaluate

from persona_metrics.integrations.evaluate_support import ValidatedReferenceLists
from persona_metrics.integrations.registry import warn_if_stale
from persona_metrics.persona.formulas import DEFAULT_STYLE_METHOD
from persona_metrics.persona.quality import QualityParams, score_quality
from persona_metrics.persona.samples import BUILTIN_PERSONAS
from persona_metrics.persona.spec import PERSONA_QUALITY
from persona_metrics.significance import DEFAULT_BOOTSTRAP_SEED

warn_if_stale(PERSONA_QUALITY.name, __file__)

_CITATION = """\
persona-metrics: persona-aware summary quality assessment, methodology in docs/style.md
of the project; ROUGE (Lin, 2004), BERTScore (Zhang et al., ICLR 2020), BLEURT (Sellam et al., ACL 2020).
"""

_DESCRIPTION = """\
Overall persona quality of a summary = 0.70 x content quality + 0.30 x style similarity to the target persona.
Content quality = 0.40 x ROUGE-Lsum F1 + 0.30 x BERTScore F1 + 0.30 x BLEURT (clipped to [0, 1]), or
0.40 x ROUGE-Lsum + 0.60 x BERTScore without BLEURT (the default). ROUGE-Lsum uses real sentence splitting
(Punkt). BERTScore uses the packaged all-MiniLM-L6-v2 by default, rescaled with the baseline the project ships
(see the card); `rescale` in the result says whether scores are rescaled. A prediction may have several
references: the one with the highest content quality is kept, for every content component.
"""

_KWARGS_DESCRIPTION = """
Args:
    predictions (`list` of `str`): generated summaries (each must contain at least one word, unless empty="zero").
    references (`list` of `str` or `list` of `list` of `str`): one reference summary per prediction, or a list
        of references per prediction (mixed allowed). With several, the item keeps the reference with the
        highest content_quality (the weighted content score, not each component's own best; ties: the first),
        and all its content components are that reference's.
    personas (`list` of `str`): target persona per item ({personas}, or your own).
    bertscore_model (`str`, optional): a local path or Hub id (default: the packaged all-MiniLM-L6-v2).
    bertscore_layers (`int`, optional): BERTScore layer (default: the model's).
    rescale (`bool`): rescale BERTScore with the model's baseline (default True; an error if none exists).
    baseline_path (`str`, optional): a bert_score-format baseline file (LAYER,P,R,F).
    bleurt_checkpoint (`str`, optional): a BLEURT checkpoint (path or Hub id) to add BLEURT; default off.
    content_weights (`dict`, optional): weights of "rougeLsum", "bertscore" (and "bleurt"), summing to 1.
    overall_weights (`dict`, optional): weights of "content" and "style", summing to 1.
    persona_samples (`dict`, optional), persona_dir (`str`, optional): extra or overriding personas.
    centroid_cache (`str`, optional): the style centroid cache file (default: in the library's cache directory).
    style_method (`str`): style similarity method, "jsd" (default, the methodology), "zscore", "posterior"
        (the probability of the target persona among the personas) or "fidelity" (graded, open-set, length-aware;
        see the persona_style card; with posterior or fidelity the style term can outweigh a small content
        difference, see this card).
    bootstrap (`int`): item resamples for a 95 % percentile interval of every mean (0 = off, the default;
        else 2 to 1,000,000). All components use the same resamples; the signature records `bootstrap:N,seed:S`.
    seed (`int`): bootstrap seed (default 12345; >= 0).
    empty (`str`): what a prediction without a word does: "error" (default) raises the named error; "zero"
        scores every component of it 0 (band None), every mean over all items with those zeros.
    return_per_item (`bool`): add per-item lists of every component and the interpretation band.
    return_signature (`bool`): add the config signature string.
Returns:
    overall_quality, content_quality, style_similarity, rougeLsum, bertscore_f1 (and bleurt): means (`float`);
    style_similarity, rougeLsum and bleurt in [0, 1]; bertscore_f1 in [-1, 1] raw, in [(-1 - b)/(1 - b), 1]
    rescaled with baseline b (negative when below the baseline); content_quality and overall_quality, weighted
    sums with weights summing to 1, are <= 1 and negative only through a negative bertscore_f1;
    <key>_ci_low, <key>_ci_high (`float`, with bootstrap > 0): the 95 % interval of each of those means;
    bertscore_rescaled (`int`, 1 or 0): whether bertscore_f1 is baseline-rescaled.
Examples:
    >>> import evaluate
    >>> quality = evaluate.load("persona_quality")
    >>> ref = "Harbor Foods raised its sales outlook and will open two stores, the company said on Tuesday."
    >>> good = "Harbor Foods raised its outlook and plans two new stores, the grocer said on Tuesday."
    >>> off = "Wow, Harbor Foods rocks! More stores! Buy now?"
    >>> out = quality.compute(predictions=[good, off], references=[ref, ref], personas=["journalist"] * 2,
    ...                       return_per_item=True)
    >>> out["per_item"]["overall_quality"][0] > out["per_item"]["overall_quality"][1]
    True
    >>> sorted(k for k in out if k != "per_item")
    ['bertscore_f1', 'bertscore_rescaled', 'content_quality', 'overall_quality', 'rougeLsum', 'style_similarity']
    >>> one = quality.compute(predictions=[good], references=[ref], personas=["journalist"])
    >>> best = quality.compute(predictions=[good], references=[[off, ref]], personas=["journalist"])
    >>> round(best["content_quality"], 6) == round(one["content_quality"], 6)
    True
""".replace("{personas}", ", ".join(BUILTIN_PERSONAS))


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class PersonaQuality(ValidatedReferenceLists, evaluate.Metric):
    """Persona quality as an evaluate metric (a thin shell over ``persona_metrics.persona.quality``)."""

    _spec = PERSONA_QUALITY  # inputs, params, row options and install extra: the metric registry's
    _empty_ok = ("predictions",)  # accepted when added; the library refuses them unless empty="zero"

    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=self._text_features(),
            reference_urls=[
                "https://aclanthology.org/W04-1013",
                "https://openreview.net/forum?id=SkeHuCVFDr",
                "https://aclanthology.org/2020.acl-main.704",
            ],
        )

    def _compute(
        self,
        predictions,
        references,
        personas,
        bertscore_model=None,
        bertscore_layers=None,
        rescale=True,
        baseline_path=None,
        bleurt_checkpoint=None,
        content_weights=None,
        overall_weights=None,
        persona_samples=None,
        persona_dir=None,
        centroid_cache=None,
        style_method=DEFAULT_STYLE_METHOD,
        bootstrap=0,
        seed=DEFAULT_BOOTSTRAP_SEED,
        empty="error",
        return_per_item=False,
        return_signature=False,
    ):
        params = self.checked_params(QualityParams, locals())  # checked once: passed down
        result = score_quality(predictions, references, personas, params=params)
        return self._output(result, rescale=rescale, return_per_item=return_per_item, return_signature=return_signature)

    def present(self, result, rescale=True, return_per_item=False, return_signature=False, **_):
        """The output dict of a QualityResult (also of a merged one)."""
        out = result.as_dict(per_item=return_per_item, signature=return_signature)
        out["bertscore_rescaled"] = int(bool(rescale))
        return out
