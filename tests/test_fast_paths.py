"""The fast paths of rougeL, jsd and the PerSEval scorer are exact: each against the reference library called directly.

* tokens: ``fast_tokens`` against ``rouge_score``'s own tokenizer and the library's ``word_tokens``, on the shipped
  data and on a generated Unicode / edge-case corpus (accents, ligatures, fullwidth digits, emoji, combining marks,
  RTL scripts, zero-width characters, numbers with separators, very long tokens, texts empty after normalisation,
  tokens of 3 and 4 characters around the stemmer's threshold), plus random Unicode text;
* the Porter stemmer loaded without nltk against ``nltk.stem.porter.PorterStemmer``;
* σ: rougeL bit for bit against ``rouge_score.rouge_scorer.RougeScorer`` (one call per pair), jsd against the
  former per-pair loop (kept verbatim here) and scipy;
* per-summary PerSEval / DEGRESS bit for bit (rougeL; jsd within 1e-12) against a naive reference: one
  ``rouge_score`` call per pair and the per-document formulas as they were before batching (kept verbatim in
  ``scripts/bench_perseval.py``, which this file loads);
* the batched formulas against the same formulas run one document at a time (same floats);
* lists and ``datasets`` Columns give the same values; rougeL / jsd import neither nltk nor torch; load_pens stays
  under 0.6 GB at full scale.
"""

from __future__ import annotations

import json
import math
import os
import random
import subprocess
import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest
from conftest import load_script
from hypothesis import given, settings
from hypothesis import strategies as st

from persona_metrics.datasets.pens import baseline_predictions, load_pens
from persona_metrics.datasets.personalization import leaderboard_systems, read_personalization_jsonl
from persona_metrics.distances import Distance, JensenShannon, RougeL, word_tokens
from persona_metrics.distances.base import TextPairs
from persona_metrics.distances.fast_tokens import porter_class, rouge_raw_tokens, rouge_tokens, word_token_bytes
from persona_metrics.personalization import (
    PersonalizationScorer,
    degress_scores,
    document_means,
    edp_scores,
)

ROOT = Path(__file__).resolve().parents[1]


#: The bench's naive reference: σ per pair, DEGRESS and EDP one document at a time, as before batching.
BENCH = load_script("bench_perseval")


# --- corpora ----------------------------------------------------------------------------------------------------
def shipped_texts() -> list[str]:
    """Every text of the shipped samples: PENS news (headline, body) and titles, personalization documents/summaries."""
    texts = []
    for line in (ROOT / "data/pens_sample/news.tsv").read_text(encoding="utf-8").splitlines()[1:]:
        texts += line.split("\t")[3:5]
    for line in (ROOT / "data/pens_sample/personalized_test.tsv").read_text(encoding="utf-8").splitlines()[1:]:
        texts += line.split("\t")[3].split(";;")
    for line in (ROOT / "data/personalization_sample/sample.jsonl").read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        texts += [row["document"], row["reference"], *row.get("predictions", {}).values()]
    return texts


