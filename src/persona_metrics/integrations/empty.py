"""Empty generations in the training hooks and the distributed metric classes: the ``empty=`` policy.

A training run must not stop on what the model generates, so the hooks (:mod:`persona_metrics.integrations.hooks`)
and the distributed classes (:mod:`persona_metrics.integrations.distributed`) take ``empty=`` (:data:`ALLOWED_EMPTY`,
default :data:`DEFAULT_EMPTY`) for a prediction that is empty or whitespace-only (for the style metrics, whose spec is
``wordless_empty``, also one without a word):

* ``"zero"``: it gets the library's score for an empty summary (the style metrics are given ``empty="zero"``);
  DEGRESS rewards empty output (:func:`empty_rewarded`, :data:`EMPTY_REWARDED_NOTE`), and the warning says so;
* ``"skip"``: it is left out with its row of every other input;
* ``"error"``: the library's named error.

This module only selects rows, counts, warns and passes options: every score is the library's. Every result carries
``num_empty`` (``eval_num_empty`` in the Trainer's logs); the first evaluation with an empty prediction warns once.
What ``"zero"`` means per metric, and why: docs/evaluate_conventions.md §4.4 (docs/style.md §4.6 for style).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from persona_metrics.metric_registry import METRIC_SPECS
from persona_metrics.persona.stylometry import is_wordless
from persona_metrics.validation import ALLOWED_EMPTY, check_empty, check_text
from persona_metrics.warning import warn

__all__ = [
    "ALLOWED_EMPTY",
    "DEFAULT_EMPTY",
    "EMPTY_REWARDED_NOTE",
    "NUM_EMPTY",
    "EmptyPolicy",
    "empty_rewarded",
    "is_empty",
    "wordless_undefined",
]

#: The default: training goes on, each empty prediction scores the metric's score for an empty summary (or 0).
DEFAULT_EMPTY = "zero"
#: The result key of the count of empty predictions (``eval_num_empty`` in the Trainer's logs).
NUM_EMPTY = "num_empty"
#: What the ``"zero"`` warning adds for the metrics whose score of an empty summary rewards it
#: (:func:`empty_rewarded`): the problem and what to do.
EMPTY_REWARDED_NOTE = (
    "DEGRESS rewards empty output: an empty summary is at distance 1 from every text, other empty summaries "
    "included, so empty generations raise degress (and lower egises) as if the model were responsive (an all-empty "
    "model scores a high DEGRESS, one identical text for every user about 0); only accuracy_distance (1 for an "
    "empty summary) and PerSEval show them. Do not pick checkpoints by eval_degress while eval_num_empty > 0: pass "
    "empty='skip' to score the non-empty predictions alone, or empty='error' to stop, and watch "
    "eval_accuracy_distance (docs/evaluate_conventions.md §4.4)"
)


def wordless_undefined(name: str) -> bool:
    """Whether metric ``name``'s library refuses a prediction without a word unless given ``empty="zero"``.

    The style metrics (style features are undefined for it; their spec's ``wordless_empty``); the policy ``"zero"``
    passes ``empty="zero"`` on. False for a metric the registry does not know (an evaluate module of another
    package).
    """
    spec = METRIC_SPECS.get(name)
    return spec is not None and spec.wordless_empty


def empty_rewarded(name: str) -> bool:
    """Whether metric ``name``'s score of an empty summary rewards it (its spec's ``empty_rewarded``).

    DEGRESS: an empty text is at distance 1 from every text, another empty one included, so empty generations look
    maximally responsive (docs/evaluate_conventions.md §4.4; the degress card, Limitations).
    """
    spec = METRIC_SPECS.get(name)
    return spec is not None and spec.empty_rewarded


def is_empty(name: str, text: str) -> bool:
    """Whether ``text`` is an empty prediction for metric ``name``.

    Empty or whitespace-only for every metric (as :func:`persona_metrics.validation.check_text` has it); for the
    metrics of :func:`wordless_undefined`, also a text without a word
    (:func:`persona_metrics.persona.stylometry.is_wordless`).
    """
    if not text or text.isspace():
        return True
    return wordless_undefined(name) and is_wordless(text)


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
        self.policy = check_empty(empty, ALLOWED_EMPTY)
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
        if not empty or self.policy != "skip":  # "zero" lets the library score them
            return list(range(len(predictions)))
        self._dropped.extend(offset + i for i in empty)
        left_out = set(empty)
        return [i for i in range(len(predictions)) if i not in left_out]

    def record(self, positions: Sequence[int]) -> None:
        """Record the empty predictions an evaluation found elsewhere (the distributed classes' plan of every rank)."""
        self._empty.extend(positions)

    def compute_options(self, options: Mapping[str, Any]) -> dict[str, Any]:
        """The compute options, with ``empty="zero"`` for a :func:`wordless_undefined` metric given empty rows.

        Only when this evaluation holds an empty prediction, so an evaluation without one is computed exactly as
        the user's options say.
        """
        if self.policy == "zero" and self._empty and wordless_undefined(self.name):
            return {**options, "empty": "zero"}
        return dict(options)

    def result(self, result: Mapping[str, Any] | None, n: int) -> dict[str, Any]:
        """The library's result with ``num_empty``; the evaluation is then forgotten.

        Args:
            result: the library's result for the selected rows, ``None`` when no row was selected.
            n: the number of rows of the evaluation.
        """
        count = len(self._empty)
        out = dict(result) if result is not None else {}
        out[NUM_EMPTY] = count
        if count and not self._warned:
            self._warned = True
            warn(self._message(count, n, scored=result is not None))
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
        return self.result(result, n)

    def _message(self, count: int, n: int, scored: bool) -> str:
        what = (
            "empty, whitespace-only or without a word" if wordless_undefined(self.name) else "empty or whitespace-only"
        )
        if self.policy == "zero":
            done = "each gets the library's score for an empty summary (0 for persona_style and persona_quality)"
        elif scored:
            done = "they are left out of the scores"
        else:
            done = "nothing was left to score, so only num_empty is reported"
        rewarded = f" {EMPTY_REWARDED_NOTE}." if self.policy == "zero" and empty_rewarded(self.name) else ""
        return (
            f"{self.name}: {count} of {n} predictions are {what}; with empty={self.policy!r} {done}.{rewarded} "
            "num_empty reports the count of every evaluation (eval_num_empty in the Trainer's logs); this warning is "
            "shown once"
        )
