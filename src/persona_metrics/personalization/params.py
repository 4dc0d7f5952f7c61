"""The options of DEGRESS / P-Acc / PerSEval as validated objects: the distance σ and the hyper-parameters.

Every entry point (the library functions, the ``degress`` and ``perseval`` evaluate modules, the CLI, the hooks
and the Spaces) builds a :class:`DistanceChoice` and a :class:`PersevalParams`, so a bad value fails the same way
everywhere, before any distance is computed. Ranges (``docs/perseval.md`` §6 and the hyper-parameter table):

* ``alpha`` (EDP offset α, eq. 6), ``beta`` (EDP slope β, eq. 6), ``gamma`` (ADP / ACP offset γ, eqs. 4–5): in
  (0, 300] (the paper recommends α ≥ 3, β ≥ 1 and γ ≥ 4 and reports α = 3, β = 1.7, γ = 4). They are exponents
  of ten in the paper's sigmoid ``1 / (1 + 10^A · exp(−10^B · x))``: above ~308, ``10^A`` is not a float64 number
  (the authors' code overflows) and the sigmoid is undefined (``inf · 0``); 300 keeps ``10^β · DGP`` (DGP ≤ 2)
  finite, so every value in range gives finite scores;
* ``p_acc_alpha`` in (0, 1] and ``p_acc_beta`` in [0, 1] (eq. 3);
* ``bootstrap``: 0 (off) or 2 to :data:`~persona_metrics.significance.MAX_BOOTSTRAP` document resamples;
  ``seed``: an int from 0 to 2**64 - 1 (``MAX_SEED``).

Numbers may be Python or numpy ints and floats; bools, strings, NaN, infinities and huge ints (``10**400``) are
refused with the parameter named (``persona_metrics.validation.check_number``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from persona_metrics.distances import DEFAULT_DISTANCE, Distance, get_distance
from persona_metrics.params import Params, option
from persona_metrics.personalization.formulas import (
    DEFAULT_ALPHA,
    DEFAULT_BETA,
    DEFAULT_GAMMA,
    DEFAULT_P_ACC_ALPHA,
    DEFAULT_P_ACC_BETA,
)
from persona_metrics.signature import Signature
from persona_metrics.significance import bootstrap_field, seed_field
from persona_metrics.validation import check_mapping, check_number, out_of_range

#: The largest α, β, γ: exponents of ten whose power, times DGP ≤ 2, stays a finite float64 (module docstring).
MAX_EXPONENT = 300.0
#: ``name: (low, high, low_inclusive, high_inclusive)`` for the real-valued parameters (see the module docstring).
RANGES: dict[str, tuple[float, float, bool, bool]] = {
    "alpha": (0.0, MAX_EXPONENT, False, True),
    "beta": (0.0, MAX_EXPONENT, False, True),
    "gamma": (0.0, MAX_EXPONENT, False, True),
    "p_acc_alpha": (0.0, 1.0, False, True),
    "p_acc_beta": (0.0, 1.0, True, True),
}


def check_real(name: str, value: object) -> float:
    """``value`` as a float if it is a finite real number inside ``RANGES[name]``.

    Raises:
        TypeError: not a real number (bools and strings are refused).
        ValueError: NaN, infinite, a huge int or outside the range (the range is named).
    """
    low, high, low_in, high_in = RANGES[name]
    number = float(check_number(name, value))  # a finite real number (named TypeError / ValueError)
    inside = (number >= low if low_in else number > low) and (number <= high if high_in else number < high)
    if not inside:
        raise ValueError(out_of_range(name, value, low, high, low_in, high_in))
    return number


def _exponent(default: float, text: str) -> float:
    return option(default, text, interval=RANGES["alpha"], check=check_real, display=(0.1, 10.0, 0.1))


@dataclass(frozen=True)
class PersevalParams(Params):
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

    alpha: float = _exponent(DEFAULT_ALPHA, "EDP sigmoid offset α (eq. 6), an exponent of ten")
    beta: float = _exponent(DEFAULT_BETA, "EDP sigmoid slope β (eq. 6), an exponent of ten")
    gamma: float = _exponent(DEFAULT_GAMMA, "ADP / ACP sigmoid offset γ (eqs. 4-5), an exponent of ten")
    p_acc_alpha: float = option(
        DEFAULT_P_ACC_ALPHA,
        "P-Acc penalty weight α: Score_Acc − α · logistic(β · EGISES) (eq. 3)",
        interval=RANGES["p_acc_alpha"],
        check=check_real,
        display=(0.05, 1.0, 0.05),
    )
    p_acc_beta: float = option(
        DEFAULT_P_ACC_BETA,
        "P-Acc logistic slope β on EGISES (eq. 3)",
        interval=RANGES["p_acc_beta"],
        check=check_real,
        display=(0.0, 1.0, 0.05),
    )
    bootstrap: int = bootstrap_field("document")
    seed: int = seed_field("seed of the bootstrap and of the paired tests")

    def signature(self) -> Signature:
        """``alpha|beta|gamma|p_acc`` (and ``bootstrap,seed`` when on), in the order of the result signature."""
        sig = Signature.of(
            alpha=self.alpha, beta=self.beta, gamma=self.gamma, p_acc=f"{self.p_acc_alpha:g},{self.p_acc_beta:g}"
        )
        return sig + Signature.of(bootstrap=f"{self.bootstrap},seed:{self.seed}") if self.bootstrap else sig


def resolve_distance(distance: str | Distance, distance_options: Mapping[str, Any] | None = None) -> Distance:
    """A :class:`~persona_metrics.distances.Distance` from a registry name (with options) or an instance.

    Built, not run: models load on first use.

    Raises:
        TypeError: ``distance`` neither a name nor an instance, or ``distance_options`` not a mapping.
        ValueError: an unknown name or distance option, or options given with an instance.
    """
    if isinstance(distance, Distance):
        if distance_options:
            raise ValueError("distance_options can only be used with a distance name, not a Distance instance")
        return distance
    if not isinstance(distance, str):
        raise TypeError(f"distance must be a name (str) or a Distance instance, got {type(distance).__name__}")
    options = {} if distance_options is None else check_mapping("distance_options", distance_options)
    return get_distance(distance, **options)


@dataclass(frozen=True)
class DistanceChoice(Params):
    """The distance σ of DEGRESS / PerSEval and its options, checked together on construction.

    The distance is built (not run: models load on first use), so an unknown name or distance option fails here,
    naming it.

    >>> DistanceChoice("jsd").resolve().name
    'jsd'
    >>> DistanceChoice(get_distance("jsd"), {"stem": True})
    Traceback (most recent call last):
    ...
    ValueError: distance_options can only be used with a distance name, not a Distance instance
    """

    distance: str | Distance = option(
        DEFAULT_DISTANCE, "σ between texts: a name of persona_metrics.distances.DISTANCES or a Distance instance"
    )
    distance_options: dict[str, Any] | None = option(
        None, 'options of a named distance, e.g. {"max_order": 4} for bleu', optional=True, check=check_mapping
    )

    def __post_init__(self) -> None:
        super().__post_init__()
        self.resolve()

    def resolve(self) -> Distance:
        """The :class:`~persona_metrics.distances.Distance` (one shared instance per configuration)."""
        return resolve_distance(self.distance, self.distance_options)
