"""InfoLM as a distance (:class:`InfoLM`): torchmetrics' AB-divergence between masked-LM distributions.

Each text's distribution is computed in fixed-shape passes (:mod:`~persona_metrics.distances.passes`); the option
checks it shares with BERTScore are in :mod:`~persona_metrics.distances.neural`.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from persona_metrics.distances.base import Distance
from persona_metrics.distances.neural import (
    TOKENIZE_CHUNK,
    _check_device,
    _check_model,
    _check_optional_int,
    _check_positive_int,
    _load_failure,
    default_device,
)
from persona_metrics.distances.passes import _batch_tokens, _fixed_shape_batches, _num_passes
from persona_metrics.extras import require
from persona_metrics.progress import progress_bar, quiet_foreign_progress
from persona_metrics.signature import Signature
from persona_metrics.validation import out_of_range

logger = logging.getLogger(__name__)

#: The authors' InfoLM model (Perseval-TMLR ``calculate_infoLM``).
AUTHORS_INFOLM_MODEL = "google/bert_uncased_L-2_H-128_A-2"
#: InfoLM truncation length the authors effectively used: they passed no ``max_length``, so torchmetrics took
#: ``model.config.max_length``, which transformers 4.x set to its generation default of 20 on every config.
AUTHORS_INFOLM_MAX_LENGTH = 20
#: Default tokens per InfoLM forward pass on CPU (64 texts at the authors' 20 wordpieces).
INFOLM_CPU_BATCH_TOKENS = 1280


class InfoLM(Distance):
    """σ = InfoLM (AB-divergence, α = β = 1, no idf) as torchmetrics defines it, pred = text1, target = text2.

    The value of ``torchmetrics.text.infolm.InfoLM(model, temperature=..., information_measure="ab_divergence",
    idf=False, alpha=1.0, beta=1.0, max_length=...)([text1], [text2])``, the authors' one-pair call. Each text
    is tokenized (truncated to ``max_length`` wordpieces, special tokens included), every position is masked in
    turn and the masked LM's ``softmax(logits / temperature)`` at that position is averaged over the non-special
    positions: one distribution over the vocabulary per text, computed once per unique text and cached. A pair is
    then scored by ``AB(p, t) = log Σt²/2 + log Σp²/2 − log Σ p·t`` (p = text1's, t = text2's distribution),
    with NaN → 0 as torchmetrics does. Unbounded (not in [0, 1]); identical texts give exactly 0. With α = β the
    AB-divergence is symmetric in (p, t), and the expression above is exactly symmetric in floating point, so
    the measure is declared symmetric (each unordered pair is scored once); the orientation still follows the
    authors (text1 = pred).

    Not delegated to torchmetrics' batched call on purpose: torchmetrics 1.9 sorts each side by length and then
    indexes the distributions with the sorting permutation instead of its inverse, so with several pairs per
    call its sentence-level scores are misaligned (correct only for one pair or involutive orders).

    Args:
        model: a masked language model with its head: a local directory or a Hub id; default the authors'
            ``google/bert_uncased_L-2_H-128_A-2``.
        temperature: the MLM softmax temperature (torchmetrics default 0.25).
        max_length: tokenizer truncation length, in wordpieces including [CLS]/[SEP]. It must be passed
            explicitly to torchmetrics under transformers 5; the default 20 is what the authors' call effectively
            used (torchmetrics fell back to ``config.max_length``, 20 on every config under transformers 4.x).
            Use e.g. 512 to read whole texts.
        batch_size: tokens per forward pass (rows × token length, as for ``bertscore``; fixed-shape passes make a
            text's distribution independent of the other texts); default 1280 on CPU, 16384 on a GPU.
        device: torch device; default ``"cuda"`` when available, else ``"cpu"`` (as the authors). A device this
            torch cannot use is a ``ValueError`` here.
    """

    name = "infolm"
    description = "torchmetrics InfoLM, AB-divergence α = β = 1, temperature 0.25"
    source = "same; model `google/bert_uncased_L-2_H-128_A-2` (needs the model locally or a reachable Hub)"
    extra = "neural"
    symmetric = True  # AB-divergence with α = β = 1
    bounded = False

    def __init__(
        self,
        model: str | Path = AUTHORS_INFOLM_MODEL,
        temperature: float = 0.25,
        max_length: int = AUTHORS_INFOLM_MAX_LENGTH,
        batch_size: int | None = None,
        device: str | None = None,
    ) -> None:
        super().__init__()
        require("the infolm distance", "torch", "transformers")
        self.model_name = _check_model(self.name, model) or AUTHORS_INFOLM_MODEL
        if isinstance(temperature, bool) or not isinstance(temperature, int | float) or not temperature > 0:
            raise ValueError(
                out_of_range("infolm option temperature", temperature, 0, low_inclusive=False, what="a number")
            )
        self.temperature = float(temperature)
        self.max_length = _check_positive_int(self.name, "max_length", max_length)
        self.batch_size = _check_optional_int(self.name, "batch_size", batch_size)
        self.device = _check_device(self.name, device)
        self._model: Any = None
        self._tokenizer: Any = None

    def _load(self) -> None:
        if self._model is not None:
            return
        from transformers import AutoModelForMaskedLM, AutoTokenizer

        try:
            with quiet_foreign_progress():
                tokenizer = AutoTokenizer.from_pretrained(self.model_name)
                model = AutoModelForMaskedLM.from_pretrained(self.model_name)
        except (OSError, ValueError) as err:
            raise _load_failure(self.name, self.model_name, err) from err
        if tokenizer.mask_token_id is None:
            raise ValueError(f"infolm option model={self.model_name!r}: the tokenizer has no mask token")
        self.device = self.device or default_device()
        self._tokenizer, self._model = tokenizer, model.to(self.device).eval()
        logger.info("infolm: loaded %s on %s", self.model_name, self.device)

    def _prepare(self, texts: Sequence[str]) -> list[np.ndarray]:
        """One float32 distribution over the vocabulary per text (torchmetrics' ``_get_batch_distribution``).

        Fixed-shape passes (:func:`_fixed_shape_batches`): equal-length texts, no padding, so a text's
        distribution does not depend on the other texts embedded with it.
        """
        self._load()
        tok = self._tokenizer
        encoded = [
            np.asarray(ids, dtype=np.int64)
            for start in range(0, len(texts), TOKENIZE_CHUNK)
            for ids in tok(list(texts[start : start + TOKENIZE_CHUNK]), truncation=True, max_length=self.max_length)[
                "input_ids"
            ]
        ]
        tokens = _batch_tokens(self.batch_size, str(self.device), INFOLM_CPU_BATCH_TOKENS)
        out: list[np.ndarray | None] = [None] * len(texts)
        batches = _fixed_shape_batches(encoded, tokens)
        total = _num_passes(encoded, tokens)
        for batch, ids in progress_bar(batches, desc=f"{self.name}: embedding", total=total, unit="batch"):
            dist = self._distributions(ids)
            for row, i in enumerate(batch):
                out[i] = dist[row]
        return out  # type: ignore[return-value]

    def _distributions(self, ids: np.ndarray) -> np.ndarray:
        """The mean masked-LM distribution of each row of an unpadded id batch, float32 ``(rows, vocab)``."""
        import torch

        tok = self._tokenizer
        special = [i for i in (tok.pad_token_id, tok.sep_token_id, tok.cls_token_id) if i is not None]
        tensor = torch.from_numpy(ids).to(self.device)
        attention = torch.ones_like(tensor)
        keep = ~torch.isin(tensor, torch.tensor(special, device=self.device))
        total = torch.zeros((tensor.shape[0], self._model.config.vocab_size), device=self.device)
        with torch.inference_mode():
            for pos in range(tensor.shape[1]):
                masked = tensor.clone()
                masked[:, pos] = tok.mask_token_id
                logits = self._model(masked, attention).logits[:, pos, :]
                total += torch.softmax(logits / self.temperature, dim=-1) * keep[:, pos : pos + 1]
            return (total / keep.sum(dim=1, keepdim=True)).float().cpu().numpy()

    def _score(self, reps_a: Sequence[np.ndarray], reps_b: Sequence[np.ndarray]) -> np.ndarray:
        out = np.empty(len(reps_a))
        with np.errstate(divide="ignore", invalid="ignore"):
            for i, (p, t) in enumerate(zip(reps_a, reps_b, strict=True)):
                if p is t:  # the same text: AB(p, p) = 0 exactly
                    out[i] = 0.0
                    continue
                p64, t64 = p.astype(np.float64), t.astype(np.float64)
                value = 0.5 * np.log(t64 @ t64) + 0.5 * np.log(p64 @ p64) - np.log(t64 @ p64)
                out[i] = np.nan_to_num(value)  # torchmetrics' convention (e.g. a text of special tokens only)
        return out

    def signature(self) -> str:
        """Name, model, measure, temperature, truncation and idf."""
        fields = Signature.of(
            "infolm", model=self.model_name, ab_divergence="1,1", T=float(self.temperature), max_length=self.max_length
        )
        return (fields + Signature.of("no-idf")).text
