"""The shipped stem table of rougeL gives NLTK's tokens word for word, and is refused when it cannot be trusted.

The reference is ``nltk.stem.porter.PorterStemmer`` imported the ordinary way (NLTK_EXTENSIONS mode, rouge_score's
stemmer) with rouge_score's rules around it (words of at most 3 characters unstemmed, tokens outside
``^[a-z0-9]+$`` dropped), run here on every word:

* every ASCII alphanumeric word of the packaged GloVe 6B vocabulary and every one-word WordNet 3.0 lemma, through
  a fresh memo (:class:`~persona_metrics.distances.fast_tokens.Stems`, table lookups in batches) and one at a time;
* words the table cannot hold (longer than its width, unknown, 3 characters or fewer, digits);
* a damaged or foreign table: a warning naming the reason, no table, and the same tokens from NLTK;
* a table out of order (not checked when loaded): words missed, never a wrong token.
"""

from __future__ import annotations

import json
import re
import shutil
import zlib
from pathlib import Path

import pytest
from conftest import load_script

from persona_metrics.distances import fast_tokens
from persona_metrics.distances.fast_tokens import STEM_TABLE_FILE, STEM_TABLE_WIDTH, Stems, stem_table

MAKE_TABLE = load_script("make_stem_table")


@pytest.fixture(scope="module")
def nltk_token():
    """rouge_score's token of a word, computed by NLTK's own stemmer (the independent reference)."""
    from nltk.stem.porter import PorterStemmer

    stemmer = PorterStemmer()

    def token(word: str) -> str:
        stem = stemmer.stem(word) if len(word) > 3 else word
        return stem if re.match(r"^[a-z0-9]+$", stem) else ""

    return token


@pytest.fixture
def fresh_table(monkeypatch: pytest.MonkeyPatch):
    """``stem_table`` re-read from the directory the test sets (the process's cached table restored afterwards)."""
    fast_tokens.stem_table.cache_clear()
    yield lambda directory: monkeypatch.setattr(fast_tokens, "_STEM_TABLE_DIR", directory)
    fast_tokens.stem_table.cache_clear()


def test_every_glove_and_wordnet_word_gets_nltks_token(nltk_token) -> None:
    """All 400,000 GloVe words that are ASCII alphanumeric (all lengths) and WordNet's lemmas: table == NLTK."""
    from persona_metrics.vert.vectors import glove_6b_50d

    words = sorted({w for w in glove_6b_50d().index if w.isascii() and w.isalnum()} | MAKE_TABLE.wordnet_lemmas())
    assert len(words) > 330_000
    assert stem_table() is not None, "the shipped table is refused by the installed nltk: rebuild it"
    memo = Stems()
    raws = [w.encode("ascii") for w in words]
    memo.fill(raws)
    looked_up = sum(1 for raw in raws if raw in memo)  # before any miss goes to NLTK
    wrong = [(w, memo[raw], nltk_token(w)) for w, raw in zip(words, raws, strict=True) if memo[raw] != nltk_token(w)]
    assert not wrong, f"{len(wrong)} words differ from NLTK, e.g. {wrong[:5]}"
    assert looked_up > 0.99 * len(words)  # the table answered (the words it lacks are longer than its width)


def test_one_word_at_a_time_and_words_outside_the_table(nltk_token) -> None:
    """Single lookups, and words the table cannot answer: too long, unknown, short, digits, already memoised."""
    words = ["running", "generalizations", "x" * (STEM_TABLE_WIDTH + 5) + "ing", "qzxvbnmed", "the", "ran",
             "2024", "covid19s", "abilities", "dying", "skies", "news"]  # fmt: skip
    memo = Stems()
    memo.fill(w.encode() for w in words[:4])
    for word in words:
        assert memo[word.encode()] == nltk_token(word), word
    assert Stems()[b"skies"] == nltk_token("skies")


def copy_table(tmp_path: Path) -> Path:
    """A copy of the shipped table's directory."""
    directory = tmp_path / "stems"
    shutil.copytree(fast_tokens._STEM_TABLE_DIR, directory)
    return directory


def rewrite(directory: Path, data: bytes | None = None, **meta_changes: object) -> None:
    """Replace the table's bytes (CRC-32 updated to match) and/or fields of its description."""
    path = directory / STEM_TABLE_FILE
    meta = json.loads(path.with_suffix(".json").read_text())
    if data is not None:
        path.write_bytes(data)
        meta["table_crc32"] = zlib.crc32(data)
    meta.update(meta_changes)
    path.with_suffix(".json").write_text(json.dumps(meta))


def swap_first_two_words(data: bytes) -> bytes:
    """The table's bytes with its first two words exchanged (stems left in place): out of order."""
    w = STEM_TABLE_WIDTH
    return data[w : 2 * w] + data[:w] + data[2 * w :]


@pytest.mark.parametrize(
    ("damage", "reason"),
    [
        (lambda d: (d / STEM_TABLE_FILE).write_bytes(b"x" + (d / STEM_TABLE_FILE).read_bytes()[1:]), "damaged"),
        (lambda d: rewrite(d, porter_sha256="0" * 64, nltk="0.0"), "made by nltk 0.0's porter.py"),
        (lambda d: rewrite(d, (d / STEM_TABLE_FILE).read_bytes()[:-STEM_TABLE_WIDTH]), "cannot be read"),
        (lambda d: rewrite(d, width=STEM_TABLE_WIDTH + 1), "width"),
        (lambda d: (d / STEM_TABLE_FILE).with_suffix(".json").unlink(), "cannot be read"),
    ],
    ids=["damaged bytes", "other nltk", "truncated", "other width", "no description"],
)
def test_a_table_that_cannot_be_trusted_is_refused(tmp_path, fresh_table, nltk_token, damage, reason) -> None:
    """Each damage: a RuntimeWarning with the reason, no table, and every token still NLTK's."""
    directory = copy_table(tmp_path)
    damage(directory)
    fresh_table(directory)
    with pytest.warns(RuntimeWarning, match=re.escape(reason)):
        assert stem_table() is None
    memo = Stems()
    words = ["running", "generalizations", "aardvarks", "relational"]
    memo.fill(w.encode() for w in words)
    assert not memo  # nothing from a table: each word goes to NLTK when looked up
    assert [memo[w.encode()] for w in words] == [nltk_token(w) for w in words]


def test_the_shipped_words_are_in_strict_order() -> None:
    """The builder's order, which the lookup's speed relies on (the loader does not check it)."""
    words, _ = stem_table()
    assert bool((words[1:] > words[:-1]).all())


def test_a_table_out_of_order_misses_words_but_never_gives_a_wrong_token(tmp_path, fresh_table, nltk_token) -> None:
    """Its first two words exchanged (their stems left in place, CRC rewritten): exact-word lookups only."""
    directory = copy_table(tmp_path)
    rewrite(directory, swap_first_two_words((directory / STEM_TABLE_FILE).read_bytes()))
    fresh_table(directory)
    words, stems = stem_table()
    assert words[0] > words[1]  # the swap put each word beside the other's stem
    assert stems[0] != stems[1]
    memo = Stems()
    probe = [words[0].decode(), words[1].decode(), "running", "relational", "generalizations"]
    memo.fill(w.encode() for w in probe)
    assert [memo[w.encode()] for w in probe] == [nltk_token(w) for w in probe]