#: Hand-picked fragments, each exercising one corner of the two tokenizers.
FRAGMENTS = [
    "Café naïve résumé façade",  # accents (non-ASCII letters: separators for rouge, letters for jsd)
    "ﬁnancial ﬂow ﬀ ﬃx",  # ligatures
    "ＡＢＣ　１２３ ４５６ Ｒｏｖｅｒｓ",  # fullwidth letters, digits and space
    "emoji 😀🚀 rocket🚀launch 👍🏽 family👨‍👩‍👧",  # emoji, skin tone, ZWJ sequence
    "e\u0301cole cafe\u0301 n\u0303o a\u0308\u0301b",  # combining marks
    "مرحبا بالعالم ١٢٣ سلام",  # Arabic, Arabic-Indic digits (RTL)
    "שלום עולם 2024 שָׁלוֹם",  # Hebrew with points (RTL)
    "zero\u200bwidth\u200cjoin\u200dmark\ufeffbom \u2060word",  # zero-width characters
    "1,000,000 3.14159 10-20 2024/01/02 $5.99 50% 1e-5 0x1F",  # numbers with separators
    "İstanbul KELVIN \u212a \u212b Σίσυφος ΣΑΣ",  # characters whose lowercase is (partly) ASCII, final sigma
    "straße STRASSE ß ẞ ǅungla ǈ",  # special casing
    "ⅰⅱⅲ Ⅻ ²³ ½ ¼ ⑴ 𝟙𝟚𝟛 ٣",  # numeric characters that are alnum to str.isalnum
    "under_score snake_case_name __dunder__ a_b",  # underscore (a separator for both)
    "tab\tnew\nline\r\nform\x0cfeed\x0bvt \x1c\x1d\x1e\x1f \x85 \u2028\u2029",  # every kind of whitespace
    "\u00a0nbsp\u2003em\u3000ideographic",  # non-ASCII spaces
    "the cat ran the dog runs runner running ran",  # 3-letter tokens are not stemmed, 4+ are
    "sky skies dying lying tying news innings outings cannings proceed exceed succeed howe",  # NLTK's irregular forms
    "generously relational conditional rational valenci hesitanci digitizer conformabli radicalli",  # Porter rules
    "caresses ponies ties caress cats feed agreed plastered bled motoring sing conflated troubled sized hopping",
    "abcd abc ab a 1234 123 12 1 a1b2 4ever b4 x86 mp3 3d",  # length 3 vs 4, digits inside tokens
    "a" * 300 + " " + "ab" * 150 + "ing",  # very long tokens
    "'quoted' \"double\" «guillemets» „low“ ‘single’ (paren) [bracket] {brace} <angle>",  # punctuation
    "e-mail co-operate re-enter well-being state-of-the-art U.S.A. e.g. i.e.",  # hyphens and dots
    "don't won't it's they're O'Neil rock'n'roll",  # apostrophes
    "日本語のテキスト 中文文本 한국어 텍스트 ไทย",  # CJK, Hangul, Thai
    "ΑΒΓΔ αβγδ Привет мир ПРИВЕТ",  # Greek, Cyrillic
    "lone \ud800 surrogate \udfff here",  # lone surrogates (valid str, not encodable)
    "MiXeD CaSe WORDS Words words",  # case
]
#: Texts with no token at all, or whitespace only.
EMPTY_AFTER_NORMALISATION = ["", " ", "\n\t", "!!!", "...---...", "\u200b\u200c", "😀🚀", "_ _ __", "— – ‒", "\ud800"]


def edge_corpus(size: int = 600, seed: int = 7) -> list[str]:
    """The fragments, the texts empty after normalisation, and random mixtures of fragments and words."""
    rng = random.Random(seed)
    words = [*" ".join(FRAGMENTS).split(), "market", "markets", "rates", "rate", "the", "a", "profit", "x"]
    separators = [" ", "  ", "\t", ", ", ". ", "-", "_", "/", "\u200b", "\u3000", "😀", "é", ""]
    texts = FRAGMENTS + EMPTY_AFTER_NORMALISATION
    while len(texts) < size:
        parts = [rng.choice(words) for _ in range(rng.randint(1, 25))]
        texts.append("".join(p + rng.choice(separators) for p in parts))
    return texts


@pytest.fixture(scope="module")
def corpus() -> list[str]:
    return shipped_texts() + edge_corpus()


# --- tokens -----------------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def rouge_tokenizer():
    from rouge_score import tokenizers

    return tokenizers.DefaultTokenizer(use_stemmer=True)


def test_rouge_tokens_equal_rouge_score(corpus: list[str], rouge_tokenizer) -> None:
    for text in corpus:
        assert rouge_tokens(text) == rouge_tokenizer.tokenize(text), repr(text)


def test_raw_tokens_equal_rouge_score_before_stemming(corpus: list[str]) -> None:
    from rouge_score import tokenize

    for text in corpus:
        assert [t.decode("ascii") for t in rouge_raw_tokens(text)] == tokenize.tokenize(text, None), repr(text)


