"""Input checks shared by every entry point (library functions, evaluate modules, hooks, CLI and apps).

The one validation layer: texts (:func:`check_texts`, :func:`check_text_fields`, :func:`check_reference_lists`,
:func:`check_text`), per-item containers (:func:`as_list`: lists, tuples, numpy arrays, ``datasets`` Columns,
pandas Series become one plain list, once), numbers in documented ranges (:func:`check_number`), flags
(:func:`check_bool`), choices (:func:`check_choice`; the ``empty=`` policy: :func:`check_empty`), option mappings
(:func:`check_mapping`), paths (:func:`check_path`) and per-item ids (:func:`check_ids`). Three common mistakes
have one message helper each, for these checks and the other modules that report them: :func:`not_one_of` (not
one of the choices), :func:`out_of_range` (a number outside its interval), :func:`unknown_options`. Every check raises
``TypeError`` (wrong type) or ``ValueError`` (a bad value) whose message names the field, and the index where there
is one (``predictions[3]``, ``references[2][1]``, ``persona_samples['x'][0]``). The families' params objects
(on :mod:`persona_metrics.params`, each in its family's ``params.py``: ``DistanceChoice``, ``PersevalParams``,
``StyleParams``, ``QualityParams``, ``VertParams``, ``JudgeOptions``, ``SummaryEvalParams``) check with these, and
every entry point builds those.

The library's other two shared services have their own floor-1 modules: warnings (:mod:`persona_metrics.warning`:
``warn``, ``PersonaMetricsWarning``) and the install extras (:mod:`persona_metrics.extras`: ``require``,
``require_extra``, ``MissingExtraError``).

Text policy: a text is a ``str``; a lone surrogate (U+D800 to U+DFFF, what ``errors="surrogateescape"`` or
a broken decoder leaves in a ``str``) is rejected with the field and index, since it is not valid Unicode and
cannot be encoded as UTF-8 (pyarrow, which evaluate uses, and every file or JSON output would fail on it).
"""

from __future__ import annotations

import math
import numbers
import os
import re
from collections.abc import Hashable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

#: A lone surrogate code point: not valid Unicode, cannot be encoded as UTF-8.
_SURROGATE = re.compile("[\ud800-\udfff]")
#: Longest ``repr`` of a value quoted in an error message.
_SHOWN = 60


