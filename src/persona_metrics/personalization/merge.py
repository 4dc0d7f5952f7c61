"""Exact merge of DEGRESS / PerSEval results scored on parts of one input (``docs/perseval.md`` §8.3).

Every number of eqs. 1, 4, 5 and 6 belongs to one document: it depends only on that document's users. The system
numbers (eqs. 2, 3 and 7) are means over documents, and a floating-point mean depends on the order of its terms.
So a part of the input (a shard) keeps each of its documents' values (:class:`DocumentScores`, the state), and
:func:`merge_personalization` reduces the documents of all parts in the order the whole input gives them: the order
of each document's first item, which is the order an unsharded call reduces in. The merged result, bootstrap
intervals included, is then the unsharded result bit for bit, whatever the order of the parts.
"""

from __future__ import annotations

import hashlib
from collections.abc import Hashable, Sequence
from dataclasses import dataclass

from persona_metrics.merging import check_positions, check_results, check_signatures
from persona_metrics.personalization.params import PersevalParams
from persona_metrics.personalization.scorer import (
    DocumentScores,
    PersonalizationResult,
    group_documents,
    system_result,
)
from persona_metrics.validation import out_of_range


def shard_of(document_id: Hashable, num_shards: int) -> int:
    """The shard (0 … ``num_shards``−1) of a document: a stable hash of ``str(document_id)``.

    BLAKE2b of the UTF-8 id, so the assignment is the same in every process, machine and Python version (unlike
    ``hash``): all users of a document land in one shard.

    >>> [shard_of(doc, 3) for doc in ("N1", "N2", "N1")]
    [2, 1, 2]
    """
    if isinstance(num_shards, bool) or not isinstance(num_shards, int):
        raise TypeError(f"num_shards must be an int, got {type(num_shards).__name__}")
    if num_shards < 1:
        raise ValueError(out_of_range("num_shards", num_shards, 1))
    digest = hashlib.blake2b(str(document_id).encode("utf-8"), digest_size=8).digest()
    return int.from_bytes(digest, "big") % num_shards


@dataclass(frozen=True)
class ExcludedPart:
    """A part of an input whose documents all have a single reference: nothing to score, only counts to merge.

    One call over the whole input excludes and counts such documents; a part made only of them (a shard, a rank's
    share) cannot be scored on its own (:func:`score_personalization` refuses an input without a document of two
    users), so it enters :func:`merge_personalization` as its counts. Make one with :meth:`of`.

    Attributes:
        num_items: the part's rows.
        num_excluded_documents: its documents (each with one reference).
    """

    num_items: int
    num_excluded_documents: int

    @classmethod
    def of(cls, documents: Sequence[str], document_ids: Sequence[Hashable] | None = None) -> ExcludedPart | None:
        """The part's counts when none of its documents has two rows (grouped as the scorer groups), else None."""
        groups = group_documents(documents, document_ids)
        if any(len(group.indices) >= 2 for group in groups):
            return None
        return cls(len(documents), len(groups))


def _placed(result: PersonalizationResult | ExcludedPart, where: Sequence[int], r: int) -> list[DocumentScores]:
    """``result``'s documents with their items' positions in the whole input (``where[i]`` for item i)."""
    if isinstance(result, ExcludedPart):
        return []
    docs = []
    for doc in result.documents:
        indices = tuple(where[i] for i in doc.indices)
        if list(indices) != sorted(indices):
            raise ValueError(
                f"results[{r}]: the items of document {doc.key!r} are not in input order (positions {indices}); "
                "a part keeps its rows in the order of the whole input"
            )
        docs.append(DocumentScores(doc.key, indices, doc.degress, doc.accuracy, doc.penalties))
    return docs


def _common_params(results: Sequence[PersonalizationResult | ExcludedPart]) -> PersevalParams | None:
    """The params all scored ``results`` were scored with (equal signatures), checked; None when none is scored."""
    results = check_results(results, (PersonalizationResult, ExcludedPart))
    scored = [(r, result) for r, result in enumerate(results) if isinstance(result, PersonalizationResult)]
    if not scored:
        return None
    for r, result in scored:
        if result.params is None:
            raise TypeError(f"results[{r}] carries no params; merge results made by score_personalization")
    check_signatures(scored)
    first = scored[0][1]
    return first.params