def test_word_token_bytes_equal_word_tokens(corpus: list[str]) -> None:
    for text in corpus:
        assert word_token_bytes(text) == [w.encode("utf-8", "surrogatepass") for w in word_tokens(text)], repr(text)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=60))
def test_tokenizers_on_random_unicode(rouge_tokenizer, text: str) -> None:
    assert rouge_tokens(text) == rouge_tokenizer.tokenize(text)
    assert word_token_bytes(text) == [w.encode("utf-8", "surrogatepass") for w in word_tokens(text)]


def porter_vocabulary() -> list[str]:
    """Words for the stemmer: the corpus' raw tokens, stems × suffixes (every Porter rule), random letter strings."""
    words = {t.decode() for text in shipped_texts() + edge_corpus() for t in rouge_raw_tokens(text)}
    stems = "relat condit ration valen hesit digit conform radic differ analog vietnam predic hop fil fail sing".split()
    suffixes = (
        "ational tional enci anci izer bli alli entli eli ousli ization ation ator alism iveness fulness ousness "
        "aliti iviti biliti logi icate ative alize iciti ical ful ness al ance ence er ic able ible ant ement ment "
        "ent ion ou ism ate iti ous ive ize s es ies ss ed ing ly y e ee eed eing"
    ).split()
    words |= {s + x for s in stems for x in suffixes}
    rng = random.Random(3)
    letters = "abcdefghijklmnopqrstuvwxyz" + "aeiouy" * 3
    words |= {"".join(rng.choice(letters) for _ in range(rng.randint(1, 14))) for _ in range(6000)}
    return sorted(words)


def test_porter_without_nltk_stems_like_nltk() -> None:
    from nltk.stem.porter import PorterStemmer

    cls = porter_class()
    ours, theirs = cls(), PorterStemmer()
    if cls is not PorterStemmer:  # loaded from nltk's file without importing nltk (the normal case)
        assert cls.__module__.endswith("_nltk_porter")
    words = porter_vocabulary()
    assert len(words) > 6000
    assert [ours.stem(w) for w in words] == [theirs.stem(w) for w in words]


def test_rougel_and_jsd_import_neither_nltk_nor_torch() -> None:
    code = (
        "import sys, persona_metrics\n"
        "from persona_metrics.personalization import score_personalization\n"
        "for d in ('rougeL', 'jsd'):\n"
        "    score_personalization(['Stocks rising fast', 'Rates cut'], ['Stocks rose', 'Rate cuts'],"
        " ['Markets rallied as rates were cut'] * 2, distance=d)\n"
        "print(json.dumps([m in sys.modules for m in ('nltk', 'torch', 'transformers', 'rouge_score')]))\n"
    )
    out = subprocess.run([sys.executable, "-c", "import json\n" + code], capture_output=True, text=True, check=True)
    assert json.loads(out.stdout.strip().splitlines()[-1]) == [False, False, False, False]


# --- σ ------------------------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def rouge_scorer():
    from rouge_score import rouge_scorer

    return rouge_scorer.RougeScorer(["rougeL"], use_stemmer=True)


def corpus_pairs(texts: Sequence[str], count: int, seed: int = 11) -> list[tuple[str, str]]:
    rng = random.Random(seed)
    return [(rng.choice(texts), rng.choice(texts)) for _ in range(count)] + [(t, t) for t in texts[:50]]


def test_rougel_bit_for_bit_against_rouge_score(corpus: list[str], rouge_scorer) -> None:
    pairs = corpus_pairs(corpus, 4000)
    expected = [1.0 - rouge_scorer.score(a, b)["rougeL"].fmeasure if a.strip() and b.strip() else 1.0 for a, b in pairs]
    assert RougeL().pairwise(pairs).tolist() == expected


