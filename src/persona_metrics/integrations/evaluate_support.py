"""Glue shared by the bundled ``evaluate`` modules (no evaluate import here; no arithmetic either).

The modules turn results into evaluate's plain dicts with the results' own ``as_dict`` methods.
"""

from __future__ import annotations

from typing import Any

from persona_metrics.validation import check_text_fields


class ValidatedTextInputs:
    """Mixin for ``evaluate.Metric`` subclasses whose inputs are aligned lists of strings.

    evaluate checks only the first item of a batch for type, and its errors do not name the index; this
    mixin checks every item before evaluate encodes them, so bad input fails with the field and index.
    Put it *before* ``evaluate.Metric`` in the bases. Subclasses set ``_text_fields`` (input names in
    order) and ``_empty_ok`` (the names that may hold empty strings).
    """

    _text_fields: tuple[str, ...] = ("predictions", "references")
    _empty_ok: tuple[str, ...] = ("predictions",)

    def _text_features(self) -> Any:
        """``datasets.Features`` with one string column per name in ``_text_fields`` (in order)."""
        import datasets

        return datasets.Features({name: datasets.Value("string", id="sequence") for name in self._text_fields})

    def add_batch(self, **kwargs: Any) -> None:
        """Validate every item, then hand the batch to evaluate."""
        present = {k: kwargs[k] for k in self._text_fields if kwargs.get(k) is not None}
        if present:
            check_text_fields(allow_empty=self._empty_ok, **present)
        super().add_batch(**kwargs)  # type: ignore[misc]

    def add(self, **kwargs: Any) -> None:
        """Validate one example, then hand it to evaluate."""
        singular = {"predictions": "prediction", "references": "reference"}  # evaluate's names in add()
        present = {
            k: [kwargs[singular.get(k, k)]] for k in self._text_fields if kwargs.get(singular.get(k, k)) is not None
        }
        if present:
            check_text_fields(allow_empty=self._empty_ok, **present)
        super().add(**kwargs)  # type: ignore[misc]