def merge_personalization(
    results: Sequence[PersonalizationResult | ExcludedPart], positions: Sequence[Sequence[int]] | None = None
) -> PersonalizationResult:
    """One result from results scored on disjoint parts of one input, equal to scoring the whole input at once.

    Each part must hold all the users of each of its documents, in input order (split by document, e.g. by a
    hash of the document id, as ``persona-metrics score --shard`` does), and all parts must be scored with the
    same distance and hyper-parameters (equal signatures). The documents are reduced in the order of their first
    item in the whole input, so every system number, per-document and per-summary value and bootstrap interval is
    the unsharded call's, bit for bit, whatever the order of ``results``.

    Args:
        results: the parts' results (at least one); a part whose documents all have one reference is an
            :class:`ExcludedPart` (its counts).
        positions: per result, the position of each of its items in the whole input (``positions[r][i]`` for
            item i of ``results[r]``; together a permutation of ``0 … N−1``). Default: the results are consecutive
            slices of the input, in the order given.

    Returns:
        The merged :class:`PersonalizationResult` (``per_summary`` aligned with the whole input).

    Raises:
        TypeError: ``results`` holds something other than a :class:`PersonalizationResult` with its params.
        ValueError: no result, unequal signatures, a document in two parts, or positions that are not a
            permutation of the whole input (each names the result's index).

    Example:
        >>> from persona_metrics.personalization import merge_personalization, score_personalization
        >>> docs = ["A port strike halts exports.", "A port strike halts exports.", "Rain floods the valley.",
        ...         "Rain floods the valley."]
        >>> refs = ["exports stop", "dock workers walk out", "the valley floods", "farms lose crops"]
        >>> preds = ["exports halt", "workers strike", "floods hit", "crops are lost"]
        >>> whole = score_personalization(preds, refs, docs)
        >>> parts = [score_personalization(preds[i:i + 2], refs[i:i + 2], docs[i:i + 2]) for i in (2, 0)]
        >>> merge_personalization(parts, positions=[[2, 3], [0, 1]]).perseval == whole.perseval
        True
    """
    params = _common_params(results)
    positions = check_positions([result.num_items for result in results], positions)
    parts = [_placed(result, where, r) for r, (result, where) in enumerate(zip(results, positions, strict=True))]
    return merge_documents(
        parts,
        num_items=sum(result.num_items for result in results),
        num_excluded_documents=sum(result.num_excluded_documents for result in results),
        signature=next((r.signature for r in results if isinstance(r, PersonalizationResult)), ""),
        params=params,
        names=[f"results[{r}]" for r in range(len(results))],
    )


def merge_documents(
    parts: Sequence[Sequence[DocumentScores]],
    *,
    num_items: int,
    num_excluded_documents: int,
    signature: str,
    params: PersevalParams | None,
    names: Sequence[str] | None = None,
) -> PersonalizationResult:
    """The result of the parts' scored documents, their ``indices`` already positions in the whole input.

    The documents are reduced in the order of their first item (the unsharded call's order); this is the step
    :func:`merge_personalization` and the CLI's states files (:mod:`persona_metrics.sharding.files`) share.

    Args:
        parts: per part, its scored documents.
        num_items: items of the whole input.
        num_excluded_documents: single-reference documents of the whole input.
        signature: the parts' common signature.
        params: the hyper-parameters they were scored with.
        names: what an error calls each part (default ``parts[r]``).

    Raises:
        ValueError: a document in two parts (both named), or no scored document at all.
    """
    names = list(names) if names is not None else [f"parts[{r}]" for r in range(len(parts))]
    owner: dict[Hashable, int] = {}
    docs: list[DocumentScores] = []
    for r, part in enumerate(parts):
        for doc in part:
            if doc.key in owner:
                raise ValueError(
                    f"document {doc.key!r} is in {names[owner[doc.key]]} and {names[r]}; a document's users "
                    "must all be scored in one part"
                )
            owner[doc.key] = r
            docs.append(doc)
    if not docs:
        raise ValueError(
            f"no document has at least 2 references ({num_excluded_documents} documents with one reference each); "
            "DEGRESS and PerSEval compare users of the same document"
        )
    if params is None:
        raise TypeError("params: the scored parts' PersevalParams are needed to reduce their documents")
    docs.sort(key=lambda doc: doc.indices[0])  # first-seen order of the whole input: the unsharded reduction order
    return system_result(
        docs,
        num_items=num_items,
        num_excluded_documents=num_excluded_documents,
        signature=signature,
        params=params,
    )
