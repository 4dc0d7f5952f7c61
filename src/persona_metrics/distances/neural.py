"""What the model-based distances share: their option checks, the default device, the failure to load a model.

The distances themselves: :class:`~persona_metrics.distances.bertscore.BertScore` and
:class:`~persona_metrics.distances.infolm.InfoLM`. Models load lazily, on the first text to prepare. Nothing in
these modules imports torch or transformers at module import time (a ``device`` option imports torch to check
it).

Both embed texts so that a text's representation is bit-identical whatever else is embedded with it, before it,
or in which order (``docs/perseval.md`` §3.7): BERTScore with a BERT model on the CPU in block passes (a call's
tokens in one matrix, every linear layer in fixed :data:`~persona_metrics.distances.passes.BLOCK_ROWS`-row products
on one thread, attention per text: :func:`~persona_metrics.distances.block_pass._block_pass`), which also makes the
bits independent of the thread count; otherwise in forward passes whose shape depends only on each text's own token
length (equal-length texts together, no padding, a fixed number of rows per length:
:func:`~persona_metrics.distances.passes._fixed_shape_batches`). The passes are planned and their FLOPs counted in
:mod:`~persona_metrics.distances.passes`, the block pass runs in :mod:`~persona_metrics.distances.block_pass`, and
BERTScore's embedded texts are kept in :mod:`~persona_metrics.distances.embedding_cache`.
"""

from __future__ import annotations

from pathlib import Path

from persona_metrics.validation import not_one_of, out_of_range

#: Texts per tokenizer call.
TOKENIZE_CHUNK = 1024
#: The ``dtype`` option's values: float32 (the canonical networks), bfloat16 (autocast, fast, approximate),
#: float64 (the network in double precision: σ moves by ~1e-16 between CPU kernel paths instead of ~1e-7).
DTYPES = ("float32", "bfloat16", "float64")


def _load_failure(distance: str, model: str, err: Exception) -> OSError:
    return OSError(
        f"{distance}: could not load the model {model!r} given by the option 'model': it must be a local model "
        f"directory or a Hugging Face Hub id that is reachable (or already cached when offline) "
        f"({type(err).__name__}: {err})"
    )


def _check_model(distance: str, model: object) -> str | None:
    if model is None:
        return None
    if not isinstance(model, str | Path):
        raise TypeError(f"{distance} option model must be a str or Path (local directory or Hub id), got {model!r}")
    if not str(model).strip():
        raise ValueError(f"{distance} option model must not be empty")
    return str(model)


def _check_positive_int(distance: str, option: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(out_of_range(f"{distance} option {option}", value, 1, what="an int"))
    return value


def _check_device(distance: str, device: object) -> str | None:
    """``device`` when torch can use it; imports torch only when a device is given."""
    if device is None:
        return None
    if not isinstance(device, str):
        raise TypeError(f"{distance} option device must be a str such as 'cpu' or 'cuda', got {device!r}")
    import torch

    try:
        parsed = torch.device(device)
    except (RuntimeError, ValueError) as err:
        raise ValueError(
            f"{distance} option device={device!r} is not a torch device (e.g. 'cpu', 'cuda', 'cuda:1', 'mps')"
        ) from err
    if parsed.type == "cuda" and not torch.cuda.is_available():
        raise ValueError(
            f"{distance} option device={device!r}: this torch sees no CUDA device (torch.cuda.is_available() is "
            "False; a CPU-only build or no GPU); pass device='cpu', or leave device unset to use CUDA when present"
        )
    if parsed.type == "cuda" and parsed.index is not None and parsed.index >= torch.cuda.device_count():
        raise ValueError(
            f"{distance} option device={device!r}: only {torch.cuda.device_count()} CUDA device(s) are visible"
        )
    if parsed.type == "mps" and not torch.backends.mps.is_available():
        raise ValueError(
            f"{distance} option device={device!r}: this torch cannot use MPS (torch.backends.mps.is_available() "
            "is False); pass device='cpu', or leave device unset"
        )
    return device


def _check_optional_int(distance: str, option: str, value: object) -> int | None:
    return None if value is None else _check_positive_int(distance, option, value)


def default_device() -> str:
    """The device a model goes to when none is given: ``"cuda"`` when torch sees a GPU, else ``"cpu"``."""
    import torch

    return "cuda" if torch.cuda.is_available() else "cpu"


def _check_dtype(distance: str, dtype: object) -> str:
    if not isinstance(dtype, str) or dtype not in DTYPES:
        raise ValueError(not_one_of(f"{distance} option dtype", dtype, DTYPES))
    return dtype


def _check_cache_mb(distance: str, cache_mb: object) -> int:
    if isinstance(cache_mb, bool) or not isinstance(cache_mb, int) or cache_mb < 0:
        raise ValueError(f"{distance} option cache_mb must be an int >= 0 (MiB), got {cache_mb!r}")
    return cache_mb
