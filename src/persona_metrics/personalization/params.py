"""The hyper-parameters of DEGRESS / P-Acc / PerSEval as one validated object.

Every entry point (the library functions, the ``degress`` and ``perseval`` evaluate modules, the CLI, the hooks
and the Spaces) builds a :class:`PersevalParams`, so a bad value fails the same way everywhere, before any
distance is computed. Ranges (``docs/perseval.md`` §6 and the hyper-parameter table):

* ``alpha`` (EDP offset α, eq. 6), ``beta`` (EDP slope β, eq. 6), ``gamma`` (ADP / ACP offset γ, eqs. 4–5): finite
  and > 0 (the paper recommends α ≥ 3, β ≥ 1 and γ ≥ 4 and reports α = 3, β = 1.7, γ = 4);
* ``p_acc_alpha`` in (0, 1] and ``p_acc_beta`` in [0, 1] (eq. 3);
* ``bootstrap``: 0 (off) or at least 2 document resamples; ``seed``: an int.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from persona_metrics.personalization.formulas import (
    DEFAULT_ALPHA,
    DEFAULT_BETA,
    DEFAULT_BOOTSTRAP_SEED,
    DEFAULT_GAMMA,
    DEFAULT_P_ACC_ALPHA,
    DEFAULT_P_ACC_BETA,
)
from persona_metrics.signature import Signature

#: ``name: (low, high, low_inclusive, high_inclusive)`` for the real-valued parameters (see the module docstring).
RANGES: dict[str, tuple[float, float, bool, bool]] = {
    "alpha": (0.0, math.inf, False, False),
    "beta": (0.0, math.inf, False, False),
    "gamma": (0.0, math.inf, False, False),
    "p_acc_alpha": (0.0, 1.0, False, True),
    "p_acc_beta": (0.0, 1.0, True, True),
}


def _interval(low: float, high: float, low_in: bool, high_in: bool) -> str:
    return f"{'[' if low_in else '('}{low:g}, {high:g}{']' if high_in else ')'}"


def check_real(name: str, value: object) -> float:
    """``value`` as a float if it is a finite real number inside ``RANGES[name]``.

    Raises:
        TypeError: not a real number (bools are refused).
        ValueError: outside the range (the range is named).
    """
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise TypeError(f"{name} must be a finite number, got {value!r}")
    low, high, low_in, high_in = RANGES[name]
    inside = (value >= low if low_in else value > low) and (value <= high if high_in else value < high)
    if not inside:
        raise ValueError(f"{name} must be in {_interval(low, high, low_in, high_in)}, got {value!r}")
    return float(value)


@dataclass(frozen=True)
class PersevalParams:
    """Validated hyper-parameters (defaults: the paper's reported settings; see the module docstring).

    Raises:
        TypeError / ValueError: on construction, for a value of the wrong type or outside its range.

    >>> PersevalParams(beta=1.0).beta
    1.0
    >>> PersevalParams(p_acc_alpha=2)
    Traceback (most recent call last):
    ...
    ValueError: p_acc_alpha must be in (0, 1], got 2
    """

    alpha: float = DEFAULT_ALPHA
    beta: float = DEFAULT_BETA
    gamma: float = DEFAULT_GAMMA
    p_acc_alpha: float = DEFAULT_P_ACC_ALPHA
    p_acc_beta: float = DEFAULT_P_ACC_BETA
    bootstrap: int = 0
    seed: int = DEFAULT_BOOTSTRAP_SEED

    def __post_init__(self) -> None:
        for name in RANGES:
            object.__setattr__(self, name, check_real(name, getattr(self, name)))
        bootstrap = self.bootstrap
        if isinstance(bootstrap, bool) or not isinstance(bootstrap, int) or bootstrap < 0 or bootstrap == 1:
            raise ValueError(f"bootstrap must be 0 (off) or an int >= 2 (resamples), got {bootstrap!r}")
        if isinstance(self.seed, bool) or not isinstance(self.seed, int):
            raise TypeError(f"seed must be an int, got {self.seed!r}")

    def signature(self) -> Signature:
        """``alpha|beta|gamma|p_acc`` (and ``bootstrap,seed`` when on), in the order of the result signature."""
        sig = Signature.of(
            alpha=self.alpha, beta=self.beta, gamma=self.gamma, p_acc=f"{self.p_acc_alpha:g},{self.p_acc_beta:g}"
        )
        return sig + Signature.of(bootstrap=f"{self.bootstrap},seed:{self.seed}") if self.bootstrap else sig