def test_rougel_text_as_list_of_ids_when_stems_outnumber_characters(
    monkeypatch: pytest.MonkeyPatch, corpus: list[str], rouge_scorer
) -> None:
    """Past the last code point a text is a list of stem ids; rapidfuzz compares it with strings by number."""
    from persona_metrics.distances import lexical

    monkeypatch.setattr(lexical._TokenChars, "last_char", 40)
    monkeypatch.setattr(lexical, "_CHARS", lexical._TokenChars())  # a fresh process map: ids from 0
    dist = RougeL()
    pairs = corpus_pairs(corpus, 1500, seed=5)
    values = dist.pairwise(pairs)
    assert any(isinstance(rep, list) for rep in dist._cache.values())
    assert any(isinstance(rep, str) and rep for rep in dist._cache.values())
    expected = [1.0 - rouge_scorer.score(a, b)["rougeL"].fmeasure if a.strip() and b.strip() else 1.0 for a, b in pairs]
    assert values.tolist() == expected


def test_rougel_objects_in_threads_share_the_process_map(monkeypatch, corpus: list[str], rouge_scorer) -> None:
    """Four threads, each its own RougeL, fill the one process map at once: every σ is still rouge_score's."""
    from concurrent.futures import ThreadPoolExecutor

    from persona_metrics.distances import lexical

    monkeypatch.setattr(lexical, "_CHARS", lexical._TokenChars())
    pairs = corpus_pairs(corpus, 2000, seed=11)
    chunks = [pairs[i::4] for i in range(4)]
    with ThreadPoolExecutor(4) as pool:
        values = list(pool.map(lambda chunk: RougeL().pairwise(chunk).tolist(), chunks))
    for chunk, got in zip(chunks, values, strict=True):
        expected = [1.0 - rouge_scorer.score(a, b)["rougeL"].fmeasure if a.strip() and b.strip() else 1.0
                    for a, b in chunk]  # fmt: skip
        assert got == expected


def loop_jsd(a: str, b: str) -> float:
    """σ as the library computed it before the sparse code (verbatim per-pair loop over Counter dicts)."""
    reps = []
    for text in (a, b):
        counts = Counter(word_tokens(text))
        total = sum(counts.values())
        reps.append({w: c / total for w, c in counts.items()})
    p, q = reps
    if not p or not q:
        return 1.0
    if a == b:
        return 0.0
    small, large = (p, q) if len(p) <= len(q) else (q, p)
    shared_small = shared_large = terms = 0.0
    for word, x in small.items():
        y = large.get(word)
        if y is not None:
            shared_small += x
            shared_large += y
            terms += x * math.log2(2 * x / (x + y)) + y * math.log2(2 * y / (x + y))
    return min(1.0, max(0.0, 0.5 * ((1.0 - shared_small) + (1.0 - shared_large) + terms)))


def test_jsd_against_the_former_loop_and_scipy(corpus: list[str]) -> None:
    from scipy.spatial.distance import jensenshannon

    pairs = [(a, b) if a <= b else (b, a) for a, b in corpus_pairs(corpus, 4000)]  # the loop ran in string order
    values = JensenShannon().pairwise(pairs)
    former = np.array([loop_jsd(a, b) if a.strip() and b.strip() else 1.0 for a, b in pairs])
    assert np.max(np.abs(values - former)) <= 1e-15  # same sums in the same order; np.log2 vs math.log2 only
    for (a, b), value in zip(pairs[:800], values[:800], strict=True):
        ca, cb = Counter(word_tokens(a)), Counter(word_tokens(b))
        if ca and cb:
            vocab = sorted(ca.keys() | cb.keys())
            expected = jensenshannon([ca[w] for w in vocab], [cb[w] for w in vocab], base=2) ** 2
            assert value == pytest.approx(expected, abs=1e-12)


def test_jsd_value_does_not_depend_on_the_batch_or_history(corpus: list[str]) -> None:
    pairs = corpus_pairs(corpus, 600, seed=3)
    whole = JensenShannon().pairwise(pairs)
    dist = JensenShannon()
    dist.pairwise(corpus_pairs(corpus, 300, seed=4))  # other texts prepared first: other column numbers
    assert dist.pairwise(pairs).tolist() == whole.tolist()
    assert [JensenShannon()(a, b) for a, b in pairs[:100]] == whole[:100].tolist()