def describe(value: object) -> str:
    """A short ``repr`` of ``value`` for error messages (huge ints and long texts abbreviated, never raising)."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 64:
        return f"an int of {len(str(abs(value))) if value.bit_length() < 13000 else 'over 4000'} digits"
    try:
        text = repr(value)
    except Exception:  # a repr that fails must not hide the real error
        text = f"<{type(value).__name__}>"
    return text if len(text) <= _SHOWN else text[: _SHOWN - 3] + "..."


def _is_column(values: object) -> bool:
    """Whether ``values`` is a ``datasets`` Column (``ds["text"]``), without importing datasets."""
    kind = type(values)
    return kind.__name__ == "Column" and kind.__module__.startswith("datasets")


def as_list(values: object, field: str, what: str = "a list") -> list[Any]:
    """``values`` as a plain list, converted once: the boundary every per-item input goes through.

    Accepted: a list (returned as is), a tuple, a one-dimensional numpy array, a ``datasets`` Column (read with
    one slice, not item by item), a pandas Series or Index, a pyarrow Array, any other ``Sequence``. Refused: None,
    a string or bytes, a mapping, a set, a scalar, a generator, an array of another dimension.

    Args:
        values: the container.
        field: its name, for the messages.
        what: what the field must be, for the messages (``"a list of strings"``).

    Raises:
        TypeError: naming the field and what it must be.
    """
    if isinstance(values, list):
        return values
    if values is None:
        raise TypeError(f"{field} is missing (None); it must be {what}")
    if isinstance(values, str | bytes | bytearray | Mapping | set | frozenset):
        raise TypeError(f"{field} must be {what}, got {type(values).__name__}")
    if isinstance(values, tuple):
        return list(values)
    if _is_column(values):
        values = values[:]  # type: ignore[index]  # one read of the arrow column (item access costs ~60 µs each)
    return _converted(values, field, what)


def _converted(values: Any, field: str, what: str) -> list[Any]:
    """A list from an array-like (numpy, pandas, pyarrow) or another ``Sequence``."""
    if isinstance(values, list):
        return values
    shape = getattr(values, "shape", None)
    if isinstance(shape, tuple) and len(shape) != 1:
        raise TypeError(f"{field} must be {what} (one-dimensional), got {type(values).__name__} of shape {shape}")
    for method in ("to_pylist", "tolist"):  # pyarrow; numpy, pandas
        convert = getattr(values, method, None)
        out = convert() if callable(convert) else None
        if isinstance(out, list):
            return out
    if isinstance(values, Sequence):
        return list(values)
    raise TypeError(f"{field} must be {what}, got {type(values).__name__}")


def check_text(value: object, where: str, allow_empty: bool = False) -> str:
    """``value`` if it is a valid text: a ``str`` without lone surrogates, non-blank unless ``allow_empty``.

    Args:
        value: the text.
        where: its name and index, for the messages (``"predictions[3]"``).
        allow_empty: whether an empty or whitespace-only text is allowed.

    Raises:
        TypeError: not a string.
        ValueError: empty or whitespace-only (when not allowed), or a lone surrogate (its code point and position
            named).
    """
    if not isinstance(value, str):
        raise TypeError(f"{where} must be a string, got {type(value).__name__}: {describe(value)}")
    if not allow_empty and (not value or value.isspace()):
        raise ValueError(f"{where} is empty (empty or whitespace-only text)")
    if not value.isascii():
        bad = _SURROGATE.search(value)
        if bad is not None:
            raise ValueError(
                f"{where} contains a lone surrogate (U+{ord(bad.group()):04X} at position {bad.start()}), which is "
                "not valid Unicode and cannot be encoded as UTF-8; decode the text with errors='replace' or fix it"
            )
    return value


def check_texts(allow_empty: Iterable[str] = (), **fields: object) -> dict[str, list[str]]:
    """Check that every field is a list of valid texts, all of the same length; return them as plain lists.

    Each field goes through :func:`as_list` once (tuples, numpy arrays, ``datasets`` Columns and pandas Series
    are accepted and converted), then every item through :func:`check_text`.

    Args:
        allow_empty: names of the fields whose items may be empty or whitespace-only.
        **fields: ``name=list_of_strings``, in the order they should be reported.

    Returns:
        ``{name: list of str}`` in the order given.

    Raises:
        TypeError: a field that is None or not a list of strings; an item that is not a string (field and index).
        ValueError: lengths differ, there are no items, an empty item in a field that must not have one, or a
            lone surrogate (field and index named).
    """
    allowed = set(allow_empty)
    out: dict[str, list[str]] = {}
    length: int | None = None
    first = ""
    for name, values in fields.items():
        items = as_list(values, name, "a list of strings")
        if length is None:
            length, first = len(items), name
        elif len(items) != length:
            raise ValueError(f"{name} has {len(items)} items but {first} has {length}; they must align")
        empty_ok = name in allowed
        for i, value in enumerate(items):
            check_text(value, f"{name}[{i}]", empty_ok)
        out[name] = items
    if not length:
        raise ValueError(f"no items to score: {first or 'inputs'} is empty")
    return out


def check_text_fields(allow_empty: Iterable[str] = (), **fields: object) -> int:
    """:func:`check_texts`, returning only the common length (the lists themselves: :func:`check_texts`).

    Args:
        allow_empty: names of the fields whose items may be empty or whitespace-only.
        **fields: ``name=list_of_strings``, in the order they should be reported.

    Returns:
        The common length.

    Raises:
        TypeError / ValueError: see :func:`check_texts` (field and index named).
    """
    checked = check_texts(allow_empty, **fields)
    return len(next(iter(checked.values())))


def check_reference_lists(references: object, field: str = "references") -> list[list[str]]:
    """Check references given as one string or a list of strings per item; return them as lists.

    The multi-reference convention of evaluate's ``rouge``: each item is a reference or a list of references
    (the metric keeps the best-scoring one).

    Args:
        references: a list (or any container :func:`as_list` takes) whose items are non-empty strings or
            non-empty lists/tuples of non-empty strings.
        field: the name used in error messages.

    Returns:
        One list of strings per item (a single string becomes a one-item list).

    Raises:
        TypeError: ``references`` is not a list, or an item (or an item of an item) is not a string; the
            message names the field and index (``references[2][1]``).
        ValueError: no items, an empty list of references, an empty or whitespace-only reference or a lone
            surrogate (named).
    """
    items = as_list(references, field, "a list of strings or of lists of strings")
    if not items:
        raise ValueError(f"no items to score: {field} is empty")
    out: list[list[str]] = []
    for i, item in enumerate(items):
        if isinstance(item, str):
            out.append([check_text(item, f"{field}[{i}]")])
            continue
        if item is None or isinstance(item, bytes | bytearray | Mapping | set) or not hasattr(item, "__len__"):
            raise TypeError(
                f"{field}[{i}] must be a string or a list of strings, got {type(item).__name__}: {describe(item)}"
            )
        group = as_list(item, f"{field}[{i}]", "a string or a list of strings")
        if not group:
            raise ValueError(f"{field}[{i}] is an empty list of references")
        out.append([check_text(value, f"{field}[{i}][{j}]") for j, value in enumerate(group)])
    return out


# --- the messages of three common mistakes ------------------------------------------------------------------
# Every "not one of the choices", "out of range" and "unknown option" message of the library is built here, so
# that each kind of mistake reads the same wherever it is made (the option, the allowed values, what was given).
def not_one_of(name: str, value: object, allowed: Iterable[object]) -> str:
    """The message of a value that is not one of the ``allowed`` ones.

    >>> not_one_of("mode", "slow", ("fast", "exact"))
    "mode must be one of ['fast', 'exact'], got 'slow'"
    """
    return f"{name} must be one of {list(allowed)}, got {describe(value)}"


def out_of_range(
    name: str,
    value: object,
    low: float = -math.inf,
    high: float = math.inf,
    low_inclusive: bool = True,
    high_inclusive: bool = True,
    *,
    what: str = "",
) -> str:
    """The message of a number outside its interval (an infinite end is no bound).

    Args:
        name: the option, for the message.
        value: the value given.
        low: the interval's lower end (``-inf`` for none).
        high: its upper end (``inf`` for none).
        low_inclusive: whether ``low`` belongs to it.
        high_inclusive: whether ``high`` belongs to it.
        what: what the value must be besides (``"an int"``, ``"a finite number"``), or nothing.

    >>> out_of_range("beta", 400, 0, 300, low_inclusive=False)
    'beta must be in (0, 300], got 400'
    >>> out_of_range("batch_size", 0, 1, what="an int")
    'batch_size must be an int >= 1, got 0'
    """
    rule = (what + _bounds_text(low, high, low_inclusive, high_inclusive)).strip()
    return f"{name} must be {rule}, got {describe(value)}"


def unknown_options(unknown: Sequence[str], known: Iterable[str]) -> str:
    """The message of option names that are not options (``unknown`` as the caller lists them).

    >>> unknown_options(["bta"], ("beta", "mode"))
    "unknown option(s) ['bta']; the options are ['beta', 'mode']"
    """
    return f"unknown option(s) {list(unknown)}; the options are {list(known)}"


# --- options ---------------------------------------------------------------------------------------------
def interval_text(low: float, high: float, low_inclusive: bool = True, high_inclusive: bool = True) -> str:
    """``(0, 300]``-style text of an interval (``inf`` for an open end)."""
    return f"{'[' if low_inclusive else '('}{low:g}, {high:g}{']' if high_inclusive else ')'}"


def check_number(
    name: str,
    value: object,
    low: float = -math.inf,
    high: float = math.inf,
    *,
    low_inclusive: bool = True,
    high_inclusive: bool = True,
    integer: bool = False,
) -> Any:
    """``value`` as a ``float`` (or an ``int`` with ``integer=True``) if it is a finite number in the interval.

    Python and numpy numbers are accepted (``numbers.Real``, or ``numbers.Integral`` with ``integer=True``);
    bools, strings and None are not. A huge int (``10**400``) is out of range, never an ``OverflowError``.

    Args:
        name: the option's name, for the messages.
        value: the value.
        low: the interval's lower end (``-inf`` for none).
        high: its upper end (``inf`` for none).
        low_inclusive: whether ``low`` belongs to it.
        high_inclusive: whether ``high`` belongs to it.
        integer: whether only whole numbers are allowed.

    Raises:
        TypeError: not a number (not an int with ``integer=True``); naming the option.
        ValueError: NaN, infinite, or outside the interval (the interval named).
    """
    kind = numbers.Integral if integer else numbers.Real
    what = "an int" if integer else "a finite number"
    if isinstance(value, bool) or not isinstance(value, kind):
        raise TypeError(f"{name} must be {what}, got {type(value).__name__}: {describe(value)}")
    number: Any
    if integer:
        number = int(value)  # type: ignore[call-overload]  # exact for any size: compared without a float
        finite = True
    else:
        try:
            number = float(value)
        except OverflowError:
            number = math.inf
        finite = math.isfinite(number)
    inside = finite and (number >= low if low_inclusive else number > low)
    inside = inside and (number <= high if high_inclusive else number < high)
    if not inside:
        raise ValueError(out_of_range(name, value, low, high, low_inclusive, high_inclusive, what=what))
    return number


def _bounds_text(low: float, high: float, low_inclusive: bool, high_inclusive: bool) -> str:
    """`` in [0, 1]``, `` > 0``, `` <= 5`` or nothing, for the messages of :func:`check_number`."""
    if math.isinf(low) and math.isinf(high):
        return ""
    if math.isinf(high):
        return f" {'>=' if low_inclusive else '>'} {low:g}"
    if math.isinf(low):
        return f" {'<=' if high_inclusive else '<'} {high:g}"
    return f" in {interval_text(low, high, low_inclusive, high_inclusive)}"


def check_bool(name: str, value: object) -> bool:
    """``value`` if it is a ``bool``.

    Raises:
        TypeError: anything else (``0``, ``"yes"``, None), naming the option.
    """
    if not isinstance(value, bool):
        raise TypeError(f"{name} must be a bool (True or False), got {type(value).__name__}: {describe(value)}")
    return value


def check_choice(name: str, value: object, allowed: Sequence[str]) -> str:
    """``value`` if it is one of the ``allowed`` strings.

    Raises:
        ValueError: anything else (the allowed values named); never a comparison error for arrays.
    """
    if not isinstance(value, str) or value not in allowed:
        raise ValueError(not_one_of(name, value, allowed))
    return value


#: The values of ``empty=``, what an empty prediction does. The training hooks and the distributed metric classes
#: take all three (``"zero"`` by default; :mod:`persona_metrics.integrations.empty`); ``"skip"`` leaves rows out,
#: which is the caller's selection, so a library function that scores the items it is given takes
#: :data:`SCORED_EMPTY`.
ALLOWED_EMPTY: tuple[str, ...] = ("zero", "skip", "error")
#: The ``empty=`` values of the library's style scorers (``score_style``, ``score_quality``): ``"zero"`` scores a
#: prediction without a word 0, ``"error"`` (their default) keeps their named error.
SCORED_EMPTY: tuple[str, ...] = tuple(value for value in ALLOWED_EMPTY if value != "skip")


def check_empty(value: object, allowed: Sequence[str] = ALLOWED_EMPTY) -> str:
    """``value`` if it is one of the ``allowed`` values of ``empty=`` (:data:`ALLOWED_EMPTY` or :data:`SCORED_EMPTY`).

    Raises:
        ValueError: anything else, naming ``empty`` and the allowed values.
    """
    return check_choice("empty", value, allowed)


def check_mapping(name: str, value: object) -> dict[str, Any]:
    """``value`` as a plain dict if it is a mapping with string keys (an options or weights dict).

    Raises:
        TypeError: not a mapping, or a key that is not a string (named).
    """
    if not isinstance(value, Mapping):
        got = f"{type(value).__name__}: {describe(value)}"
        raise TypeError(f"{name} must be a mapping of option name to value, got {got}")
    for key in value:
        if not isinstance(key, str):
            raise TypeError(f"{name} keys must be strings, got {type(key).__name__}: {describe(key)}")
    return dict(value)


def check_path(name: str, value: object) -> Path:
    """``value`` as a :class:`~pathlib.Path` if it is a non-empty path given as ``str`` or ``os.PathLike``.

    Existence is the caller's check (it knows whether a file or a directory is meant).

    Raises:
        TypeError: not a ``str`` / ``os.PathLike`` of ``str`` (bytes paths refused), naming the option.
        ValueError: empty or blank (``""`` would silently mean the current directory), or a NUL character.
    """
    text = os.fspath(value) if isinstance(value, os.PathLike) else value
    if not isinstance(text, str):
        raise TypeError(f"{name} must be a path (str or os.PathLike), got {type(value).__name__}: {describe(value)}")
    if not text.strip():
        raise ValueError(f"{name} is empty; give a path")
    if "\x00" in text:
        raise ValueError(f"{name} contains a NUL character: {describe(text)}")
    return Path(text)


def check_ids(values: object, field: str = "document_ids") -> list[Hashable] | None:
    """Per-item ids (``document_ids``) as a plain list: each a hashable value other than None; None passes.

    Raises:
        TypeError: not a list (:func:`as_list`), or an id that is None or unhashable (field and index named).
    """
    if values is None:
        return None
    items = as_list(values, field, "a list of ids (str or int)")
    for i, key in enumerate(items):
        try:
            hash(key)
        except TypeError:
            key = None
        if key is None:
            raise TypeError(f"{field}[{i}] must be a hashable id (str or int), got {describe(items[i])}")
    return items


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
