"""``torch.distributed`` plumbing shared by the training hook and the distributed metric classes.

Two operations, both no-ops in a single process (no process group, or a group of one):

* :func:`run_on_main` computes on rank 0 only and hands the result (or the exception) to every rank, so an
  expensive metric (BERTScore) runs once per evaluation instead of once per GPU and every rank sees the same
  numbers (what ``transformers`` expects of ``compute_metrics``: it uses them on every rank for
  ``metric_for_best_model``);
* :func:`gather_objects` concatenates per-rank lists in rank order (``all_gather_object``), so the metric
  classes work on any backend (gloo on CPU, NCCL on GPU) and with uneven shards.

And one ``torchmetrics``-style class per registered metric (:class:`DistributedMetric`), made from its spec by
:func:`metric_class` (``PersevalMetric``, ``VertMetric`` ...: attributes of this module, made on first use).
``docs/scaling.md`` §3.

torch is imported on first use only, and only when it is already installed (the library does not need it).
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from persona_metrics.integrations.empty import DEFAULT_EMPTY, EmptyPolicy, is_empty
from persona_metrics.integrations.evaluate_support import check_option_names, input_names
from persona_metrics.metric_registry import METRIC_SPECS, merge, metric_spec
from persona_metrics.metric_spec import MetricSpec
from persona_metrics.persona.formulas import text_vector
from persona_metrics.personalization import ExcludedPart, shard_of
from persona_metrics.validation import check_text, check_texts

__all__ = ["DistributedMetric", "gather_objects", "metric_class", "rank_and_size", "run_on_main"]

logger = logging.getLogger(__name__)

T = TypeVar("T")

#: Stands in for an empty prediction while the other inputs of its row are checked (never scored).
_STAND_IN = "text"


def rank_and_size() -> tuple[int, int]:
    """``(rank, world size)`` of the default process group, ``(0, 1)`` when none is initialised."""
    if importlib.util.find_spec("torch") is None:
        return 0, 1
    import torch.distributed as dist

    if not (dist.is_available() and dist.is_initialized()):
        return 0, 1
    return dist.get_rank(), dist.get_world_size()


def run_on_main(fn: Callable[[], T]) -> T:
    """Call ``fn`` on rank 0 only and return its result on every rank.

    In a single process this is just ``fn()``. Under a process group, rank 0 calls ``fn`` and broadcasts either
    the result or the exception it raised; every rank then returns the same result or raises the same
    exception, so no rank is left waiting in a collective when the metric fails.
    """
    rank, size = rank_and_size()
    if size == 1:
        return fn()
    import torch.distributed as dist

    payload: list[Any] = [None, None]
    if rank == 0:
        try:
            payload = [fn(), None]
        except Exception as err:  # handed to every rank, then raised everywhere
            payload = [None, err]
    dist.broadcast_object_list(payload, src=0)
    result, error = payload
    if error is not None:
        raise error
    return result  # type: ignore[no-any-return]


def gather_objects(items: list[Any]) -> list[Any]:
    """Every rank's ``items`` concatenated in rank order (``items`` itself in a single process)."""
    _, size = rank_and_size()
    if size == 1:
        return list(items)
    import torch.distributed as dist

    parts: list[Any] = [None] * size
    dist.all_gather_object(parts, list(items))
    return [item for part in parts for item in part]