# --- the pair interface -----------------------------------------------------------------------------------------
class Recording(Distance):
    """Records its _prepare batches and scores pairs by a fixed rule (an asymmetric one)."""

    name = "recording"
    symmetric = False

    def __init__(self) -> None:
        super().__init__()
        self.batches: list[list[str]] = []

    def _prepare(self, texts: Sequence[str]) -> list[str]:
        self.batches.append(list(texts))
        return list(texts)

    def _score(self, reps_a: Sequence[str], reps_b: Sequence[str]) -> np.ndarray:
        return np.array([len(a) / (len(a) + 2 * len(b)) for a, b in zip(reps_a, reps_b, strict=True)])


def test_text_pairs_equal_tuples_and_prepare_in_first_seen_order() -> None:
    texts = ["b doc", "a one", "", "c two", "a one", "  ", "d three"]
    first, second = [3, 0, 1, 2, 4, 6, 1, 5], [1, 1, 3, 0, 3, 0, 6, 1]
    pairs = TextPairs(texts, first, second)
    tuples = [(texts[i], texts[j]) for i, j in zip(first, second, strict=True)]
    assert list(pairs) == tuples
    assert len(pairs) == len(tuples)
    assert pairs[2] == tuples[2]
    assert list(pairs[1:4]) == tuples[1:4]
    via_pairs, via_tuples = Recording(), Recording()
    assert via_pairs.pairwise(pairs).tolist() == via_tuples.pairwise(tuples).tolist()
    expected_order = list(dict.fromkeys(t for a, b in tuples if a.strip() and b.strip() for t in (a, b)))
    assert via_pairs.batches == via_tuples.batches == [expected_order]
    with pytest.raises(IndexError, match="outside"):
        TextPairs(texts, [0, 7], [1, 1])
    with pytest.raises(ValueError, match="aligned"):
        TextPairs(texts, [0, 1], [1])


def test_symmetric_measures_run_each_pair_in_string_order() -> None:
    class Oriented(Recording):
        symmetric = True

    dist = Oriented()
    values = dist.pairwise([("zebra crossing", "apple pie"), ("apple pie", "zebra crossing")])
    assert values[0] == values[1] == len("apple pie") / (len("apple pie") + 2 * len("zebra crossing"))


# --- formulas: batched = one document at a time ------------------------------------------------------------------
def test_stacked_formulas_give_each_document_its_own_floats() -> None:
    rng = np.random.default_rng(0)
    for n in (2, 3, 5, 7, 8, 9, 16, 33):
        m = 40
        pairs = [rng.random((m, n, n)) for _ in range(2)]
        docs = [rng.random((m, n)) for _ in range(2)]
        docs[0][0, 0] = 0.0  # a zero distance to the document (weight 0)
        pairs[1][1] = 0.3  # equal distances
        stacked = degress_scores(pairs[0], docs[0], pairs[1], docs[1])
        accuracy = rng.random((m, n))
        accuracy[2] = 1.0  # d_min = 1
        penalties = edp_scores(accuracy)
        for i in range(m):
            one = degress_scores(pairs[0][i], docs[0][i], pairs[1][i], docs[1][i])
            assert stacked[i].tolist() == one.tolist()
            alone, row = edp_scores(accuracy[i]), penalties.rows()[i]
            assert (row.adp, row.acp.tolist(), row.edp.tolist()) == (alone.adp, alone.acp.tolist(), alone.edp.tolist())


def test_document_means_equal_numpy_mean_per_document() -> None:
    rng = np.random.default_rng(1)
    arrays = [rng.random(int(n)) for n in rng.integers(1, 300, size=500)]
    assert document_means(arrays).tolist() == [float(np.mean(a)) for a in arrays]


# --- per-summary PerSEval / DEGRESS against the naive reference ------------------------------------------------------
def naive_perseval(preds, refs, docs, ids, sigma, beta: float) -> np.ndarray:
    """Per-summary (PerSEval, DEGRESS) of the bench's naive reference with a per-pair σ."""
    return BENCH.naive_scores(preds, refs, docs, ids, lambda pairs: np.array([sigma(a, b) for a, b in pairs]), beta)


