"""Frozen parameter objects: the one place where a metric family's option names, defaults, ranges and help live.

Each family declares one frozen dataclass on :class:`Params` whose fields are made with :func:`option`. Every
entry point reads it: the library functions take the object (or build it from keywords), the evaluate modules
and the hooks check their options by building it, the CLI's ``-o KEY=VALUE`` names and ``--help`` lines come from
:meth:`Params.names` and :meth:`Params.help_lines`, and the Spaces take their controls' defaults and bounds from
:meth:`Params.spec`. A bad value fails the same way everywhere, on construction, naming the option and its range
or its allowed values.

>>> from dataclasses import dataclass
>>> @dataclass(frozen=True)
... class ToyParams(Params):
...     beta: float = option(1.7, "EDP slope (eq. 6)", interval=(0.0, 300.0, False, True))
...     mode: str = option("fast", "how to run", choices=("fast", "exact"))
>>> ToyParams(beta=2).beta
2.0
>>> ToyParams(mode="slow")
Traceback (most recent call last):
...
ValueError: mode must be one of ['fast', 'exact'], got 'slow'
>>> ToyParams.names()
('beta', 'mode')
>>> ToyParams.from_options({"bta": 1})
Traceback (most recent call last):
...
TypeError: unknown option(s) ['bta']; the options are ['beta', 'mode']
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

from persona_metrics.validation import check_choice, check_number, interval_text, unknown_options

P = TypeVar("P", bound="Params")

#: ``(low, high, low_inclusive, high_inclusive)`` of a real- or int-valued option.
Interval = tuple[float, float, bool, bool]


@dataclasses.dataclass(frozen=True)
class Spec:
    """What an option is: its help line and the rule its values follow (one of ``choices``, ``interval``, ``check``).

    Attributes:
        help: one line for ``--help``, the cards' tables and the Space controls.
        choices: the allowed strings, or None.
        interval: the allowed numbers (with ``integer`` for whole numbers), or None.
        integer: whether the number must be an int.
        optional: whether None is allowed (it then means "not set").
        check: ``check(name, value) -> value``, used instead of the ``choices`` / ``interval`` test when given
            (paths, mappings, objects, or a family's own wording of a range); returns the value to keep, raises
            ``TypeError`` / ``ValueError`` naming ``name``.
        display: ``(low, high, step)`` for a slider where the range is open-ended or too wide to show (a Space's
            window on the range, never a different range).
    """

    help: str
    choices: tuple[str, ...] | None = None
    interval: Interval | None = None
    integer: bool = False
    optional: bool = False
    check: Callable[[str, Any], Any] | None = None
    display: tuple[float, float, float] | None = None

    def validate(self, name: str, value: Any) -> Any:
        """``value`` as kept (numbers as float or int), or a named ``TypeError`` / ``ValueError``."""
        if value is None and self.optional:
            return None
        if self.check is not None:
            return self.check(name, value)
        if self.choices is not None:
            return check_choice(name, value, self.choices)
        if self.interval is not None:
            low, high, low_in, high_in = self.interval
            return check_number(
                name, value, low, high, low_inclusive=low_in, high_inclusive=high_in, integer=self.integer
            )
        return value

    def allowed(self) -> str:
        """The allowed values in words: ``one of [...]``, an interval, or ``""``."""
        if self.choices is not None:
            return f"one of {list(self.choices)}"
        if self.interval is not None:
            return ("an int in " if self.integer else "") + interval_text(*self.interval)
        return ""


def option(
    default: Any,
    help: str,
    *,
    choices: Sequence[str] | None = None,
    interval: Interval | None = None,
    integer: bool = False,
    optional: bool = False,
    check: Callable[[str, Any], Any] | None = None,
    display: tuple[float, float, float] | None = None,
) -> Any:
    """A :class:`Params` field: its default and its :class:`Spec` (see there for the arguments)."""
    spec = Spec(help, tuple(choices) if choices is not None else None, interval, integer, optional, check, display)
    return dataclasses.field(default=default, metadata={"spec": spec})


class Params:
    """Base of the frozen params dataclasses: validation on construction and the facts every reader needs.

    Subclasses are ``@dataclass(frozen=True)`` with fields made by :func:`option`; ``__post_init__`` validates and
    normalises each field in declaration order (a subclass adds cross-field checks by extending it).
    """

    def __post_init__(self) -> None:
        for field in dataclasses.fields(self):  # type: ignore[arg-type]
            kept = self.spec(field.name).validate(field.name, getattr(self, field.name))
            object.__setattr__(self, field.name, kept)

    @classmethod
    def names(cls) -> tuple[str, ...]:
        """The option names, in declaration order."""
        return tuple(f.name for f in dataclasses.fields(cls))  # type: ignore[arg-type]

    @classmethod
    def spec(cls, name: str) -> Spec:
        """The :class:`Spec` of option ``name``."""
        return {f.name: f.metadata["spec"] for f in dataclasses.fields(cls)}[name]  # type: ignore[arg-type]

    @classmethod
    def default(cls, name: str) -> Any:
        """The default value of option ``name``."""
        return {f.name: f.default for f in dataclasses.fields(cls)}[name]  # type: ignore[arg-type]

    @classmethod
    def from_options(cls: type[P], options: Mapping[str, Any]) -> P:
        """The params of ``options`` (every key must be an option name).

        Raises:
            TypeError: an unknown name (the options listed), or a bad value's type.
            ValueError: a bad value (named, with its range or allowed values).
        """
        unknown = sorted(str(k) for k in options if k not in cls.names())
        if unknown:
            raise TypeError(unknown_options(unknown, cls.names()))
        return cls(**options)

    @classmethod
    def from_call(cls: type[P], params: object, options: Mapping[str, Any]) -> P:
        """``params`` when given, else the params of ``options``: how an entry point takes either form.

        Args:
            params: a params object of this class, or None.
            options: the call's keyword options; beside ``params`` each must keep its default.

        Raises:
            TypeError: an option changed beside ``params`` (named), ``params`` of another class, an unknown
                option name, or a bad value's type.
            ValueError: a bad value (named, with its range or allowed values).
        """
        if params is None:
            return cls.from_options(options)
        changed = sorted(k for k, v in options.items() if k not in cls.names() or not _same(v, cls.default(k)))
        if changed:
            raise TypeError(f"give either a {cls.__name__} or the options {changed}, not both")
        if not isinstance(params, cls):
            raise TypeError(f"params must be a {cls.__name__}, got {type(params).__name__}")
        return params

    @classmethod
    def of_checked(cls: type[P], **values: Any) -> P:
        """An object of values another params object checked with the same specs, not checked again.

        For a params object that holds another's options (``QualityParams`` holds ``StyleParams``'): each option is
        checked once. The fields not given keep their defaults.

        Raises:
            TypeError: a name that is not a field (named).
        """
        unknown = sorted(set(values) - set(cls.names()))
        if unknown:
            raise TypeError(f"unknown option(s) {unknown}; the options are {list(cls.names())}")
        made = object.__new__(cls)
        for field in dataclasses.fields(cls):  # type: ignore[arg-type]
            object.__setattr__(made, field.name, values.get(field.name, field.default))
        return made

    @classmethod
    def split(cls, options: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
        """``options`` divided into this object's options and the rest."""
        names = set(cls.names())
        return {k: v for k, v in options.items() if k in names}, {k: v for k, v in options.items() if k not in names}

    @classmethod
    def help_lines(cls, defaults: Mapping[str, Any] | None = None) -> list[str]:
        """One line per option: ``name (default X; allowed): help``, for ``--help`` and the cards.

        Args:
            defaults: an entry point's own defaults where they differ from the params' (the CLI leaderboard's
                ``bootstrap``), shown instead.
        """
        own = defaults or {}
        lines = []
        for name in cls.names():
            spec = cls.spec(name)
            default = own[name] if name in own else cls.default(name)
            facts = "; ".join(s for s in (f"default {default!r}", spec.allowed()) if s)
            lines.append(f"{name} ({facts}): {spec.help}")
        return lines

    def changed(self) -> dict[str, Any]:
        """The options whose value differs from the default."""
        return {n: getattr(self, n) for n in self.names() if getattr(self, n) != self.default(n)}


def _same(value: Any, default: Any) -> bool:
    """Whether an option's value is its default (the default object, or equal to it)."""
    try:
        return value is default or bool(type(value) is type(default) and value == default)
    except (TypeError, ValueError):  # a value whose == is not a bool
        return False


def option_names(params: Sequence[type[Params]]) -> tuple[str, ...]:
    """The option names of several params classes, in order (for an entry point that takes all their fields)."""
    return tuple(name for cls in params for name in cls.names())


__all__ = ["Interval", "Params", "Spec", "option", "option_names"]
