"""Paired significance tests and bootstrap intervals over scoring units (documents or items): pure numpy.

Two systems scored on the same units (the same documents for PerSEval / DEGRESS, the same items for persona
quality) give two aligned arrays ``a`` and ``b`` of per-unit scores; a system score is the mean of its array.
``docs/significance.md`` defines the tests, their p-value conventions and when to use which:

* :func:`paired_permutation_test`: approximate randomisation, i.e. sign flips of the paired differences
  (swapping ``a_i`` and ``b_i``), two-sided on the difference of means; exact (every one of the ``2**n`` sign
  patterns) when ``2**n <= n_resamples``;
* :func:`paired_bootstrap_test`: Koehn's paired bootstrap over units, with the 95 % percentile interval of the
  difference of means;
* :func:`bootstrap_interval`: the 95 % percentile interval of one mean under resampling of units (the document
  bootstrap of ``docs/perseval.md`` §8.1, and the item bootstrap of persona quality and persona style);
* the tests on two results of the library live beside the results:
  :func:`persona_metrics.personalization.comparison.compare_personalization` (per-document arrays) and
  :func:`persona_metrics.persona.comparison.compare_quality` (per-item arrays).

Every function validates its input (equal lengths, at least one unit, finite values, ``n_resamples >= 1``) and
raises ``ValueError`` / ``TypeError`` naming the argument (and the index of a non-finite value). Nothing here
reads or writes text: callers format the numbers (:func:`persona_metrics.formatting.comparison_text`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from persona_metrics.params import option
from persona_metrics.validation import describe, not_one_of

#: Resamples of the permutation test unless told (its p-value cannot go below 1/10001).
DEFAULT_PERMUTATION_RESAMPLES = 10_000
#: Resamples of the paired bootstrap test unless told.
DEFAULT_BOOTSTRAP_RESAMPLES = 1_000
#: Seed of the bootstrap intervals when none is given (any fixed value; recorded in the signatures).
DEFAULT_BOOTSTRAP_SEED = 12345
#: The largest seed accepted anywhere (seeds are ints from 0 to this): one 64-bit word, the most
#: ``torch.manual_seed`` takes; numpy's ``default_rng`` would take any size (``10**400`` too), but a seed is
#: recorded in signatures and passed on, and no consumer needs more than 64 bits.
MAX_SEED = 2**64 - 1
#: Relative tolerance of "at least as extreme as observed": rounding in a resample's sum is not a difference.
TIE_TOLERANCE = 1e-12
#: The percentiles of every 95 % interval (percentile interval).
PERCENTILES: tuple[float, float] = (2.5, 97.5)
#: The two paired tests, by the ``method`` name their results carry.
METHODS: tuple[str, ...] = ("permutation", "bootstrap")
#: Sign patterns drawn per block in the sampled permutation test (bounds memory, not the result).
_BLOCK_ELEMENTS = 1 << 22
#: The most resamples a bootstrap interval may ask for (``bootstrap=N`` of the results): a 95 % percentile
#: interval is stable to 3 decimals long before; more only costs time and memory (``N × units`` indices).
MAX_BOOTSTRAP = 1_000_000
#: The most resamples a paired test may draw: a p-value's resolution is 1 / (N + 1), and 10**8 patterns already
#: take minutes on a thousand units; a larger N is a typo, not a finer test.
MAX_TEST_RESAMPLES = 100_000_000


# --- validation ------------------------------------------------------------------------------------------
def check_units(name: str, values: Any) -> np.ndarray:
    """``values`` as a one-dimensional float array of at least one finite number.

    Args:
        name: the argument's name, for the messages.
        values: a sequence or array of real numbers.

    Returns:
        A float64 copy.

    Raises:
        TypeError: not a sequence of real numbers (bools and strings refused).
        ValueError: not one-dimensional, empty, or a non-finite value (its index named).
    """
    if isinstance(values, str | bytes) or not hasattr(values, "__len__"):
        raise TypeError(f"{name} must be a sequence of numbers, got {type(values).__name__}")
    array = np.asarray(values)
    if array.dtype.kind not in "iuf":
        raise TypeError(f"{name} must hold real numbers, got {array.dtype} values")
    if array.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional (one score per unit), got shape {array.shape}")
    if array.size == 0:
        raise ValueError(f"{name} has no unit: at least one score is needed")
    array = array.astype(np.float64)
    bad = np.flatnonzero(~np.isfinite(array))
    if bad.size:
        raise ValueError(f"{name}[{int(bad[0])}] is not finite ({array[bad[0]]!r}); every score must be finite")
    return array


def check_pair(a: Any, b: Any) -> tuple[np.ndarray, np.ndarray]:
    """``a`` and ``b`` checked with :func:`check_units` and of equal length (aligned units).

    Raises:
        TypeError / ValueError: see :func:`check_units`; or lengths that differ (both named).
    """
    x, y = check_units("a", a), check_units("b", b)
    if x.size != y.size:
        raise ValueError(f"a has {x.size} units but b has {y.size}; the paired tests need the same units in both")
    return x, y


def check_resamples(name: str, value: Any) -> int:
    """``value`` if it is an int from 1 to :data:`MAX_TEST_RESAMPLES`.

    Raises:
        TypeError: not an int (bools refused).
        ValueError: below 1 or above :data:`MAX_TEST_RESAMPLES` (``10**40`` drew blocks of patterns for ever).
    """
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        raise TypeError(f"{name} must be an int >= 1, got {describe(value)}")
    if not 1 <= value <= MAX_TEST_RESAMPLES:
        raise ValueError(
            f"{name} must be an int from 1 to {MAX_TEST_RESAMPLES:,} (MAX_TEST_RESAMPLES), got {describe(value)}"
        )
    return int(value)


def check_seed(seed: Any) -> int:
    """``seed`` if it is an int from 0 to :data:`MAX_SEED` (numpy's generators take no negative seed).

    Raises:
        TypeError: not an int (bools refused).
        ValueError: negative or above :data:`MAX_SEED` (``10**400`` is refused, never truncated).
    """
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer):
        raise TypeError(f"seed must be an int, got {describe(seed)}")
    if not 0 <= seed <= MAX_SEED:
        raise ValueError(f"seed must be an int from 0 to 2**64 - 1 (MAX_SEED), got {describe(seed)}")
    return int(seed)


def check_bootstrap(bootstrap: Any, seed: Any) -> tuple[int, int]:
    """The ``bootstrap=N, seed=S`` options of the results: 0 (off) or 2 to MAX_BOOTSTRAP resamples, a seed.

    Raises:
        ValueError: ``bootstrap`` not an int, negative, 1 or above :data:`MAX_BOOTSTRAP` (named); ``seed``
            negative or above :data:`MAX_SEED`.
        TypeError: ``seed`` not an int.
    """
    bad = isinstance(bootstrap, bool) or not isinstance(bootstrap, int | np.integer)
    if bad or not (bootstrap == 0 or 2 <= bootstrap <= MAX_BOOTSTRAP):
        raise ValueError(
            f"bootstrap must be 0 (off) or an int from 2 to {MAX_BOOTSTRAP:,} (resamples), got {describe(bootstrap)}"
        )
    return int(bootstrap), check_seed(seed)


def _bootstrap_option(name: str, value: Any) -> int:
    return check_bootstrap(value, DEFAULT_BOOTSTRAP_SEED)[0]


def _seed_option(name: str, value: Any) -> int:
    return check_seed(value)


def bootstrap_field(unit: str) -> Any:
    """A params ``bootstrap`` field (:mod:`persona_metrics.params`), checked by :func:`check_bootstrap`.

    0 (off) or 2 to :data:`MAX_BOOTSTRAP` resamples of ``unit`` ("document", "item") for 95 % intervals.
    """
    return option(0, f"{unit} resamples for 95 % intervals: 0 (off) or 2 to {MAX_BOOTSTRAP:,}", check=_bootstrap_option)


def seed_field(help_text: str, default: int | None = DEFAULT_BOOTSTRAP_SEED, optional: bool = False) -> Any:
    """A params ``seed`` field: an int from 0 to :data:`MAX_SEED` (:func:`check_seed`), None too with ``optional``."""
    return option(default, f"{help_text} (an int from 0 to 2**64 - 1)", optional=optional, check=_seed_option)


# --- results ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class PairedTest:
    """The outcome of a paired test of system A against system B over the same units.

    Attributes:
        mean_a: mean of A's per-unit scores (A's system score when the system score is that mean).
        mean_b: mean of B's per-unit scores.
        difference: mean of the paired differences ``a_i − b_i`` (``mean_a − mean_b`` up to rounding).
        p_value: two-sided p-value (permutation) or the share of resamples without the observed sign
            (bootstrap); see ``docs/significance.md`` for the exact conventions.
        ci_low: lower end of the 95 % percentile interval of the difference (bootstrap); ``None`` for the
            permutation test, which gives no interval.
        ci_high: upper end of that interval, ``None`` likewise.
        method: ``"permutation"`` or ``"bootstrap"``.
        n_units: number of paired units.
        n_resamples: resamples drawn, or the ``2**n_units`` sign patterns of an exact permutation test.
        seed: the random seed (unused by an exact test, kept for the record).
        exact: whether every sign pattern was enumerated (permutation test with ``2**n_units <= n_resamples``).
    """

    mean_a: float
    mean_b: float
    difference: float
    p_value: float
    ci_low: float | None
    ci_high: float | None
    method: str
    n_units: int
    n_resamples: int
    seed: int
    exact: bool = False

    def as_dict(self) -> dict[str, Any]:
        """Every field as plain Python values (``None`` for an interval the test does not give)."""
        return asdict(self)


# --- the tests -------------------------------------------------------------------------------------------
def _sign_patterns(n: int) -> np.ndarray:
    """All ``2**n`` vectors of ±1 (row ``k`` holds the bits of ``k``: 0 → +1, 1 → −1)."""
    bits = (np.arange(1 << n)[:, None] >> np.arange(n)[None, :]) & 1
    return 1.0 - 2.0 * bits


def _extreme_count(flips: np.ndarray, diff: np.ndarray, threshold: float) -> int:
    """How many rows of sign flips give ``|mean(s · diff)| >= threshold``."""
    means = flips @ diff / diff.size
    return int(np.count_nonzero(np.abs(means) >= threshold))


def paired_permutation_test(
    a: Sequence[float] | np.ndarray,
    b: Sequence[float] | np.ndarray,
    *,
    n_resamples: int = DEFAULT_PERMUTATION_RESAMPLES,
    seed: int = 0,
) -> PairedTest:
    """Paired approximate-randomisation test, two-sided, on the difference of means.

    Under the null hypothesis the two systems are exchangeable on every unit, so swapping ``a_i`` and ``b_i``
    (flipping the sign of ``d_i = a_i − b_i``) with probability 1/2 per unit gives the null distribution of
    ``mean(d)``. A sign pattern counts when ``|mean(s · d)| >= |mean(d)| − 1e-12 · mean(|d|)`` (the tolerance
    absorbs rounding, so a system against itself gets exactly p = 1).

    * ``2**n <= n_resamples``: every sign pattern is enumerated and ``p = count / 2**n`` (exact; the observed
      pattern is one of them);
    * otherwise ``n_resamples`` seeded patterns are drawn and ``p = (count + 1) / (n_resamples + 1)``.

    Args:
        a: per-unit scores of system A.
        b: per-unit scores of system B on the same units, in the same order.
        n_resamples: sign patterns to draw (>= 1); also the largest ``2**n`` enumerated exactly.
        seed: seed of the drawn patterns.

    Returns:
        A :class:`PairedTest` with ``method="permutation"`` and no interval.

    Raises:
        TypeError / ValueError: see :func:`check_pair`, :func:`check_resamples` and :func:`check_seed`.

    >>> paired_permutation_test([4, 2, 5, 1], [1, 1, 3, 2]).p_value  # 6 of the 16 sign patterns
    0.375
    """
    x, y = check_pair(a, b)
    n_resamples, seed = check_resamples("n_resamples", n_resamples), check_seed(seed)
    diff = x - y
    n = diff.size
    observed = float(diff.mean())
    threshold = abs(observed) - TIE_TOLERANCE * float(np.abs(diff).mean())
    exact = n < 63 and (1 << n) <= n_resamples
    if exact:
        draws = 1 << n
        p_value = _extreme_count(_sign_patterns(n), diff, threshold) / draws
    else:
        draws = n_resamples
        rng = np.random.default_rng(seed)
        block = max(1, _BLOCK_ELEMENTS // n)
        count = 0
        for start in range(0, draws, block):
            flips = np.where(rng.random((min(block, draws - start), n)) < 0.5, 1.0, -1.0)
            count += _extreme_count(flips, diff, threshold)
        p_value = (count + 1) / (draws + 1)
    return PairedTest(
        mean_a=float(x.mean()),
        mean_b=float(y.mean()),
        difference=observed,
        p_value=float(p_value),
        ci_low=None,
        ci_high=None,
        method="permutation",
        n_units=n,
        n_resamples=draws,
        seed=seed,
        exact=exact,
    )


def _resampled_means(values: np.ndarray, n_resamples: int, seed: int) -> np.ndarray:
    """Means of ``n_resamples`` resamples of ``values`` with replacement (each of the same size), seeded."""
    rng = np.random.default_rng(seed)
    return values[rng.integers(0, len(values), size=(n_resamples, len(values)))].mean(axis=1)


def _percentile_interval(means: np.ndarray) -> tuple[float, float]:
    """The 95 % percentile interval: the 2.5th and 97.5th percentiles of ``means``."""
    lo, hi = np.percentile(means, list(PERCENTILES))
    return float(lo), float(hi)


def paired_bootstrap_test(
    a: Sequence[float] | np.ndarray,
    b: Sequence[float] | np.ndarray,
    *,
    n_resamples: int = DEFAULT_BOOTSTRAP_RESAMPLES,
    seed: int = 0,
) -> PairedTest:
    """Koehn's paired bootstrap: resample units with replacement, recompute the difference of means.

    With ``Δ = mean(a − b)`` observed and ``Δ*`` the resamples' differences, the p-value is the share of
    resamples in which the difference does not have the observed sign: ``Δ* <= 0`` when ``Δ > 0``, ``Δ* >= 0``
    when ``Δ < 0``, and ``p = 1`` when ``Δ = 0``. The interval is the 2.5th and 97.5th percentile of ``Δ*``
    (the same resamples; equal to ``bootstrap_interval(a − b, n_resamples, seed)``).

    Args:
        a: per-unit scores of system A.
        b: per-unit scores of system B on the same units, in the same order.
        n_resamples: bootstrap resamples (>= 1).
        seed: seed of the resamples.

    Returns:
        A :class:`PairedTest` with ``method="bootstrap"`` and the 95 % interval of the difference.

    Raises:
        TypeError / ValueError: see :func:`check_pair`, :func:`check_resamples` and :func:`check_seed`.

    >>> paired_bootstrap_test([3, 4, 5], [1, 1, 1], n_resamples=200).p_value  # every difference is positive
    0.0
    """
    x, y = check_pair(a, b)
    n_resamples, seed = check_resamples("n_resamples", n_resamples), check_seed(seed)
    diff = x - y
    observed = float(diff.mean())
    means = _resampled_means(diff, n_resamples, seed)
    if observed > 0:
        p_value = float(np.count_nonzero(means <= 0.0)) / n_resamples
    elif observed < 0:
        p_value = float(np.count_nonzero(means >= 0.0)) / n_resamples
    else:
        p_value = 1.0
    lo, hi = _percentile_interval(means)
    return PairedTest(
        mean_a=float(x.mean()),
        mean_b=float(y.mean()),
        difference=observed,
        p_value=p_value,
        ci_low=lo,
        ci_high=hi,
        method="bootstrap",
        n_units=diff.size,
        n_resamples=n_resamples,
        seed=seed,
    )


def paired_test(
    a: Sequence[float] | np.ndarray,
    b: Sequence[float] | np.ndarray,
    *,
    method: str = "permutation",
    n_resamples: int | None = None,
    seed: int = 0,
) -> PairedTest:
    """:func:`paired_permutation_test` or :func:`paired_bootstrap_test` by name.

    Args:
        a: per-unit scores of system A.
        b: per-unit scores of system B on the same units.
        method: ``"permutation"`` (default) or ``"bootstrap"``.
        n_resamples: resamples; ``None`` = the method's default (10000 permutation, 1000 bootstrap).
        seed: seed of the resamples.

    Raises:
        ValueError: an unknown ``method`` (the known ones named), or bad input (see the tests).
    """
    if method == "permutation":
        draws = DEFAULT_PERMUTATION_RESAMPLES if n_resamples is None else n_resamples
        return paired_permutation_test(a, b, n_resamples=draws, seed=seed)
    if method == "bootstrap":
        draws = DEFAULT_BOOTSTRAP_RESAMPLES if n_resamples is None else n_resamples
        return paired_bootstrap_test(a, b, n_resamples=draws, seed=seed)
    raise ValueError(not_one_of("method", method, METHODS))


# --- intervals of one system -----------------------------------------------------------------------------
def bootstrap_interval(values: Sequence[float] | np.ndarray, n_resamples: int, seed: int) -> tuple[float, float]:
    """95 % percentile interval of the mean of ``values`` under resampling of units with replacement.

    ``n_resamples`` resamples of ``len(values)`` units each (seeded with ``seed``); the interval is the 2.5th and
    97.5th percentile of their means. This is the document bootstrap of ``docs/perseval.md`` §8.1.

    Args:
        values: one score per unit (document or item).
        n_resamples: resamples (>= 1).
        seed: the seed; equal seeds draw the same unit indices for equally long inputs.

    Returns:
        ``(low, high)``.

    Raises:
        TypeError / ValueError: see :func:`check_units`, :func:`check_resamples` and :func:`check_seed`.
    """
    array = check_units("values", values)
    means = _resampled_means(array, check_resamples("n_resamples", n_resamples), check_seed(seed))
    return _percentile_interval(means)


@dataclass(frozen=True)
class BootstrapDraw:
    """The resamples and seed of a result's bootstrap intervals, kept on the result so a merge draws them again.

    Attributes:
        resamples: item resamples (>= 2).
        seed: the seed.
    """

    resamples: int
    seed: int


def bootstrap_intervals(
    columns: Mapping[str, Sequence[float] | np.ndarray], n_resamples: int, seed: int
) -> dict[str, tuple[float, float]]:
    """:func:`bootstrap_interval` of each column, all on the same resamples (one seed, equal lengths).

    Args:
        columns: ``{name: per-unit scores}``, every column over the same units.
        n_resamples: resamples (>= 1).
        seed: the seed.

    Returns:
        ``{name: (low, high)}`` in the order of ``columns``.

    Raises:
        ValueError: columns of different lengths, or bad values (the column named).
    """
    lengths = {name: len(values) for name, values in columns.items()}
    if len(set(lengths.values())) > 1:
        raise ValueError(f"the columns must cover the same units; lengths {lengths}")
    out = {}
    for name, values in columns.items():
        try:
            out[name] = bootstrap_interval(values, n_resamples, seed)
        except ValueError as err:
            raise ValueError(f"{name}: {err}") from err
    return out


__all__ = [
    "DEFAULT_BOOTSTRAP_RESAMPLES",
    "DEFAULT_BOOTSTRAP_SEED",
    "DEFAULT_PERMUTATION_RESAMPLES",
    "METHODS",
    "PERCENTILES",
    "TIE_TOLERANCE",
    "BootstrapDraw",
    "PairedTest",
    "bootstrap_interval",
    "bootstrap_intervals",
    "check_bootstrap",
    "check_pair",
    "check_resamples",
    "check_seed",
    "check_units",
    "paired_bootstrap_test",
    "paired_permutation_test",
    "paired_test",
]