# --- torchmetrics-style metric classes ----------------------------------------------------------------------
class DistributedMetric:
    """A bundled metric as a ``torchmetrics``-style accumulator: ``update`` per batch, ``compute`` at the end.

    Each process adds its own shard with :meth:`update`. :meth:`compute` divides the work over the process group
    (any backend; with NCCL set the CUDA device first, as the ``*_object`` collectives require): every rank draws
    the same plan from each row's index and digest, scores its own rows (a metric whose spec is ``by_document``:
    the rows of the documents it owns), and the small results are merged exactly, so every rank returns the
    single-process ``compute`` of all rows, bit for bit (``docs/scaling.md`` §3). :attr:`scored_rows` is the
    number of rows this rank scored. Without a process group it is a plain accumulator.

    Order: without ``indices`` the rows are scored in rank order (rank 0's rows, then rank 1's ...), which is the
    dataset order for contiguous shards. With ``indices`` (the dataset row of each item, e.g. the sampler's
    indices) the rows are sorted by index and repeated indices are dropped: ``DistributedSampler`` pads the last
    shard by repeating rows, and those duplicates must not count twice. A repeated index with different content
    is an error.

    ``compute`` does not reset the state (call :meth:`reset` for the next evaluation), as in torchmetrics.

    Empty predictions are accepted by :meth:`update` and handled by :meth:`compute` on rank 0 under ``empty``
    (:mod:`persona_metrics.integrations.empty`), so every rank gets the same result or the same error; the result
    has ``num_empty``, their count over all ranks.

    Args:
        empty: the policy for empty predictions, one of
            :data:`~persona_metrics.integrations.empty.ALLOWED_EMPTY`.
        **options: the metric's compute options (``distance="jsd"``, ``beta=2.0`` ...), checked here by the
            library's own checks, so a bad value fails when the object is built.

    Raises:
        ValueError / TypeError: an unknown option or a bad value (named); an ``empty`` value that is not allowed.

    Example::

        metric = PersevalMetric(distance="rougeL")
        for batch in loader:  # each rank its own shard
            metric.update(predictions=..., references=..., documents=..., indices=batch["idx"])
        result = metric.compute()  # the same dict on every rank
    """

    #: The metric's name (set by :func:`metric_class`).
    name: str = ""

    def __init__(self, *, empty: str = DEFAULT_EMPTY, **options: Any) -> None:
        from persona_metrics.integrations.registry import load

        self._spec = metric_spec(self.name)
        self._empty = EmptyPolicy(self.name, empty)
        self._module = load(self.name, keep_in_memory=True)
        check_option_names(self._module, self.name, {}, {k: v for k, v in options.items()})
        clash = sorted(set(options) & set(self.row_options))
        if clash:
            raise ValueError(f"{clash} are per-item inputs of {self.name!r}: pass them to update(), not here")
        self._module.check_option_values(**options)
        self._options = dict(options)
        self._features = tuple(input_names(self._module))
        self._rows: list[dict[str, Any]] = []
        #: Rows this rank scored in the last :meth:`compute` (its share of the work).
        self.scored_rows = 0

    @property
    def row_options(self) -> tuple[str, ...]:
        """Per-item inputs that are compute options of the module rather than features: its ``_id_options``."""
        return tuple(self._module._id_options)

    def reset(self) -> None:
        """Forget the rows added so far (on this rank)."""
        self._rows = []

    def update(self, *, indices: Any = None, **batch: Any) -> None:
        """Add one batch of this rank's rows.

        Args:
            indices: optional dataset row index of each item (ints); see the class docstring.
            **batch: the metric's inputs (``predictions``, ``references``, ...; ``document_ids`` where the
                metric takes it), aligned lists; checked item by item (field and index named).

        Raises:
            ValueError / TypeError: a missing or unknown input, lists of different lengths, a bad item (an empty
                prediction is not one: see the class docstring).
        """
        missing = [k for k in self._features if batch.get(k) is None]
        unknown = sorted(set(batch) - set(self._features) - set(self.row_options))
        if missing or unknown:
            raise ValueError(
                f"{self.name}.update needs {list(self._features)} (and optionally {list(self.row_options)}); "
                f"missing {missing}, unknown {unknown}"
            )
        columns = self._validated(batch)
        for key in (*self.row_options, "indices"):
            values = indices if key == "indices" else batch.get(key)
            if values is None:
                continue
            if isinstance(values, str | bytes) or not hasattr(values, "__len__"):
                raise TypeError(f"{key} must be a list with one value per item, got {type(values).__name__}")
            columns[key] = [int(i) for i in _as_list(values)] if key == "indices" else _as_list(values)
        n = len(columns["predictions"])
        for key, values in columns.items():
            if len(values) != n:
                raise ValueError(f"{key} has {len(values)} items but predictions has {n}; they must align")
        self._rows.extend(dict(zip(columns, row, strict=True)) for row in zip(*columns.values(), strict=True))

    def _validated(self, batch: dict[str, Any]) -> dict[str, list[Any]]:
        """The batch's text inputs as checked plain lists, empty predictions allowed (the policy is compute's).

        The predictions are checked as texts that may be empty; the other inputs by the module's own checks, with a
        one-word stand-in in place of each empty prediction (a module that refuses empty predictions would
        otherwise stop there), so a bad persona or reference of an empty row is still named.
        """
        predictions = check_texts(allow_empty=("predictions",), predictions=batch["predictions"])["predictions"]
        stand_in = [_STAND_IN if is_empty(self.name, text) else text for text in predictions]
        columns: dict[str, list[Any]] = self._module.validated({**batch, "predictions": stand_in})
        columns["predictions"] = predictions
        return columns

    def compute(self) -> dict[str, Any]:
        """Score every rank's rows, each rank its share, and return the merged result on every rank.

        Returns:
            The metric's result for every row under the ``empty`` policy, with ``num_empty``.

        Raises:
            ValueError: no rows on any rank; ``indices`` given for some rows only; a repeated index with
                different content; with ``empty="error"``, an empty prediction (its position in the gathered rows
                named). The metric's own errors are raised on every rank.
        """
        rank, size = rank_and_size()
        plan = _plan(gather_objects([[_row_facts(self.name, row) for row in self._rows]]), self.name)
        self._empty.reset()
        self._empty.record(plan.empty)
        if self._empty.policy == "error" and plan.empty:
            _raise_first_empty(plan)
        dropped = frozenset(plan.empty) if self._empty.policy == "skip" else frozenset()
        kept = [p for p in range(plan.size) if p not in dropped]  # the rows scored, in order
        at = {p: k for k, p in enumerate(kept)}
        where = [None if p is None or p in dropped else at[p] for p in plan.positions[rank]]
        mine = _my_rows(self._rows, where, self._owner if self._spec.by_document else None, size)
        self.scored_rows = len(mine)
        options = self._empty.compute_options(self._options)
        parts = gather_objects([_attempt(lambda: self._score_part(mine, options))])
        for _, error in parts:
            if error is not None:
                raise error  # every rank raises the first rank's error
        result = self._merged([part for part, _ in parts if part is not None])
        return self._empty.result(None if result is None else self._module.present(result, **options), plan.size)

    @staticmethod
    def _owner(row: dict[str, Any], size: int) -> int:
        """The rank that owns ``row``'s document (DEGRESS / PerSEval): a stable hash of its id, or of its text."""
        key = row["document_ids"] if row.get("document_ids") is not None else row["documents"]
        return shard_of(key, size)

    def _score_part(self, rows: list[tuple[int, dict[str, Any]]], options: dict[str, Any]) -> Any:
        """This rank's part: ``(result or document part, positions)``, or None without rows."""
        if not rows:
            return None
        positions = [position for position, _ in rows]
        keys = [key for key in rows[0][1] if key != "indices"]
        columns = {key: [row[key] for _, row in rows] for key in keys}
        if self._spec.by_document:  # a part of single-reference documents only: its counts (nothing to score)
            excluded = ExcludedPart.of(columns["documents"], columns.get("document_ids"))
            if excluded is not None:
                return excluded, positions
        return self._module.library_result(**columns, **options), positions

    @staticmethod
    def _merged(parts: list[Any]) -> Any:
        """The ranks' parts merged in input order (None when no row was scored)."""
        if not parts:
            return None
        return merge([result for result, _ in parts], positions=[where for _, where in parts])


