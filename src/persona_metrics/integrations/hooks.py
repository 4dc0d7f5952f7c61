"""Training-loop hooks: a ready ``compute_metrics`` for ``transformers`` ``Seq2SeqTrainer``.

:func:`make_compute_metrics` returns the callable to pass as ``Seq2SeqTrainer(compute_metrics=...)``. It decodes
the generated token ids and the labels (``-100`` replaced by the pad id in both), takes the side inputs a metric
needs (personas, documents, document ids) from columns of the evaluation dataset, calls the ``evaluate`` module
and returns only the numbers of its result. No metric arithmetic happens here.

Example::

    from transformers import Seq2SeqTrainer, Seq2SeqTrainingArguments
    from persona_metrics.integrations.hooks import make_compute_metrics

    args = Seq2SeqTrainingArguments("out", predict_with_generate=True, eval_strategy="epoch")
    trainer = Seq2SeqTrainer(
        model=model, args=args, train_dataset=train_ds, eval_dataset=eval_ds, processing_class=tok,
        compute_metrics=make_compute_metrics("perseval", tok, eval_ds),  # reads eval_ds["document"]
    )
    trainer.train()  # logs eval_perseval, eval_degress, eval_edp, ...

    # Streaming (the Trainer never holds all predictions): batch_eval_metrics=True plus streaming=True.
    args = Seq2SeqTrainingArguments("out", predict_with_generate=True, batch_eval_metrics=True)
    compute_metrics = make_compute_metrics("persona_style", tok, eval_ds, streaming=True)  # eval_ds["persona"]

Rows of the evaluation dataset are matched with predictions by position: pass the same, unshuffled dataset to
the Trainer (its evaluation sampler is sequential) and to :func:`make_compute_metrics`. The Trainer calls the same
``compute_metrics`` from ``Trainer.predict``; that only works for a dataset with the same rows.

Empty generations never stop training (``empty=``, :mod:`persona_metrics.integrations.empty`); every result has
``num_empty`` (``eval_num_empty`` in the logs). DEGRESS rewards empty output: do not pick checkpoints by
``eval_degress`` while ``eval_num_empty`` > 0; pass ``empty="skip"`` or ``empty="error"``.
"""

from __future__ import annotations

import logging
import numbers
from collections.abc import Mapping
from typing import Any

import numpy as np

from persona_metrics.datasets.columns import num_rows, read_columns
from persona_metrics.integrations.distributed import rank_and_size, run_on_main
from persona_metrics.integrations.empty import DEFAULT_EMPTY, EmptyPolicy
from persona_metrics.integrations.evaluate_support import MODEL_INPUTS, check_option_names, input_names
from persona_metrics.metric_registry import METRIC_SPECS

__all__ = ["ComputeMetrics", "default_columns", "make_compute_metrics", "numbers_only"]

logger = logging.getLogger(__name__)


def default_columns(name: str) -> dict[str, str]:
    """The side inputs read from the evaluation dataset by default: metric input name -> dataset column name.

    The metric spec's ``hook_columns`` (:mod:`persona_metrics.metric_registry`); none for a metric the registry
    does not know. ``columns=`` passed to :func:`make_compute_metrics` is merged over these.
    """
    spec = METRIC_SPECS.get(name)
    return dict(spec.hook_columns) if spec is not None else {}


def numbers_only(result: Mapping[str, Any]) -> dict[str, int | float]:
    """Keep the top-level numbers of a metric result, as plain Python ``int`` / ``float``.

    Booleans become ``int`` (0/1). Lists, dicts, strings and ``None`` (for example ``scores``, ``per_summary``,
    ``per_item``, ``signature``) are dropped: the Trainer would log strings as metrics (``eval_signature``), and
    they break ``metric_for_best_model`` and some loggers. NaN and infinite values are numbers and are *kept*,
    so a failed score stays visible in the logs instead of silently disappearing.

    Args:
        result: the dict returned by an ``evaluate`` module's ``compute``.

    Returns:
        A new dict with the numeric entries only, in the original order.
    """
    out: dict[str, int | float] = {}
    dropped = []
    for key, value in result.items():
        if isinstance(value, np.generic):
            value = value.item()
        if isinstance(value, numbers.Integral):  # bool included: True -> 1
            out[key] = int(value)
        elif isinstance(value, numbers.Real):
            out[key] = float(value)
        else:
            dropped.append(key)
    if dropped:
        logger.debug("compute_metrics: dropped non-numeric result entries %s", dropped)
    return out


