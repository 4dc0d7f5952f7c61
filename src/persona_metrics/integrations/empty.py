"""Empty generations in the training hooks and the distributed metric classes: the ``empty=`` policy.

A model in training can generate an empty summary (``""``, or only whitespace). The library's functions and
``evaluate`` modules keep their named error for it where the metric is undefined on an empty text:
``persona_style`` and ``persona_quality`` need a word to measure style, so for them a prediction without a word
(``"!!!"``) is empty too. A training run must not stop on what the model generates, so the hooks
(:mod:`persona_metrics.integrations.hooks`) and the distributed metric classes
(:mod:`persona_metrics.integrations.distributed`) take ``empty=`` (:data:`ALLOWED_EMPTY`, default
:data:`DEFAULT_EMPTY`):

* ``"zero"``: an empty prediction gets the metric's score for an empty summary. Where the library defines one it
  is kept as it is (``perseval`` / ``degress``: the summary is at distance 1 from every text; ``vert``: sim 0,
  WMD at the cap, VERT 0; ``summary_eval``: accuracy 0 without a judge call, completeness 0, coherence 0).
  Where the library refuses the text, the item scores 0 (``persona_style``: style similarity 0;
  ``persona_quality``: every component 0): the other items are scored by the library and every mean is taken
  over all items with those zeros, so it drops by the share of empty items;
* ``"skip"``: the empty predictions (with their rows of the other inputs) are left out; the result is that of
  the other items alone (only ``num_empty`` when nothing is left);
* ``"error"``: the library's named error (``predictions[i] is empty (empty or whitespace-only text)``, or the
  style metrics' ``predictions[i]: text has no words``).

Every result carries ``num_empty`` (the count over the whole evaluation, all processes; ``eval_num_empty`` in
the Trainer's logs), and the first evaluation with an empty prediction warns once per hook or class instance.
The per-metric meaning of ``"zero"`` is in the repository's docs/evaluate_conventions.md §4.4.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from persona_metrics.persona.stylometry import words
from persona_metrics.significance import DEFAULT_BOOTSTRAP_SEED, bootstrap_intervals, check_bootstrap
from persona_metrics.validation import check_choice, check_text, checked_mean, warn

__all__ = ["ALLOWED_EMPTY", "DEFAULT_EMPTY", "NUM_EMPTY", "WORDLESS_UNDEFINED", "EmptyPolicy", "is_empty"]

#: The values of ``empty=`` (checked when a hook or a class is built).
ALLOWED_EMPTY: tuple[str, ...] = ("zero", "skip", "error")
#: The default: training goes on, each empty prediction scores the metric's empty-summary score or 0.
DEFAULT_EMPTY = "zero"
#: Metrics whose library refuses a prediction without a word (style features are undefined for it); under
#: ``"zero"`` their empty items are scored 0 here, the others by the library.
WORDLESS_UNDEFINED: tuple[str, ...] = ("persona_style", "persona_quality")
#: The result key of the count of empty predictions (``eval_num_empty`` in the Trainer's logs).
NUM_EMPTY = "num_empty"

#: The means of the metrics of WORDLESS_UNDEFINED, in their results' order (``bleurt`` added when enabled).
_MEANS: dict[str, tuple[str, ...]] = {
    "persona_style": ("style_similarity",),
    "persona_quality": ("overall_quality", "content_quality", "style_similarity", "rougeLsum", "bertscore_f1"),
}
#: persona_style's per-item lists other than ``scores`` (present when asked for), filled with None for empty items.
_STYLE_LISTS = ("features", "nearest_persona", "bands")


def is_empty(name: str, text: str) -> bool:
    """Whether ``text`` is an empty prediction for metric ``name``.

    Empty or whitespace-only for every metric (as :func:`persona_metrics.validation.check_text` has it); for the
    metrics of :data:`WORDLESS_UNDEFINED`, also a text without a word.
    """
    if not text or text.isspace():
        return True
    return name in WORDLESS_UNDEFINED and not words(text)


class EmptyPolicy:
    """One hook's or metric class's ``empty=`` policy over the evaluations it scores.

    An evaluation is :meth:`select` on its predictions (once, or once per batch with the offset of the batch),
    scoring of the selected rows, then :meth:`result`, which gives the result over every row with ``num_empty``
    and forgets the evaluation. :meth:`score` does the three for rows given at once.

    Attributes:
        name: the metric's name.
        policy: one of :data:`ALLOWED_EMPTY`.
    """

    def __init__(self, name: str, empty: object) -> None:
        """Check ``empty``.

        Raises:
            ValueError: ``empty`` is not one of :data:`ALLOWED_EMPTY` (the allowed values named).
        """
        self.name = name
        self.policy = check_choice("empty", empty, ALLOWED_EMPTY)
        self._warned = False
        self._empty: list[int] = []
        self._dropped: list[int] = []

    @property
    def dropped(self) -> frozenset[int]:
        """Positions (in this evaluation) of the rows left out of scoring."""
        return frozenset(self._dropped)

    def reset(self) -> None:
        """Forget the current evaluation (a failed one included)."""
        self._empty, self._dropped = [], []

    def select(self, predictions: Sequence[str], offset: int = 0) -> list[int]:
        """Positions in ``predictions`` of the rows to score; the empty ones are recorded.

        Args:
            predictions: the predictions of the evaluation, or of one batch of it.
            offset: the number of rows of this evaluation before ``predictions``.

        Raises:
            ValueError: with ``"error"``, an empty or whitespace-only prediction (its position in the evaluation
                named). A text without a word is passed on: the style metrics name it themselves.
        """
        empty = [i for i, text in enumerate(predictions) if is_empty(self.name, text)]
        if self.policy == "error":
            for i in empty:
                check_text(predictions[i], f"predictions[{offset + i}]")
        self._empty.extend(offset + i for i in empty)
        if not empty or not self._drops_empty:
            return list(range(len(predictions)))
        self._dropped.extend(offset + i for i in empty)
        left_out = set(empty)
        return [i for i in range(len(predictions)) if i not in left_out]

    @property
    def _drops_empty(self) -> bool:
        """Whether empty rows are kept from the library (skipped, or scored 0 here)."""
        return self.policy == "skip" or (self.policy == "zero" and self.name in WORDLESS_UNDEFINED)

    def compute_options(self, options: Mapping[str, Any]) -> dict[str, Any]:
        """The compute options, with per-item values asked for when empty items are to be scored 0 here."""
        if self.policy == "zero" and self._dropped and self.name == "persona_quality":
            return {**options, "return_per_item": True}
        return dict(options)

    def result(self, result: Mapping[str, Any] | None, n: int, options: Mapping[str, Any]) -> dict[str, Any]:
        """The result over all ``n`` rows of the evaluation, with ``num_empty``; the evaluation is then forgotten.

        Args:
            result: the library's result for the selected rows, ``None`` when no row was selected.
            n: the number of rows of the evaluation.
            options: the compute options as the user gave them.
        """
        count = len(self._empty)
        if self.policy == "zero" and self._dropped:
            out = zero_filled(self.name, result, sorted(self._dropped), n, options)
        else:
            out = dict(result) if result is not None else {}
        out[NUM_EMPTY] = count
        if count and not self._warned:
            self._warned = True
            warn(self._message(count, n, scored=result is not None or self.policy == "zero"))
        self.reset()
        return out

    def score(
        self, compute: Callable[..., Mapping[str, Any]], columns: Mapping[str, list[Any]], options: Mapping[str, Any]
    ) -> dict[str, Any]:
        """Score an evaluation given at once under the policy.

        Args:
            compute: the metric's ``compute`` (keyword arguments: the columns, then the options).
            columns: ``predictions`` and every other per-item input, aligned lists.
            options: the compute options.
        """
        self.reset()
        n = len(columns["predictions"])
        keep = self.select(columns["predictions"])
        result = None
        if keep:
            rows = dict(columns) if len(keep) == n else {k: [v[i] for i in keep] for k, v in columns.items()}
            result = compute(**rows, **self.compute_options(options))
        return self.result(result, n, options)

    def _message(self, count: int, n: int, scored: bool) -> str:
        what = (
            "empty, whitespace-only or without a word"
            if self.name in WORDLESS_UNDEFINED
            else "empty or whitespace-only"
        )
        if self.policy == "zero":
            done = "each gets the metric's score for an empty summary (0 where the library has none)"
        elif scored:
            done = "they are left out of the scores"
        else:
            done = "nothing was left to score, so only num_empty is reported"
        return (
            f"{self.name}: {count} of {n} predictions are {what}; with empty={self.policy!r} {done}. num_empty "
            "reports the count of every evaluation (eval_num_empty in the Trainer's logs); this warning is shown once"
        )


def _spread(values: Sequence[Any], dropped: Sequence[int], n: int, fill: Any) -> list[Any]:
    """``values`` of the kept rows placed among ``n`` rows, ``fill`` at the ``dropped`` positions."""
    left_out = set(dropped)
    kept = iter(values)
    return [fill if i in left_out else next(kept) for i in range(n)]


def _per_item_means(name: str, result: Mapping[str, Any]) -> dict[str, list[float]]:
    """Mean key -> the per-item values it is the mean of, from a result of a WORDLESS_UNDEFINED metric."""
    if name == "persona_style":
        return {"style_similarity": list(result["scores"])}
    per_item = result["per_item"]
    return {key: list(values) for key, values in per_item.items() if key in result}


def _intervals(out: dict[str, Any], filled: Mapping[str, Sequence[float]], options: Mapping[str, Any]) -> None:
    """Set ``<key>_ci_low`` / ``_ci_high`` of every mean from all its values, as the library does (same seed)."""
    bootstrap, seed = check_bootstrap(options.get("bootstrap", 0), options.get("seed", DEFAULT_BOOTSTRAP_SEED))
    if not bootstrap:
        return
    for key, (low, high) in bootstrap_intervals(filled, bootstrap, seed).items():
        out[f"{key}_ci_low"], out[f"{key}_ci_high"] = low, high


def zero_filled(
    name: str, result: Mapping[str, Any] | None, dropped: Sequence[int], n: int, options: Mapping[str, Any]
) -> dict[str, Any]:
    """The result of a WORDLESS_UNDEFINED metric over ``n`` rows, the ``dropped`` (empty) ones scoring 0.

    The means and their intervals are computed from all ``n`` per-item values by the library's own functions
    (:func:`~persona_metrics.validation.checked_mean`, :func:`~persona_metrics.significance.bootstrap_intervals`);
    per-item lists get 0 for the scores of the empty items and ``None`` for their other entries (nearest persona,
    band, features). With no row scored at all there is no signature.
    """
    if result is None:
        return _all_zero(name, n, options)
    filled = {key: _spread(values, dropped, n, 0.0) for key, values in _per_item_means(name, result).items()}
    out = dict(result)
    for key, values in filled.items():
        out[key] = checked_mean(values)
    _intervals(out, filled, options)
    if name == "persona_style":
        out["scores"] = filled["style_similarity"]
        for key in _STYLE_LISTS:
            if key in out:
                out[key] = _spread(out[key], dropped, n, None)
    elif options.get("return_per_item"):
        per_item = out["per_item"]
        out["per_item"] = {k: filled[k] if k in filled else _spread(v, dropped, n, None) for k, v in per_item.items()}
    else:
        del out["per_item"]  # asked for here only
    return out


def _all_zero(name: str, n: int, options: Mapping[str, Any]) -> dict[str, Any]:
    """The result of a WORDLESS_UNDEFINED metric when all ``n`` predictions are empty: every score 0."""
    means = _MEANS[name] + (("bleurt",) if name == "persona_quality" and options.get("bleurt_checkpoint") else ())
    filled = {key: [0.0] * n for key in means}
    intervals: dict[str, Any] = {}
    _intervals(intervals, filled, options)
    out: dict[str, Any] = {}
    for key in means:  # each mean followed by its interval, as in the library's results
        out[key] = 0.0
        out.update({k: v for k, v in intervals.items() if k in (f"{key}_ci_low", f"{key}_ci_high")})
    if name == "persona_style":
        out["scores"] = [0.0] * n
        style_lists = {"features": "return_features", "nearest_persona": "return_nearest", "bands": "return_nearest"}
        for key, flag in style_lists.items():
            if options.get(flag):
                out[key] = [None] * n
        return out
    if options.get("return_per_item"):
        out["per_item"] = {**filled, "band": [None] * n}
    out["bertscore_rescaled"] = int(bool(options.get("rescale", True)))
    return out