@dataclass(frozen=True)
class _Plan:
    """What every rank derives from the gathered row facts: the same on every rank.

    Attributes:
        positions: per rank, per row, its position in the evaluation (None: a sampler's repeat, dropped).
        size: the number of rows of the evaluation.
        empty: positions of the empty predictions, in order.
        kinds: ``{position: "blank" | "wordless"}`` of the empty predictions.
    """

    positions: list[list[int | None]]
    size: int
    empty: list[int]
    kinds: dict[int, str]


def _row_facts(name: str, row: dict[str, Any]) -> tuple[int | None, str, str]:
    """What the other ranks need of a row: its index, a content digest, and "", "blank" or "wordless"."""
    content = json.dumps({k: v for k, v in row.items() if k != "indices"}, sort_keys=True, default=str)
    digest = hashlib.blake2b(content.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()
    text = row["predictions"]
    kind = "blank" if not text or text.isspace() else "wordless" if is_empty(name, text) else ""
    return row.get("indices"), digest, kind


def _plan(facts: list[list[tuple[int | None, str, str]]], name: str) -> _Plan:
    """The evaluation's rows in order (rank order, or by index with the sampler's repeats dropped)."""
    flat = [(rank, i, fact) for rank, rows in enumerate(facts) for i, fact in enumerate(rows)]
    if not flat:
        raise ValueError(f"{name}.compute() called before any update() on any rank")
    with_index = sum(fact[0] is not None for _, _, fact in flat)
    if with_index not in (0, len(flat)):
        raise ValueError(f"indices were given for {with_index} of {len(flat)} rows; give them for every update")
    positions: list[list[int | None]] = [[None] * len(rows) for rows in facts]
    if with_index == 0:
        order = [(rank, i) for rank, i, _ in flat]
    else:
        first: dict[int, tuple[int, int, str]] = {}
        for rank, i, (index, digest, _) in flat:
            seen = first.setdefault(index, (rank, i, digest))  # type: ignore[arg-type]
            if seen[2] != digest:
                raise ValueError(f"index {index} was added twice with different content")
        if len(first) < len(flat):
            logger.info("%s: dropped %d repeated row(s) (the sampler's padding)", name, len(flat) - len(first))
        order = [first[index][:2] for index in sorted(first)]
    kinds = {}
    for position, (rank, i) in enumerate(order):
        positions[rank][i] = position
        if facts[rank][i][2]:
            kinds[position] = facts[rank][i][2]
    return _Plan(positions, len(order), sorted(kinds), kinds)


def _raise_first_empty(plan: _Plan) -> None:
    """The error one process raises for the evaluation's empty predictions (``empty="error"``), on every rank.

    The first blank one is refused by name before scoring; without one, the style metrics' own check names the
    first prediction without a word.
    """
    blank = [position for position in plan.empty if plan.kinds[position] == "blank"]
    if blank:
        check_text("", f"predictions[{blank[0]}]")
    text_vector("", f"predictions[{plan.empty[0]}]")


def _my_rows(
    rows: list[dict[str, Any]],
    positions: list[int | None],
    owner: Callable[[dict[str, Any], int], int] | None,
    size: int,
) -> list[tuple[int, dict[str, Any]]]:
    """The ``(position, row)`` this rank scores, in order: its own rows, or (``owner``) the rows of its documents.

    ``positions[i]``: row i's position among the rows scored, None for a row left out (a repeat, a skipped empty
    prediction), which goes nowhere. With ``owner`` each row goes only to the rank that owns it (one
    ``scatter_object_list`` from each rank).
    """
    kept = sorted(((p, row) for row, p in zip(rows, positions, strict=True) if p is not None), key=lambda item: item[0])
    if owner is None or size == 1:
        return kept
    import torch.distributed as dist

    outgoing: list[list[tuple[int, dict[str, Any]]]] = [[] for _ in range(size)]
    for position, row in kept:
        outgoing[owner(row, size)].append((position, row))
    rank = dist.get_rank()
    received: list[tuple[int, dict[str, Any]]] = []
    for source in range(size):
        box: list[Any] = [None]
        dist.scatter_object_list(box, outgoing if source == rank else None, src=source)
        received.extend(box[0])
    return sorted(received, key=lambda item: item[0])


def _attempt(fn: Callable[[], Any]) -> tuple[Any, Exception | None]:
    """``(fn(), None)`` or ``(None, the exception)``: a rank's failure reaches every rank, none is left waiting."""
    try:
        return fn(), None
    except Exception as err:  # raised on every rank after the gather
        return None, err


def _as_list(values: Any) -> list[Any]:
    """A list from a list, tuple, numpy array or tensor (moved to the CPU)."""
    if hasattr(values, "detach"):
        values = values.detach().cpu()
    return list(values.tolist() if hasattr(values, "tolist") else values)


def class_name(name: str) -> str:
    """The distributed class name of metric ``name``: ``persona_quality`` → ``PersonaQualityMetric``."""
    return "".join(word.capitalize() for word in name.split("_")) + "Metric"


_CLASSES: dict[str, tuple[MetricSpec, type[DistributedMetric]]] = {}


def metric_class(name: str) -> type[DistributedMetric]:
    """The :class:`DistributedMetric` of a registered metric (:mod:`persona_metrics.metric_registry`).

    Made from its spec on first use, then the same class while the spec stays registered; it is also this module's
    attribute :func:`class_name` (``from persona_metrics.integrations.distributed import PersevalMetric``).

    Raises:
        ValueError: an unknown metric (the registered ones named).
    """
    spec = metric_spec(name)
    made = _CLASSES.get(name)
    if made is None or made[0] is not spec:
        inputs = ", ".join(spec.inputs)
        doc = f"``{name}`` over ``torch.distributed`` (:class:`DistributedMetric`); inputs {inputs}."
        attributes = {"name": name, "__doc__": doc, "__module__": __name__}
        made = (spec, type(class_name(name), (DistributedMetric,), attributes))
        _CLASSES[name] = made
    return made[1]


def __getattr__(attribute: str) -> type[DistributedMetric]:
    """``PersevalMetric`` and the other registered metrics' classes (:func:`metric_class`)."""
    for name in METRIC_SPECS:
        if class_name(name) == attribute:
            return metric_class(name)
    raise AttributeError(f"module {__name__!r} has no attribute {attribute!r}")