class ComputeMetrics:
    """The ``compute_metrics`` callable built by :func:`make_compute_metrics`; build it with that factory.

    One instance serves one form of the Trainer's call: the whole-set form ``hook(eval_pred)`` or, when built
    with ``streaming=True``, the ``batch_eval_metrics=True`` form ``hook(eval_pred, compute_result)``. The
    streaming form keeps the running offset into the side columns and the module that accumulates the batches.

    Attributes:
        name: the metric's name.
        streaming: whether this is the ``batch_eval_metrics=True`` variant.
    """

    def __init__(
        self,
        module: Any,
        name: str,
        tokenizer: Any,
        side: Mapping[str, list[Any]],
        *,
        inputs: list[str],
        n_rows: int | None,
        streaming: bool,
        reloadable: bool,
        compute_kwargs: Mapping[str, Any],
        empty: EmptyPolicy,
    ) -> None:
        self.name = name
        self.streaming = streaming
        self._tokenizer = tokenizer
        self._side = dict(side)
        self._n_rows = n_rows
        self._use_references = "references" in inputs
        # Column inputs that are features go through add_batch; the others (document_ids) are options of compute.
        self._batch_keys = [k for k in self._side if k in inputs]
        self._option_keys = [k for k in self._side if k not in inputs]
        self._compute_kwargs = dict(compute_kwargs)
        self._reloadable = reloadable  # metric given by name: a failed streaming evaluation loads it afresh
        self._module = module
        self._empty = empty
        self._offset = 0
        self._stale = False

    def __call__(self, eval_pred: Any, compute_result: bool | None = None) -> dict[str, int | float]:
        """Score an evaluation (whole-set form) or add one batch of it (streaming form).

        ``eval_pred`` is the Trainer's ``EvalPrediction`` (generated ids, labels); ``compute_result`` (streaming
        form only) is ``True`` on the last batch, whose call returns the numbers of the result (:func:`numbers_only`),
        and ``False`` before it (the batch is added, ``{}`` returned).

        Raises:
            TypeError: ``compute_result`` missing in the streaming form or given in the whole-set form.
        """
        if not self.streaming:
            if compute_result is not None:
                raise TypeError(
                    "this compute_metrics was built for the whole evaluation set but got compute_result; "
                    "build it with make_compute_metrics(..., streaming=True) for batch_eval_metrics=True"
                )
            return self._compute_all(eval_pred)
        if compute_result is None:
            raise TypeError(
                "this compute_metrics was built with streaming=True and needs compute_result; "
                "use it with batch_eval_metrics=True"
            )
        return self._compute_streaming(eval_pred, compute_result)

    # -- whole set ---------------------------------------------------------------------------------

    def _compute_all(self, eval_pred: Any) -> dict[str, int | float]:
        """Score the whole evaluation set at once."""
        predictions, references = self._decode_batch(eval_pred)
        if self._n_rows is not None and len(predictions) != self._n_rows:
            predictions, references = self._drop_padding(predictions, references, 0)
            if len(predictions) != self._n_rows:
                raise ValueError(
                    f"got {len(predictions)} predictions but eval_dataset has {self._n_rows} rows; pass the same "
                    "dataset to make_compute_metrics and to the Trainer"
                )
        columns = {"predictions": predictions, **references, **self._side}
        return run_on_main(lambda: numbers_only(self._empty.score(self._module.compute, columns, self._compute_kwargs)))

    # -- streaming ---------------------------------------------------------------------------------

    def _compute_streaming(self, eval_pred: Any, compute_result: bool) -> dict[str, int | float]:
        """Add one batch; on the last one compute the result. A failure marks the module stale."""
        module = self._current_module()
        try:
            stop = self._add_batch(module, eval_pred)
            if not compute_result:
                return {}
            return self._finish(module, stop)
        except Exception:
            self._stale = True  # the module may hold this evaluation's batches: start afresh next time
            raise

    def _current_module(self) -> Any:
        """The module for this evaluation: loaded afresh after a failed one, if it was given by name."""
        if self._stale:
            if not self._reloadable:
                raise RuntimeError(
                    f"an earlier evaluation with this compute_metrics failed mid-way and metric {self.name!r} may "
                    "still hold its batches; build a new one with make_compute_metrics and a freshly loaded module"
                )
            self._module, self._offset, self._stale = _load(self.name), 0, False
            self._empty.reset()
        return self._module

    def _add_batch(self, module: Any, eval_pred: Any) -> int:
        """Decode a batch, add it with its rows of the side columns; return the new offset."""
        predictions, references = self._decode_batch(eval_pred)
        start = self._offset
        if self._n_rows is not None and start + len(predictions) > self._n_rows:
            predictions, references = self._drop_padding(predictions, references, start)
        stop = start + len(predictions)
        if self._n_rows is not None and stop > self._n_rows:
            raise ValueError(
                f"streaming compute_metrics got {stop} predictions so far but eval_dataset has {self._n_rows} "
                "rows; pass the same dataset to make_compute_metrics and to the Trainer"
            )
        if predictions:
            columns = {"predictions": predictions, **references, **self._batch_columns(start, stop)}
            run_on_main(lambda: self._add_selected(module, columns, start))
        self._offset = stop
        return stop

    def _add_selected(self, module: Any, columns: dict[str, list[Any]], start: int) -> None:
        """Add the rows of one batch that the ``empty=`` policy keeps (rank 0; ``start``: the batch's offset)."""
        keep = self._empty.select(columns["predictions"], start)
        if len(keep) == len(columns["predictions"]):
            module.add_batch(**columns)
        elif keep:
            module.add_batch(**{k: [v[i] for i in keep] for k, v in columns.items()})

    def _finish(self, module: Any, stop: int) -> dict[str, int | float]:
        """Compute the result of the ``stop`` rows added so far and reset the offset."""
        if self._n_rows is not None and stop != self._n_rows:
            raise ValueError(
                f"streaming compute_metrics got {stop} predictions but eval_dataset has {self._n_rows} rows; pass "
                "the same dataset to make_compute_metrics and to the Trainer"
            )
        self._offset = 0
        return run_on_main(lambda: numbers_only(self._compute_selected(module, stop)))

    def _compute_selected(self, module: Any, stop: int) -> dict[str, Any]:
        """The result of the ``stop`` rows of this evaluation under the ``empty=`` policy (rank 0)."""
        dropped = self._empty.dropped
        result = None
        if len(dropped) < stop:  # some row was added
            options = {
                k: [v for i, v in enumerate(values) if i not in dropped]
                for k, values in self._option_columns(stop).items()
            }
            result = module.compute(**options, **self._empty.compute_options(self._compute_kwargs))
        return self._empty.result(result, stop)

    # -- shared ------------------------------------------------------------------------------------

    def _drop_padding(
        self, predictions: list[str], references: dict[str, list[str]], start: int
    ) -> tuple[list[str], dict[str, list[str]]]:
        """Under ``torch.distributed``, drop the rows past ``eval_dataset``'s end (the Trainer's padding).

        With several processes the Trainer evens out the last batch across ranks by repeating rows from the
        start of the dataset and gathers them after the real rows; they are not predictions of new rows. In a
        single process nothing is dropped (a length mismatch is the caller's error).
        """
        _, size = rank_and_size()
        if self._n_rows is None or size == 1 or len(predictions) <= self._n_rows - start:
            return predictions, references
        keep = max(0, self._n_rows - start)
        logger.info(
            "compute_metrics: dropped %d row(s) past the %d rows of eval_dataset: the Trainer's padding of the last "
            "batch across %d processes",
            len(predictions) - keep,
            self._n_rows,
            size,
        )
        return predictions[:keep], {k: v[:keep] for k, v in references.items()}

    def _decode_batch(self, eval_pred: Any) -> tuple[list[str], dict[str, list[str]]]:
        """Decoded predictions, and ``{"references": decoded labels}`` if the metric takes references."""
        predictions = _decode(self._tokenizer, _as_ids(eval_pred.predictions, "predictions"))
        if not self._use_references:
            return predictions, {}
        if eval_pred.label_ids is None:
            raise ValueError(f"metric {self.name!r} needs references but the evaluation batch has no label_ids")
        return predictions, {"references": _decode(self._tokenizer, _as_ids(eval_pred.label_ids, "label_ids"))}

    def _batch_columns(self, start: int, stop: int) -> dict[str, list[Any]]:
        """Rows ``start:stop`` of the side columns that are metric features (passed to ``add_batch``)."""
        return {k: self._side[k][start:stop] for k in self._batch_keys}

    def _option_columns(self, stop: int) -> dict[str, list[Any]]:
        """The first ``stop`` rows of the side columns that are compute options (``document_ids``)."""
        return {k: self._side[k][:stop] for k in self._option_keys}


