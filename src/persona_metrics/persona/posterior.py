"""The persona posterior: how strongly a text reads as each persona *rather than the others* (pure math).

``method="posterior"`` of the style scorers (``docs/style.md`` §4.7). A multinomial logistic regression on the
10 stylometric features and the 7 register markers, standardised (:func:`persona_metrics.persona.stylometry.
style_vector`), fitted on the persona samples and, for the shipped personas, their register texts
(:func:`persona_metrics.persona.samples.register_texts`):

* features standardised by the pooled mean and population standard deviation of all samples (a feature that
  takes one value in every sample is left as it is: its weight stays 0, it carries no information);
* ``p(persona | text) = softmax_k(w_k · z + b_k)`` over every persona in use, so the scores of one text sum to 1;
* fitted by minimising the class-balanced cross-entropy (each persona's samples weigh the same in total, so a
  persona with more samples is not favoured: equal priors) plus ``½ · POSTERIOR_L2 · Σ_k ‖w_k‖²`` (intercepts
  not penalised), by damped Newton steps from zero: deterministic.

Unlike a distance to the target's centroid, the posterior only grows along a feature whose weight for the target
exceeds every other persona's: a text *past* the enthusiast centroid (more exclamations than its samples) reads
more as an enthusiast, not less.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from scipy.special import log_softmax, softmax

from persona_metrics.persona.stylometry import REGISTER_MARKERS, STYLE_FEATURES

#: How many leading values of a text's vector the posterior reads: the 10 features, then the register markers
#: (a longer vector, :func:`persona_metrics.persona.formulas.text_vector`'s, carries the ``fidelity`` method's
#: features after them).
POSTERIOR_INPUTS = len(STYLE_FEATURES) + len(REGISTER_MARKERS)

#: L2 penalty on the weights of the standardised features. Chosen by leave-one-out over the shipped samples: each
#: sample left out in turn, the model refitted without it (the register texts always in), the log-loss of its own
#: persona on its first 2, 3 and 4 sentences (summary-length excerpts) averaged; over {0.3, 1, 3, 10, 30} it is
#: 0.114, 0.105, 0.116, 0.156, 0.231: lowest at 1 (``docs/style.md`` §4.7). Smaller penalties give near-0/1
#: probabilities on short texts; larger ones blur the personas together.
POSTERIOR_L2 = 1.0
#: The fit stops when the largest gradient component is below this many times the number of samples (the
#: objective, a sum over the samples, is strictly convex: the optimum is unique); a fit that does not reach it is
#: an error, never used.
POSTERIOR_GTOL = 1e-10
#: Newton steps allowed (about 10 are needed).
POSTERIOR_MAX_ITER = 100
#: The model and its constants as the signature names them (``posterior:logistic+markers,l2=1,balanced,register``:
#: the 10 features and the register markers, the penalty, equal priors, the register texts in the fit) and the
#: centroid cache records them (a cache fitted with other constants is rebuilt).
POSTERIOR_SIGNATURE = f"logistic+markers,l2={POSTERIOR_L2:g},balanced,register"


@dataclass(frozen=True)
class PosteriorModel:
    """A fitted persona posterior (see the module docstring).

    Attributes:
        personas: the personas, in the order of the rows of ``weights`` and of ``intercepts``.
        mean: per feature, the pooled mean of the samples' normalised features.
        scale: per feature, the pooled population standard deviation (1 where it is 0).
        weights: ``(personas, features)`` weights of the standardised features.
        intercepts: one per persona.
    """

    personas: tuple[str, ...]
    mean: np.ndarray
    scale: np.ndarray
    weights: np.ndarray
    intercepts: np.ndarray

    def probabilities(self, vector: np.ndarray) -> dict[str, float]:
        """``{persona: p(persona | text)}`` of one normalised feature vector; the values sum to 1."""
        z = (np.asarray(vector, dtype=np.float64)[: len(self.mean)] - self.mean) / self.scale
        return dict(zip(self.personas, softmax(self.weights @ z + self.intercepts).tolist(), strict=True))


def _objective(theta: np.ndarray, z: np.ndarray, onehot: np.ndarray, weight: np.ndarray, l2: float) -> float:
    """Weighted cross-entropy + ``½ · l2 · ‖w‖²`` + ``½ · (Σ_k b_k)²`` of ``theta`` = ``[w | b]``.

    The last term pins the one direction the rest ignores (adding a constant to every intercept): the optimum
    is the one with intercepts summing to 0, the same probabilities.
    """
    log_p = log_softmax(z @ theta.T, axis=1)
    w, b = theta[:, :-1], theta[:, -1]
    return -float(np.sum(weight * np.sum(onehot * log_p, axis=1))) + 0.5 * (
        l2 * float(np.sum(w * w)) + float(np.sum(b)) ** 2
    )


def _gradient_and_hessian(
    theta: np.ndarray, z: np.ndarray, onehot: np.ndarray, weight: np.ndarray, l2: float
) -> tuple[np.ndarray, np.ndarray]:
    """Gradient (flattened like ``theta``) and Hessian of :func:`_objective`."""
    k, d1 = theta.shape
    p = softmax(z @ theta.T, axis=1)
    penalty = np.full(d1, l2)
    penalty[-1] = 0.0
    grad = (weight[:, None] * (p - onehot)).T @ z + theta * penalty
    grad[:, -1] += np.sum(theta[:, -1])
    curvature = weight[:, None, None] * (p[:, :, None] * np.eye(k) - p[:, :, None] * p[:, None, :])
    hess = np.einsum("nkl,na,nb->kalb", curvature, z, z).reshape(k * d1, k * d1)
    hess += np.diag(np.tile(penalty, k))
    intercepts = np.arange(k) * d1 + d1 - 1
    hess[np.ix_(intercepts, intercepts)] += 1.0
    return grad.ravel(), hess


def _newton(z: np.ndarray, onehot: np.ndarray, weight: np.ndarray, l2: float) -> np.ndarray:
    """The minimiser of :func:`_objective`, by damped Newton steps from zero (strictly convex: one minimum).

    Raises:
        RuntimeError: no convergence within :data:`POSTERIOR_MAX_ITER` steps (never seen).
    """
    theta = np.zeros((onehot.shape[1], z.shape[1]))
    tolerance = POSTERIOR_GTOL * len(z)
    for _ in range(POSTERIOR_MAX_ITER):
        grad, hess = _gradient_and_hessian(theta, z, onehot, weight, l2)
        if np.max(np.abs(grad)) <= tolerance:
            return theta
        step = np.linalg.solve(hess, grad).reshape(theta.shape)
        value, t = _objective(theta, z, onehot, weight, l2), 1.0
        # halve the step while it raises the objective beyond its rounding (a Newton step is a descent direction)
        while _objective(theta - t * step, z, onehot, weight, l2) > value + 1e-13 * abs(value) and t > 1e-6:
            t /= 2.0
        theta = theta - t * step
    raise RuntimeError("the persona posterior fit did not converge: please report it")


def fit_posterior(vectors: Mapping[str, Sequence[np.ndarray]], l2: float = POSTERIOR_L2) -> PosteriorModel:
    """The posterior model of ``{persona: [normalised feature vectors]}`` (two personas or more).

    ``l2`` is the penalty on the weights (:data:`POSTERIOR_L2`; other values are for choosing it, as
    ``docs/style.md`` §4.7 describes).

    Raises:
        ValueError: fewer than two personas (naming the method), or a persona without a vector.
        RuntimeError: the fit did not converge (never seen: the objective is strictly convex).
    """
    personas = tuple(vectors)
    if len(personas) < 2:
        raise ValueError(
            f"method 'posterior' needs at least 2 personas (the probability of the target among them); "
            f"got {len(personas)}: {list(personas)}"
        )
    empty = [name for name in personas if len(vectors[name]) == 0]
    if empty:
        raise ValueError(f"method 'posterior': personas {empty} have no sample vectors")
    x = np.asarray([v[:POSTERIOR_INPUTS] for name in personas for v in vectors[name]], dtype=np.float64)
    labels = np.repeat(np.arange(len(personas)), [len(vectors[name]) for name in personas])
    mean, spread = x.mean(axis=0), x.std(axis=0)
    scale = np.where(spread > 0, spread, 1.0)
    weight = (len(labels) / (len(personas) * np.bincount(labels)))[labels]
    z = np.hstack([(x - mean) / scale, np.ones((len(x), 1))])
    theta = _newton(z, np.eye(len(personas))[labels], weight, l2)
    return PosteriorModel(personas, mean, scale, theta[:, :-1].copy(), theta[:, -1].copy())


__all__ = ["POSTERIOR_INPUTS", "POSTERIOR_L2", "POSTERIOR_SIGNATURE", "PosteriorModel", "fit_posterior"]
