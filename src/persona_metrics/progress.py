"""The library's one progress switch, its progress bars, and the silencing of other libraries' bars.

Long work (embedding texts with a neural distance or encoder, scoring many pairs, building a resource on first
use, judging summaries) shows a ``tqdm`` bar on standard error through :func:`progress_bar` when progress is
on. Whether it is on is decided, first match wins, by:

1. the innermost :func:`progress` context (``with progress(False): ...``);
2. :func:`set_progress` (``set_progress(True)``; ``set_progress(None)`` returns to the default);
3. the environment variable ``PERSONA_METRICS_PROGRESS`` (``1/true/yes/on`` or ``0/false/no/off``, read at
   each call);
4. the default: on when standard error is a terminal, off otherwise (logs, CI, pipes, notebooks' captured
   streams stay clean).

A bar appears only after :data:`PROGRESS_DELAY_S` seconds, so quick calls print nothing, and it is erased
when done (``leave=False``).

The bars of ``transformers`` ("Loading weights"), ``datasets`` ("Generating train split") and
``huggingface_hub`` are switched off inside the library's own model and dataset loads by
:func:`quiet_foreign_progress`, whatever the switch says, and the user's settings of those libraries are
restored afterwards. ``docs/progress.md`` has the user-facing summary.
"""

from __future__ import annotations

import importlib
import logging
import os
import sys
import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, TypeVar

logger = logging.getLogger(__name__)

#: The environment variable read when neither :func:`progress` nor :func:`set_progress` decided.
PROGRESS_ENV = "PERSONA_METRICS_PROGRESS"
#: Seconds a bar waits before it first draws (quick calls print nothing).
PROGRESS_DELAY_S = 1.0

_TRUE = frozenset({"1", "true", "yes", "on"})
_FALSE = frozenset({"0", "false", "no", "off"})

_global: bool | None = None
_local: ContextVar[bool | None] = ContextVar("persona_metrics_progress", default=None)

T = TypeVar("T")


def _from_env() -> bool | None:
    value = os.environ.get(PROGRESS_ENV, "").strip().lower()
    if not value:
        return None
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    logger.warning("ignoring %s=%r (expected 1/true/yes/on or 0/false/no/off)", PROGRESS_ENV, value)
    return None


def _stderr_is_tty() -> bool:
    stream = sys.stderr
    try:
        return bool(stream is not None and stream.isatty())
    except (AttributeError, ValueError):  # a replaced or closed stream
        return False


def progress_enabled() -> bool:
    """Whether the library shows progress bars now (the order of precedence is in the module docstring)."""
    for decided in (_local.get(), _global, _from_env()):
        if decided is not None:
            return decided
    return _stderr_is_tty()


def set_progress(enabled: bool | None) -> None:
    """Turn the library's progress bars on or off for the whole process.

    Args:
        enabled: ``True`` or ``False``; ``None`` returns to the environment variable or terminal default.

    Raises:
        TypeError: anything but a bool or None.
    """
    global _global
    if enabled is not None and not isinstance(enabled, bool):
        raise TypeError(f"enabled must be a bool or None, got {enabled!r}")
    _global = enabled


@contextmanager
def progress(enabled: bool = True) -> Iterator[None]:
    """Show (or hide) the library's progress bars inside a ``with`` block, then restore the previous setting.

    Overrides :func:`set_progress` and the environment variable; nests; local to the thread or task.

    >>> with progress(False):
    ...     progress_enabled()
    False
    """
    if not isinstance(enabled, bool):
        raise TypeError(f"enabled must be a bool, got {enabled!r}")
    token = _local.set(enabled)
    try:
        yield
    finally:
        _local.reset(token)