def make_compute_metrics(
    metric: str | Any,
    tokenizer: Any,
    eval_dataset: Any = None,
    columns: Mapping[str, str] | None = None,
    streaming: bool = False,
    empty: str = DEFAULT_EMPTY,
    **compute_kwargs: Any,
) -> ComputeMetrics:
    """Build a ``compute_metrics`` callable for ``Seq2SeqTrainer`` (use ``predict_with_generate=True``).

    Default columns (merged under ``columns``) are the metric spec's ``hook_columns`` (:func:`default_columns`):
    ``personas`` from ``"persona"``, ``documents`` from ``"document"`` (add ``{"document_ids": "doc_id"}`` to group
    by an id column instead of by text), ``sources`` from ``"document"``. References are the labels, passed only to
    metrics that take them; row i is user i's summary, so no user column is needed.

    Args:
        metric: a registered metric name (loaded once, here, with ``keep_in_memory=True``) or a loaded module.
        tokenizer: the tokenizer that decodes predictions and labels (``pad_token_id`` must be set).
        eval_dataset: the evaluation dataset (``datasets.Dataset`` or a mapping of column name to list), in the
            order the Trainer evaluates it. Needed when the metric takes side inputs.
        columns: metric input name -> dataset column name, e.g. ``{"personas": "persona"}``.
        streaming: return the ``batch_eval_metrics=True`` variant ``fn(eval_pred, compute_result)``. It adds each
            batch to the metric and keeps an offset into the side columns, which assumes the batches arrive in
            order in one process (true for the Trainer, which gathers every batch to each rank; do not combine it
            with ``evaluate``'s own ``num_process`` mode). If an evaluation fails mid-way, the next call starts
            afresh with a newly loaded module (metric given by name) or raises ``RuntimeError`` (loaded module
            given, as it may still hold the failed evaluation's batches).
        empty: what an empty generation does (:mod:`persona_metrics.integrations.empty`): ``"zero"`` (default)
            the library's score for an empty summary, ``"skip"`` left out, ``"error"`` the library's named error.
            DEGRESS rewards empty output: use ``"skip"`` or ``"error"`` when checkpoints are picked by ``degress``.
        **compute_kwargs: options passed to ``metric.compute`` (``distance="jsd"``, ``bootstrap=1000`` ...).

    Returns:
        A :class:`ComputeMetrics`, called as ``fn(eval_pred)`` (or ``fn(eval_pred, compute_result)`` when
        streaming), returning the numbers of the result (see :func:`numbers_only`) and ``num_empty``; the Trainer
        adds the ``eval_`` prefix. Streaming calls with ``compute_result=False`` return ``{}``.

    Raises:
        ValueError: an ``empty`` value not in :data:`~persona_metrics.integrations.empty.ALLOWED_EMPTY`; an unknown
            metric name; a side input with no column; a column missing from ``eval_dataset``; a column key or
            ``compute_kwargs`` key the metric does not take, or given twice; an option value the metric rejects
            (checked here, not at the first evaluation). At evaluation time: a number of predictions that does not
            match ``eval_dataset``, logits instead of generated ids, missing labels for a metric that takes them.
        TypeError: ``eval_dataset`` is not a ``datasets.Dataset`` (a ``DatasetDict``, an ``IterableDataset``) nor a
            mapping of columns; non-integer ids.
        RuntimeError: see ``streaming``.
    """
    name, module = _resolve_metric(metric)
    policy = EmptyPolicy(name, empty)
    if getattr(tokenizer, "pad_token_id", None) is None:
        raise ValueError("tokenizer.pad_token_id is not set; it replaces -100 before decoding")
    inputs = input_names(module)
    mapping = {**default_columns(name), **(columns or {})}
    _check_side_inputs(name, inputs, mapping)
    check_option_names(module, name, mapping, compute_kwargs)
    if hasattr(module, "check_option_values"):  # the bundled modules: the library's checks of every value
        module.check_option_values(**compute_kwargs)
    side = read_columns(eval_dataset, mapping)
    n_rows = num_rows(eval_dataset) if eval_dataset is not None else None
    return ComputeMetrics(
        module,
        name,
        tokenizer,
        side,
        inputs=inputs,
        n_rows=n_rows,
        streaming=streaming,
        reloadable=isinstance(metric, str),
        compute_kwargs=compute_kwargs,
        empty=policy,
    )