def shipped_systems() -> list[tuple[str, list[str], list[str], list[str], list | None]]:
    """(name, predictions, references, documents, ids) of every shipped system: PENS baselines, leaderboard."""
    out = []
    ds = load_pens(ROOT / "data/pens_sample")
    refs, docs, ids = list(ds["reference"]), list(ds["document"]), list(ds["news_id"])
    out += [(f"pens:{b}", baseline_predictions(ds, b), refs, docs, ids) for b in ("headline", "lead", "shuffled")]
    sample = read_personalization_jsonl(ROOT / "data/personalization_sample/sample.jsonl")
    for name, preds in leaderboard_systems(sample).items():
        out.append((f"sample:{name}", preds, sample.references, sample.documents, sample.document_ids))
    return out


def edge_systems() -> list[tuple[str, list[str], list[str], list[str], list | None]]:
    """Documents of 2 to 12 users (some past numpy's 8-wide summation blocks) over the edge-case corpus.

    Texts with a lone surrogate are left out: the scorer's input validation refuses them (not valid Unicode).
    """
    rng = random.Random(21)
    texts = [t for t in edge_corpus() if not any("\ud800" <= c <= "\udfff" for c in t)]
    nonempty = [t for t in texts if t.strip()]
    refs, docs, preds = [], [], []
    for d in range(60):
        doc = rng.choice([t for t in nonempty if len(t) > 40])
        for _ in range(rng.randint(2, 12)):
            refs.append(rng.choice(nonempty))
            docs.append(f"{d} {doc}")
            preds.append(rng.choice(texts))
    return [("edge", preds, refs, docs, None)]


@pytest.mark.parametrize("system", shipped_systems() + edge_systems(), ids=lambda s: s[0])
def test_rougel_perseval_bit_for_bit_against_the_naive_reference(system, rouge_scorer) -> None:
    _, preds, refs, docs, ids = system

    def sigma(a: str, b: str) -> float:
        return 1.0 - rouge_scorer.score(a, b)["rougeL"].fmeasure if a.strip() and b.strip() else 1.0

    scorer = PersonalizationScorer(refs, docs, ids, distance=RougeL())
    for beta in (1.0, 1.7):
        res = scorer.score(preds, beta=beta)
        ours = np.column_stack([res.per_summary("perseval"), res.per_summary("degress")]).astype(float)
        assert np.array_equal(ours, naive_perseval(preds, refs, docs, ids, sigma, beta), equal_nan=True)


@pytest.mark.parametrize("system", shipped_systems() + edge_systems(), ids=lambda s: s[0])
def test_jsd_perseval_against_the_naive_reference(system) -> None:
    _, preds, refs, docs, ids = system

    def sigma(a: str, b: str) -> float:
        return loop_jsd(*sorted((a, b))) if a.strip() and b.strip() else 1.0

    res = PersonalizationScorer(refs, docs, ids, distance=JensenShannon()).score(preds)
    ours = np.column_stack([res.per_summary("perseval"), res.per_summary("degress")]).astype(float)
    naive = naive_perseval(preds, refs, docs, ids, sigma, 1.7)
    assert np.array_equal(np.isnan(ours), np.isnan(naive))
    assert np.nanmax(np.abs(ours - naive)) <= 1e-12


@pytest.mark.parametrize("distance", ["rougeL", "jsd"])
def test_datasets_columns_give_the_same_values_as_lists(distance: str) -> None:
    from datasets import Dataset

    sample = read_personalization_jsonl(ROOT / "data/personalization_sample/sample.jsonl")
    preds = leaderboard_systems(sample)["shuffled"]
    ds = Dataset.from_dict({"reference": sample.references, "document": sample.documents, "id": sample.document_ids})
    as_lists = PersonalizationScorer(sample.references, sample.documents, sample.document_ids, distance=distance)
    as_columns = PersonalizationScorer(ds["reference"], ds["document"], ds["id"], distance=distance)
    a, b = as_lists.score(preds), as_columns.score(ds.add_column("p", preds)["p"])
    assert a.as_dict(per_summary=["perseval", "degress"]) == b.as_dict(per_summary=["perseval", "degress"])


