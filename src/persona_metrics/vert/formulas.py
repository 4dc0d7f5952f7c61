"""VERT's arithmetic as pure functions (``docs/vert.md`` §1): the score of one pair and the corpus mean.

``VERT = ½ · (1 + sim − min(WMD, cap) / α)`` with α = 5 and cap = 5, the authors' final formula: sim is the
cosine of two sentence embeddings, WMD the word mover's distance of the two texts' content words. The
capped WMD divided by α is what the paper's prose calls the "normalised WMD".

>>> round(vert_score(0.661, 2.412), 3)  # the VertMetric README report (sim 0.661, wmd 2.412 → vert 0.589)
0.589
>>> vert_score(1.0, 0.0)
1.0
>>> vert_score(0.0, float("inf"))  # an infinite WMD is capped like any other: ½ · (1 + 0 − 5/5)
0.0
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from persona_metrics.validation import check_number, checked_mean

#: The authors' α (``--alpha`` of VertMetric, a hard-coded 1/5 in NeuralSum).
DEFAULT_ALPHA = 5.0
#: The authors' WMD cap (``dist if dist < 5.0 else 5.0``); it also turns an infinite WMD into 5.
DEFAULT_MAX_WMD = 5.0
#: The largest ``max_wmd / alpha``: the normalised WMD term ``min(WMD, max_wmd) / alpha`` (the authors': in [0, 1])
#: is weighed against a cosine in [−1, 1]; beyond a million it drowns the cosine entirely and, near float64's
#: limit, the mean VERT would overflow. VERT lies in [−max_wmd / (2·alpha), 1] >= −5e5.
MAX_WMD_RATIO = 1e6


def check_params(alpha: object, max_wmd: object) -> tuple[float, float]:
    """``(alpha, max_wmd)`` as floats if both are finite and > 0 and ``max_wmd / alpha <= MAX_WMD_RATIO``.

    Raises:
        TypeError: a value that is not a real number (``bool`` included), naming it.
        ValueError: a value that is not finite and > 0 (huge ints included), or a ratio above the bound (named).
    """
    a = float(check_number("alpha", alpha, 0.0, low_inclusive=False))
    cap = float(check_number("max_wmd", max_wmd, 0.0, low_inclusive=False))
    if not cap / a <= MAX_WMD_RATIO:
        raise ValueError(
            f"max_wmd / alpha must be at most {MAX_WMD_RATIO:g} (VERT >= -{MAX_WMD_RATIO / 2:g}), got "
            f"max_wmd={cap!r}, alpha={a!r}"
        )
    return a, cap


def capped_wmd(wmd: float | np.ndarray, max_wmd: float = DEFAULT_MAX_WMD) -> float | np.ndarray:
    """``min(WMD, max_wmd)``, elementwise; ``inf`` (a side without content words) becomes ``max_wmd``."""
    capped = np.minimum(np.asarray(wmd, dtype=np.float64), max_wmd)
    return float(capped) if capped.ndim == 0 else capped


def vert_score(
    sim: float | np.ndarray,
    wmd: float | np.ndarray,
    alpha: float = DEFAULT_ALPHA,
    max_wmd: float = DEFAULT_MAX_WMD,
) -> float | np.ndarray:
    """``½ · (1 + sim − min(wmd, max_wmd) / alpha)``, elementwise.

    Args:
        sim: cosine similarity of the two sentence embeddings (in [−1, 1]; not clamped here).
        wmd: word mover's distance (capped here, so a raw or an already capped value gives the same score).
        alpha: the divisor of the capped WMD (the authors' 5).
        max_wmd: the cap (the authors' 5).

    Returns:
        VERT, a float for scalar input, an array otherwise. For sim in [−1, 1] it lies in [−max_wmd / (2·alpha), 1]
        (with α = cap, [−0.5, 1]): 1 for an identical pair, ½ · (1 + sim − max_wmd / alpha) once the WMD reaches
        the cap.
    """
    distance = capped_wmd(np.asarray(wmd, dtype=np.float64), max_wmd)
    value = 0.5 * (1.0 + np.asarray(sim, dtype=np.float64) - distance / alpha)
    return float(value) if np.ndim(value) == 0 else value


def cosine_rows(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Row-wise cosine similarity of two ``(n, d)`` arrays, in float64, clipped to [−1, 1].

    A zero row (an empty text has no embedding) gives 0, not NaN. The clip only removes float rounding
    (an identical pair can come out at 1 + 2e−16); negative cosines are kept.
    """
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    norms = np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1)
    dots = np.einsum("ij,ij->i", a, b)
    out = np.divide(dots, norms, out=np.zeros_like(dots), where=norms > 0)
    return np.clip(out, -1.0, 1.0)


def aggregate(values: Sequence[float] | np.ndarray) -> float:
    """The corpus score: the arithmetic mean over pairs (of VERT, sim or the capped WMD).

    VERT is linear in sim and the capped WMD, so the mean VERT equals ``vert_score(mean sim, mean capped WMD)``.

    Raises:
        ValueError: no values, or a value that is not finite.
    """
    return checked_mean(values, "pairs")