def _resolve_metric(metric: str | Any) -> tuple[str, Any]:
    """The metric's name and module: a bundled name is loaded, a loaded module is named after itself."""
    if isinstance(metric, str):
        return metric, _load(metric)
    return getattr(metric, "name", type(metric).__name__), metric


def _check_side_inputs(name: str, inputs: list[str], mapping: Mapping[str, str]) -> None:
    """Check that every metric input other than the model outputs has a dataset column."""
    missing = [k for k in inputs if k not in MODEL_INPUTS and k not in mapping]
    if missing:
        raise ValueError(
            f"metric {name!r} needs input(s) {missing} from the eval dataset; map them to columns with "
            f"columns={{{', '.join(f'{k!r}: <column>' for k in missing)}}}"
        )


def _load(name: str) -> Any:
    """Load a bundled metric by name, in memory (no cache files shared between jobs or hooks)."""
    from persona_metrics.integrations.registry import load

    return load(name, keep_in_memory=True)


def _as_ids(values: Any, field: str) -> np.ndarray:
    """Token ids as a 2-D numpy array: tensors moved to the CPU, a tuple of outputs reduced to its first item."""
    if isinstance(values, tuple):  # (generated ids, ...) or (logits, ...)
        values = values[0]
    if hasattr(values, "detach"):
        values = values.detach().cpu().numpy()
    array = np.asarray(values)
    if array.ndim != 2:
        raise ValueError(
            f"{field} must be token ids of shape (batch, length), got shape {array.shape}; with Seq2SeqTrainer "
            "set predict_with_generate=True (or reduce logits with preprocess_logits_for_metrics)"
        )
    if not np.issubdtype(array.dtype, np.integer):
        raise TypeError(f"{field} must hold integer token ids, got dtype {array.dtype}")
    return array


def _decode(tokenizer: Any, ids: np.ndarray) -> list[str]:
    """Replace -100 (the Trainer's padding) by the pad id, decode without special tokens, strip."""
    ids = np.where(ids != -100, ids, tokenizer.pad_token_id)
    return [text.strip() for text in tokenizer.batch_decode(ids, skip_special_tokens=True)]