# --- PENS loading ----------------------------------------------------------------------------------------------------
def test_load_pens_full_scale_stays_under_0_6_gb(tmp_path: Path) -> None:
    """Full-scale synthetic PENS (3,840 articles, 20,642 titles) loaded in a fresh process: peak resident memory
    < 0.6 GB (the bench measured 0.46 GB, imports included).

    The peak is the child's own high-water mark (``VmHWM``). An earlier version of this test read ``ru_maxrss``,
    which Linux keeps across ``execve``: the child reported the pytest process's peak (1.27-1.65 GB inside the
    full suite, below 0.6 GB alone), so the test was removed until the cause was found."""
    subprocess.run(
        [sys.executable, str(ROOT / "scripts/make_synthetic_pens.py"), str(tmp_path)], check=True, capture_output=True
    )
    code = (
        "from pathlib import Path\n"
        "from persona_metrics.datasets.pens import load_pens\n"
        f"ds = load_pens({str(tmp_path)!r})\n"
        "status = Path('/proc/self/status').read_text().splitlines()\n"
        "print(ds.num_rows, next(line.split()[1] for line in status if line.startswith('VmHWM:')))\n"
    )
    env = {k: os.environ[k] for k in ("PATH", "HOME", "PERSONA_METRICS_CACHE") if k in os.environ}
    env.update(HF_HOME=str(tmp_path / "hf_home"), HF_DATASETS_OFFLINE="1", HF_HUB_OFFLINE="1")
    env.update(PERSONA_METRICS_NO_AUTO_REGISTER="1")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env)
    rows, peak_kib = map(int, out.stdout.split()[-2:])
    assert rows == 20642
    assert peak_kib < 0.6 * 1024**2


# --- scripts/compare_release.py ----------------------------------------------------------------------------------
def test_compare_release_judges_one_ulp(tmp_path: Path, capsys) -> None:
    """rougeL must be bit for bit: one ulp off is "DIFFERS"; jsd within 1e-12 is ok; bertscore is printed only."""
    compare = load_script("compare_release").compare
    base = np.array([0.25, np.nan, 0.5])
    values = {f"pens_sample|{name}|m|perseval": base for name in ("rougeL", "jsd", "bertscore")}
    np.savez(tmp_path / "before.npz", **values)
    np.savez(tmp_path / "same.npz", **values)
    assert compare(tmp_path / "before.npz", tmp_path / "same.npz")
    moved = {**values, "pens_sample|jsd|m|perseval": base + 1e-13, "pens_sample|bertscore|m|perseval": base + 1e-6}
    np.savez(tmp_path / "close.npz", **moved)
    assert compare(tmp_path / "before.npz", tmp_path / "close.npz")
    assert not compare(tmp_path / "before.npz", tmp_path / "close.npz", exact=True)  # --exact: bit for bit
    np.savez(tmp_path / "ulp.npz", **{**moved, "pens_sample|rougeL|m|perseval": np.nextafter(base, 1.0)})
    assert not compare(tmp_path / "before.npz", tmp_path / "ulp.npz")
    out = capsys.readouterr().out
    assert "DIFFERS" in out
    assert "printed only" in out


@pytest.mark.skipif(not (ROOT / ".git").exists(), reason="needs the git checkout (a worktree of HEAD)")
def test_compare_release_against_head_runs(tmp_path: Path) -> None:
    """The whole script on the shipped samples: HEAD checked out beside the working tree, each side in its own
    process; rougeL and jsd values the same as HEAD's (the working tree under test changes no value)."""
    proc = subprocess.run(
        [sys.executable, str(ROOT / "scripts/compare_release.py"), "HEAD", "--distance", "rougeL", "jsd",
         "--no-metrics"],
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert "same values: OK" in proc.stdout
    assert proc.stdout.count(" ok\n") == 4  # personalization_sample and pens_sample, rougeL and jsd