def progress_bar(
    iterable: Iterable[T] | None = None,
    *,
    desc: str,
    total: int | None = None,
    unit: str = "it",
    enabled: bool | None = None,
) -> Any:
    """A ``tqdm`` bar on standard error, drawn only when progress is on (or ``enabled`` forces it).

    Args:
        iterable: what to iterate over; ``None`` for a bar updated by hand (``bar.update(n)``, use it as a
            context manager so that it closes).
        desc: the label, ``"<what>: <doing>"`` (e.g. ``"bertscore: embedding"``).
        total: the number of steps, when ``iterable`` has no length.
        unit: the unit of a step.
        enabled: ``True`` / ``False`` to override the switch for this bar (an explicit ``progress=`` argument
            of a library function); ``None`` follows :func:`progress_enabled`.

    Returns:
        The ``tqdm`` object (a disabled one is a transparent wrapper that prints nothing).
    """
    from tqdm.auto import tqdm

    show = progress_enabled() if enabled is None else enabled
    return tqdm(
        iterable,
        desc=desc,
        total=total,
        unit=unit,
        disable=not show,
        leave=False,
        delay=PROGRESS_DELAY_S,
        file=sys.stderr,
    )


# --- other libraries' progress bars --------------------------------------------------------------------------
_quiet_lock = threading.Lock()
_quiet_depth = 0
_restore: list[Callable[[], None]] = []


def _silence_hub() -> Callable[[], None] | None:
    """Disable huggingface_hub's bars (all groups); return how to put its exact previous state back."""
    try:
        from huggingface_hub import constants

        # the module, not the class of the same name that huggingface_hub.utils exports
        hub_tqdm = importlib.import_module("huggingface_hub.utils.tqdm")
    except ImportError:
        return None
    if constants.HF_HUB_DISABLE_PROGRESS_BARS is not None:  # the user's environment variable has priority
        return None
    states = getattr(hub_tqdm, "progress_bar_states", None)
    if not isinstance(states, dict):
        return None
    saved = dict(states)
    states.clear()
    states["_global"] = False

    def restore() -> None:
        states.clear()
        states.update(saved)

    return restore


def _silence_transformers() -> Callable[[], None] | None:
    """Disable transformers' bars (its own flag only; the hub's state is restored separately)."""
    if "transformers" not in sys.modules:
        return None
    from huggingface_hub import constants
    from transformers.utils import logging as tf_logging

    # its switches also switch the hub's, which warns when HF_HUB_DISABLE_PROGRESS_BARS is set: that variable
    # is the user's decision for both libraries
    if constants.HF_HUB_DISABLE_PROGRESS_BARS is not None or not tf_logging.is_progress_bar_enabled():
        return None
    tf_logging.disable_progress_bar()
    return tf_logging.enable_progress_bar


def _silence_datasets() -> Callable[[], None] | None:
    """Disable datasets' bars unless ``HF_DATASETS_DISABLE_PROGRESS_BARS`` decides."""
    if "datasets" not in sys.modules:
        return None
    from datasets import config
    from datasets.utils import logging as ds_logging

    if config.HF_DATASETS_DISABLE_PROGRESS_BARS is not None or not ds_logging.is_progress_bar_enabled():
        return None
    ds_logging.disable_progress_bar()
    return ds_logging.enable_progress_bar


@contextmanager
def quiet_foreign_progress() -> Iterator[None]:
    """Switch off the progress bars of transformers, datasets and huggingface_hub inside the block.

    Used around the library's model and dataset loads. Libraries not yet imported are left alone (enter the
    block after importing what it loads). On exit each library is put back exactly as it was (the
    huggingface_hub per-group states included); an environment variable of those libraries that forces their
    bars on or off is respected. Nested and concurrent blocks are safe: the first block to enter saves the
    settings and the last to leave restores them.
    """
    global _quiet_depth
    with _quiet_lock:
        if _quiet_depth == 0:
            # hub first: transformers' enable/disable also switch the hub, whose saved state is restored last
            steps = (_silence_hub(), _silence_transformers(), _silence_datasets())
            _restore[:] = [step for step in steps if step is not None]
        _quiet_depth += 1
    try:
        yield
    finally:
        with _quiet_lock:
            _quiet_depth -= 1
            if _quiet_depth == 0:
                for step in reversed(_restore):
                    step()
                _restore.clear()
