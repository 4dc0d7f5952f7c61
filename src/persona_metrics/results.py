"""What the per-item results of every family share: the signature, means with their intervals, the exact merge.

:class:`ItemResult` is the base of ``StyleResult``, ``QualityResult``, ``VertResult`` and ``SummaryEvalResult``
(dataclasses with a ``config`` signature, one value per item). Each family's result says what its means and per-item
values are, and what a merged result recomputes over all its items (:meth:`ItemResult.completed`: the bootstrap
intervals, drawn again with the resamples and seed the result keeps); :meth:`ItemResult.merge` does the rest, so the
merged result equals one call over the whole input bit for bit (``docs/scaling.md`` §1).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any, TypeVar

from persona_metrics.merging import check_results, check_signatures, merge_items
from persona_metrics.signature import Signature

R = TypeVar("R", bound="ItemResult")


def with_intervals(means: Mapping[str, Any], intervals: Mapping[str, tuple[float, float]]) -> dict[str, Any]:
    """Each mean followed by its interval, ``<name>_ci_low`` / ``<name>_ci_high``, when one was computed."""
    out: dict[str, Any] = {}
    for name, mean in means.items():
        out[name] = mean
        if name in intervals:
            out[f"{name}_ci_low"], out[f"{name}_ci_high"] = intervals[name]
    return out


class ItemResult:
    """The base of a family's per-item result: a dataclass with a ``config`` and one value per item."""

    config: Signature

    @property
    def signature(self) -> str:
        """How it was made: the config signature, ``persona_metrics:<version>`` last."""
        return str(self.config)

    def __len__(self) -> int:
        """The number of items."""
        raise NotImplementedError

    def means(self) -> Mapping[str, Any]:
        """The system numbers: means over the items."""
        raise NotImplementedError

    def per_item(self) -> dict[str, list[Any]]:
        """One list per score, aligned with the items."""
        raise NotImplementedError

    @property
    def note(self) -> str | None:
        """What a report should say beside the numbers (SummaryEval: why accuracy is missing); None by default."""
        return None

    def summary(self) -> dict[str, Any]:
        """:meth:`means`, each followed by its interval when one was computed (a report's row)."""
        return with_intervals(self.means(), getattr(self, "intervals", {}))

    def summary_dict(self, per_item: bool = False, signature: bool = False) -> dict[str, Any]:
        """:meth:`summary`, plus the ``per_item`` lists and the ``signature`` string when asked for."""
        out = self.summary()
        if per_item:
            out["per_item"] = self.per_item()
        if signature:
            out["signature"] = self.signature
        return out

    def completed(self: R) -> R:
        """What a merged result recomputes over all its items (its bootstrap intervals); itself by default."""
        return self

    @classmethod
    def merge(cls: type[R], parts: Sequence[R], positions: Sequence[Sequence[int]] | None = None) -> R:
        """One result from results scored on disjoint parts of one input, as one call over the whole input.

        Args:
            parts: results of this type, scored with the same options (equal signatures).
            positions: per part, the position in the whole input of each of its items; default: consecutive slices.

        Raises:
            TypeError: a part of another type.
            ValueError: no part, parts scored with other options, or positions that are not a permutation.
        """
        checked = check_results(parts, cls)
        check_signatures(list(enumerate(checked)))
        bare = [dataclasses.replace(p, intervals={}) if hasattr(p, "intervals") else p for p in checked]  # type: ignore[type-var]
        return merge_items(bare, [len(part) for part in checked], positions).completed()
