"""One signature format for every metric and distance: how a number was made, in one line.

A :class:`Signature` is a sequence of parts joined by ``|``: a name or a flag (``rougeL``, ``no-idf``) or a
``key:value`` pair (``beta:1.7``). Components (a distance, the style part of persona quality) compose with
``+``; a metric's result prints its signature with ``persona_metrics:<version>`` always last, so two numbers
are comparable when their signatures are equal (the convention of sacrebleu's signatures).

>>> sig = Signature.of("rougeL", stem="porter") + Signature.of(beta=1.7, bootstrap=False)
>>> sig.text
'rougeL|stem:porter|beta:1.7|bootstrap:no'
>>> str(sig).startswith("rougeL|stem:porter|beta:1.7|bootstrap:no|persona_metrics:")
True
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, version


def package_version(distribution: str, missing: str = "unknown") -> str:
    """The installed version of a PyPI distribution, for a signature; ``missing`` when it is not installed."""
    try:
        return version(distribution)
    except PackageNotFoundError:
        return missing


#: This package's version (``persona_metrics.__version__``), last in every signature; ``"0.0.0+unknown"`` when
#: running from a source tree that is not installed.
__version__ = package_version("persona-metrics", missing="0.0.0+unknown")


def _value(value: object) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


@dataclass(frozen=True)
class Signature:
    """The parts of a signature, in order (see the module docstring)."""

    parts: tuple[str, ...] = ()

    @classmethod
    def of(cls, *parts: str | Signature, **fields: object) -> Signature:
        """Names, flags or nested signatures first (in order), then ``key:value`` fields (in order)."""
        items: list[str] = []
        for part in parts:
            items.extend(part.parts if isinstance(part, Signature) else [part] if part else [])
        items.extend(f"{key}:{_value(value)}" for key, value in fields.items())
        return cls(tuple(items))

    def __add__(self, other: Signature) -> Signature:
        return Signature(self.parts + other.parts)

    @property
    def text(self) -> str:
        """The parts without the version: for composing into another signature."""
        return "|".join(self.parts)

    def __str__(self) -> str:
        """The full signature: the parts, then ``persona_metrics:<version>``."""
        return f"{self.text}|persona_metrics:{__version__}"
