"""VERT: Versatile Evaluation of Reduced Texts (sentence-embedding similarity + word mover's distance)."""

import evaluate

from persona_metrics.integrations.evaluate_support import ValidatedReferenceLists
from persona_metrics.integrations.registry import warn_if_stale
from persona_metrics.vert import score_vert
from persona_metrics.vert.encoders import WORDLLAMA
from persona_metrics.vert.formulas import DEFAULT_ALPHA, DEFAULT_MAX_WMD
from persona_metrics.vert.params import VertParams
from persona_metrics.vert.spec import VERT
from persona_metrics.vert.vectors import GLOVE_6B_50D

warn_if_stale(VERT.name, __file__)

_CITATION = """\
@article{krantz2018abstractive,
  title   = {Abstractive Summarization Using Attentive Neural Techniques},
  author  = {Krantz, Jacob and Kalita, Jugal},
  journal = {arXiv preprint arXiv:1810.08838},
  year    = {2018}
}
"""

_DESCRIPTION = """\
VERT = 1/2 * (1 + sim - min(WMD, 5) / 5) per pair, averaged over pairs (the formula of the authors' code).
sim is the cosine of two sentence embeddings (WordLlama l2_supercat_256 by default; the original used
InferSent, which is not packaged). WMD is the word mover's distance of the two texts after lower-casing,
whitespace splitting, removal of NLTK's English stopwords and of out-of-vocabulary words, with nBOW weights
and Euclidean cost on raw word vectors (GloVe 6B 50d by default, packaged; the original used GoogleNews
word2vec, available with `word_vectors=PATH`), capped at 5. Absolute VERT differs from the paper's because the
vectors and the encoder differ; see the card for the measured tables.
"""

_KWARGS_DESCRIPTION = """
Args:
    predictions (`list` of `str`): generated texts. An empty prediction is allowed: sim 0, WMD 5 (the cap),
        VERT 0.
    references (`list` of `str` or `list` of `list` of `str`): one reference per prediction, or a list of
        references per prediction (the one with the highest VERT is kept, as evaluate's rouge does).
    encoder (`str`, optional): "wordllama" (default), "minilm" (the packaged all-MiniLM-L6-v2), a
        sentence-transformers model folder, or a callable texts -> array.
    word_vectors (`str`, optional): "glove-6b-50d" (default, packaged) or a path to a word2vec (.bin or text)
        or GloVe text file (needs gensim: pip install 'persona-metrics[vectors]').
    alpha (`float`): divisor of the capped WMD (default 5, the authors'); finite, > 0.
    max_wmd (`float`): the WMD cap (default 5, the authors'); finite, > 0, with max_wmd / alpha <= 1e6.
    clip_negative_sim (`bool`): raise negative cosines to 0 (default False, like the original).
    meaning_sensitive (`bool`): the meaning-sensitive WMD (default False, the original): negations, numbers and
        words without a vector are kept and must match (numbers by value and slot), opposites (WordNet and a
        directional list) and names that swapped roles cost, so a negated, number-changed, role-swapped or
        antonym edit scores lower (docs/vert.md section 11).
    return_per_item (`bool`): add `per_item` = {"vert", "sim", "wmd"}: one list each.
    return_alignment (`bool`): add `alignment`: per item, the words of both sides and the WMD's transport
        flows [prediction word index, reference word index, mass, distance].
    return_signature (`bool`): add the config signature string (encoder, vectors, alpha, cap, versions).
Returns:
    vert (`float`): mean VERT, in [-max_wmd / (2 * alpha), 1] ([-0.5, 1] with the defaults; with
        clip_negative_sim, [(1 - max_wmd / alpha) / 2, 1]); sim (`float`): mean cosine similarity, in [-1, 1]
        ([0, 1] with clip_negative_sim); wmd (`float`): mean capped WMD, in [0, max_wmd].
Examples:
    >>> import evaluate
    >>> vert = evaluate.load("vert")
    >>> target = "Endeavour astronauts join two segments of International Space Station"
    >>> out = vert.compute(
    ...     predictions=[target.replace("segments", "sections"), target.replace("join", "remove"), target],
    ...     references=[target, target, target],
    ...     return_per_item=True,
    ... )
    >>> [round(v, 3) for v in out["per_item"]["vert"]]
    [0.946, 0.907, 1.0]
    >>> sorted(k for k in out if k != "per_item")
    ['sim', 'vert', 'wmd']
    >>> out = vert.compute(predictions=["the calculator overheated"],
    ...                    references=[["the calculator is really hot", "sammy lived as a great person"]])
    >>> round(out["wmd"], 3)
    3.931
    >>> reference = "The airline ordered 20 new jets with options for 30 more"
    >>> pairs = {"predictions": ["The carrier ordered 20 new planes with options for 30 more",  # a paraphrase
    ...                          "The airline ordered 30 new jets with options for 20 more"],  # numbers swapped
    ...          "references": [reference, reference], "return_per_item": True}
    >>> [round(v, 3) for v in vert.compute(**pairs)["per_item"]["vert"]]  # the original: the same bag of words
    [0.717, 1.0]
    >>> [round(v, 3) for v in vert.compute(**pairs, meaning_sensitive=True)["per_item"]["vert"]]
    [0.717, 0.5]
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class Vert(ValidatedReferenceLists, evaluate.Metric):
    """VERT as an evaluate metric (a thin shell over ``persona_metrics.vert``)."""

    _spec = VERT  # inputs, params, row options and install extra: the metric registry's

    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=self._text_features(),
            homepage="https://github.com/jacobkrantz/VertMetric",
            reference_urls=["https://arxiv.org/abs/1810.08838"],
        )

    def _compute(
        self,
        predictions,
        references,
        encoder=WORDLLAMA,
        word_vectors=GLOVE_6B_50D,
        alpha=DEFAULT_ALPHA,
        max_wmd=DEFAULT_MAX_WMD,
        clip_negative_sim=False,
        meaning_sensitive=False,
        return_per_item=False,
        return_alignment=False,
        return_signature=False,
    ):
        result = score_vert(predictions, references, params=self.checked_params(VertParams, locals()))
        return self._output(
            result,
            return_per_item=return_per_item,
            return_alignment=return_alignment,
            return_signature=return_signature,
        )

    def present(self, result, return_per_item=False, return_alignment=False, return_signature=False, **_):
        """The output dict of a VertResult (also of a merged one)."""
        return result.as_dict(per_item=return_per_item, signature=return_signature, alignment=return_alignment)
