"""Input checks shared by every entry point (library functions and evaluate modules)."""

from __future__ import annotations

import os
import sys
import warnings
from collections.abc import Iterable, Sequence
from types import FrameType
from typing import Any


class PersonaMetricsWarning(UserWarning):
    """Warnings about data the metrics handle in a documented but noteworthy way."""


#: Modules whose frames :func:`warn` passes over to reach the caller's line: this package, the evaluate modules
#: it ships (loaded as ``evaluate_modules.*``), the Hugging Face libraries that call them, and import machinery.
INTERNAL_MODULES: tuple[str, ...] = (
    "persona_metrics",
    "evaluate",
    "evaluate_modules",
    "datasets",
    "transformers",
    "huggingface_hub",
    "importlib",
    "contextlib",
)
_PACKAGE_DIR = os.path.dirname(os.path.realpath(__file__))
_METRICS_DIR = os.path.realpath(os.path.join(_PACKAGE_DIR, "metrics"))


def _is_internal(frame: FrameType) -> bool:
    name = str(frame.f_globals.get("__name__", ""))
    if any(name == prefix or name.startswith(prefix + ".") for prefix in INTERNAL_MODULES):
        return True
    filename = frame.f_code.co_filename
    if filename.startswith("<frozen importlib"):
        return True
    path = os.path.realpath(filename)
    return any(path.startswith(root + os.sep) for root in (_PACKAGE_DIR, _METRICS_DIR))


def _caller_frame() -> FrameType:
    """The innermost frame outside :data:`INTERNAL_MODULES` (the outermost frame when every frame is internal)."""
    frame = sys._getframe(2)  # the caller of warn()
    while frame.f_back is not None and _is_internal(frame):
        frame = frame.f_back
    return frame


def warn(message: str, category: type[Warning] = PersonaMetricsWarning) -> None:
    """Issue a warning attributed to the user's line that called into the library.

    Every warning of the library goes through here. Instead of a fixed ``stacklevel``, the stack is walked to the
    first frame outside :data:`INTERNAL_MODULES` (the library, its evaluate modules, evaluate / datasets /
    transformers, import machinery), so the warning's ``filename`` and ``lineno`` are those of the caller's
    code whether it called a library function, an evaluate module's ``compute`` or ``evaluate.load``. The
    usual filters (``-W``, ``warnings.simplefilter``, ``pytest.warns``) and once-per-location registry apply
    to that line, as for ``warnings.warn`` (Python 3.12's ``skip_file_prefixes`` does the same; 3.11 lacks it).

    Args:
        message: the warning text.
        category: the warning class (default :class:`PersonaMetricsWarning`).
    """
    frame = _caller_frame()
    module_globals = frame.f_globals
    warnings.warn_explicit(
        message,
        category,
        frame.f_code.co_filename,
        frame.f_lineno,
        module=str(module_globals.get("__name__", "<string>")),
        registry=module_globals.setdefault("__warningregistry__", {}),
        module_globals=module_globals,
    )


def check_text_fields(allow_empty: Iterable[str] = (), **fields: object) -> int:
    """Check that every field is a list of strings, all of the same length.

    Args:
        allow_empty: names of the fields whose items may be empty or whitespace-only.
        **fields: ``name=list_of_strings``, in the order they should be reported.

    Returns:
        The common length.

    Raises:
        TypeError: a field that is not a list/tuple of strings; the message names the field and index.
        ValueError: lengths differ, there are no items, or a field that must not be empty has an empty item.
    """
    allowed = set(allow_empty)
    length: int | None = None
    first = ""
    for name, values in fields.items():
        if isinstance(values, str | bytes) or not isinstance(values, Sequence):
            raise TypeError(f"{name} must be a list of strings, got {type(values).__name__}")
        if length is None:
            length, first = len(values), name
        elif len(values) != length:
            raise ValueError(f"{name} has {len(values)} items but {first} has {length}; they must align")
        for i, value in enumerate(values):
            if not isinstance(value, str):
                raise TypeError(f"{name}[{i}] must be a string, got {type(value).__name__}: {value!r:.60}")
            if name not in allowed and not value.strip():
                raise ValueError(f"{name}[{i}] is empty (empty or whitespace-only text)")
    if not length:
        raise ValueError(f"no items to score: {first or 'inputs'} is empty")
    return length


def _reference_text(value: object, where: str) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{where} must be a string, got {type(value).__name__}: {value!r:.60}")
    if not value.strip():
        raise ValueError(f"{where} is empty (empty or whitespace-only text)")
    return value


def check_reference_lists(references: object, field: str = "references") -> list[list[str]]:
    """Check references given as one string or a list of strings per item; return them as lists.

    The multi-reference convention of evaluate's ``rouge``: each item is a reference or a list of references
    (the metric keeps the best-scoring one).

    Args:
        references: a list whose items are non-empty strings or non-empty lists/tuples of non-empty strings.
        field: the name used in error messages.

    Returns:
        One list of strings per item (a single string becomes a one-item list).

    Raises:
        TypeError: ``references`` is not a list/tuple, or an item (or an item of an item) is not a string; the
            message names the field and index (``references[2][1]``).
        ValueError: no items, an empty list of references, or an empty or whitespace-only reference (named).
    """
    if isinstance(references, str | bytes) or not isinstance(references, Sequence):
        raise TypeError(f"{field} must be a list of strings or of lists of strings, got {type(references).__name__}")
    if not references:
        raise ValueError(f"no items to score: {field} is empty")
    out: list[list[str]] = []
    for i, item in enumerate(references):
        if isinstance(item, list | tuple):
            if not item:
                raise ValueError(f"{field}[{i}] is an empty list of references")
            out.append([_reference_text(value, f"{field}[{i}][{j}]") for j, value in enumerate(item)])
        elif isinstance(item, str):
            out.append([_reference_text(item, f"{field}[{i}]")])
        else:
            raise TypeError(
                f"{field}[{i}] must be a string or a list of strings, got {type(item).__name__}: {item!r:.60}"
            )
    return out


def checked_mean(values: Sequence[float] | Any, unit: str = "items") -> float:
    """The arithmetic mean of per-item values, refusing an empty or non-finite input (no silent NaN).

    Args:
        values: per-item values (a sequence or an array).
        unit: what the values are per (``"items"``, ``"pairs"``), for the error message.

    Raises:
        ValueError: no values, or a value that is not finite.
    """
    import numpy as np

    array = np.asarray(values, dtype=np.float64)
    if array.size == 0:
        raise ValueError(f"no {unit} to aggregate")
    if not np.all(np.isfinite(array)):
        raise ValueError(f"a per-{unit.rstrip('s')} value is not finite")
    return float(array.mean())
