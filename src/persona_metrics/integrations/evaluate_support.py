"""Glue shared by the bundled ``evaluate`` modules (no evaluate import here; no arithmetic either).

The modules turn results into evaluate's plain dicts with the results' own ``as_dict`` methods.
"""

from __future__ import annotations

import contextlib
import os
from typing import Any

from persona_metrics.validation import check_reference_lists, check_text_fields


class ValidatedTextInputs:
    """Mixin for ``evaluate.Metric`` subclasses whose inputs are aligned lists of strings.

    evaluate checks only the first item of a batch for type, and its errors do not name the index; this
    mixin checks every item before evaluate encodes them, so bad input fails with the field and index.
    Put it *before* ``evaluate.Metric`` in the bases. Subclasses set ``_text_fields`` (input names in
    order) and ``_empty_ok`` (the names that may hold empty strings).
    """

    _text_fields: tuple[str, ...] = ("predictions", "references")
    _empty_ok: tuple[str, ...] = ("predictions",)

    def check_option_values(self, **options: Any) -> None:
        """Check the values of compute options before any data is scored.

        Run by :meth:`compute` and, when they are built, by the training hook and the distributed metric classes,
        so a bad value fails at once and the same way everywhere. ``return_*`` flags must be bools; the
        metric's own checks (:meth:`_check_values`: the library's validators) run on the rest. Names are not
        checked here (evaluate rejects unknown options; the hook checks them against ``_compute``).

        Raises:
            TypeError / ValueError: a bad value, naming the option.
        """
        for key, value in options.items():
            if key.startswith("return_") and not isinstance(value, bool):
                raise TypeError(f"{key} must be a bool, got {value!r}")
        self._check_values(options)

    def _check_values(self, options: dict[str, Any]) -> None:
        """The metric's option checks (subclasses call the library's validators); none by default."""

    def compute(self, **kwargs: Any) -> Any:
        """Check the options' values (:meth:`check_option_values`), then compute as evaluate does.

        When the computation fails, the module's cache files (``.arrow`` and its ``.lock`` in evaluate's data
        directory) are deleted as evaluate deletes them after a successful one, so repeated failures leave nothing
        behind and the module is ready for the next call.
        """
        self.check_option_values(**{k: v for k, v in kwargs.items() if k not in self._text_fields})
        try:
            return super().compute(**kwargs)  # type: ignore[misc]
        except Exception:
            self._discard_cache_files()
            raise

    def _discard_cache_files(self) -> None:
        """Delete this computation's cache files and release their locks (evaluate keeps them after a failure)."""
        state = vars(self)
        pairs = list(zip(state.get("filelocks") or [], state.get("file_paths") or [], strict=False))
        for lock, path in reversed(pairs):
            with contextlib.suppress(OSError):
                os.remove(path)
            lock.release()
            with contextlib.suppress(OSError):
                os.remove(lock.lock_file)
        for name in ("data", "writer", "buf_writer", "filelocks", "file_paths"):
            if name in state:
                setattr(self, name, None)

    def _text_features(self) -> Any:
        """``datasets.Features`` with one string column per name in ``_text_fields`` (in order)."""
        import datasets

        return datasets.Features({name: datasets.Value("string", id="sequence") for name in self._text_fields})

    def validated(self, fields: dict[str, Any]) -> dict[str, Any]:
        """The text fields present in ``fields``, every item checked (field and index named on failure)."""
        present = {k: fields[k] for k in self._text_fields if fields.get(k) is not None}
        if present:
            check_text_fields(allow_empty=self._empty_ok, **present)
        return present

    def add_batch(self, **kwargs: Any) -> None:
        """Validate every item, then hand the batch to evaluate."""
        self.validated(kwargs)
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


class ValidatedReferenceLists(ValidatedTextInputs):
    """:class:`ValidatedTextInputs` for modules whose ``references`` hold one string or a list per prediction.

    The multi-reference convention of evaluate's ``rouge``. Every item is checked before evaluate encodes it
    (``persona_metrics.validation.check_reference_lists`` names the field and index), and a single reference
    is stored as a one-item list, so one call (or several ``add_batch`` calls) may mix both forms. The input
    features are ``predictions`` (and the other ``_text_fields``) as strings and ``references`` as a sequence
    of strings. ``_compute`` receives one list of references per prediction.
    """

    _text_fields: tuple[str, ...] = ("predictions", "references")
    _empty_ok: tuple[str, ...] = ("predictions",)

    def _text_features(self) -> Any:
        """``datasets.Features``: one string per text field, a sequence of strings for ``references``."""
        import datasets

        text = datasets.Value("string", id="sequence")
        return datasets.Features(
            {
                name: datasets.Sequence(text, id="references") if name == "references" else text
                for name in self._text_fields
            }
        )

    def _checked(self, fields: dict[str, Any]) -> dict[str, Any]:
        """The present fields validated, ``references`` as lists of strings."""
        texts = {k: v for k, v in fields.items() if k != "references"}
        length = check_text_fields(allow_empty=self._empty_ok, **texts) if texts else None
        if fields.get("references") is None:
            return fields
        references = check_reference_lists(fields["references"])
        if length is not None and len(references) != length:
            raise ValueError(
                f"references has {len(references)} items but {next(iter(texts))} has {length}; they must align"
            )
        return {**fields, "references": references}

    def validated(self, fields: dict[str, Any]) -> dict[str, Any]:
        """The text fields present in ``fields``, checked, ``references`` as lists of strings."""
        present = {k: fields[k] for k in self._text_fields if fields.get(k) is not None}
        return self._checked(present) if present else present

    def add_batch(self, **kwargs: Any) -> None:
        """Validate every item, then hand the batch (references as lists) to evaluate."""
        kwargs.update(self.validated(kwargs))
        super(ValidatedTextInputs, self).add_batch(**kwargs)  # type: ignore[misc]

    def add(self, **kwargs: Any) -> None:
        """Validate one example, then hand it (its references as a list) to evaluate."""
        singular = {"predictions": "prediction", "references": "reference"}  # evaluate's names in add()
        present = {
            k: [kwargs[singular.get(k, k)]] for k in self._text_fields if kwargs.get(singular.get(k, k)) is not None
        }
        if present:
            for name, values in self._checked(present).items():
                kwargs[singular.get(name, name)] = values[0]
        super(ValidatedTextInputs, self).add(**kwargs)  # type: ignore[misc]
