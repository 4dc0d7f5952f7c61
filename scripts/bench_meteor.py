"""METEOR PerSEval speed and exactness: the library's prepared-text METEOR vs NLTK's meteor_score per pair.

Input (built here, seeded): one document of varied news sentences written for this bench (``--chars``
characters, default about 1 M) and ``--users`` users (default 50), each with a short reference summary and a
model summary (paraphrased with inflections and WordNet synonyms, so every METEOR stage is exercised).

1. **large**, twice (the bench's word lists; then half the nouns and adjectives drawn from ``--rich-words``
   WordNet lemma names, for a vocabulary as rich as real long text): PerSEval with ``distance="meteor"`` on
   the ~1 M-character document, with a fresh distance object and cleared stem / synonym memos (WordNet itself
   is loaded beforehand and timed apart). The old path (NLTK's ``meteor_score`` per pair, which re-stems the
   document on every call) is not run at this size: one call against the document is timed and multiplied by
   the number of pairs that contain the document; ``--old-large`` runs it for real (minutes). The first
   large run is also timed end to end in a fresh process (Python start, imports, WordNet load, PerSEval).
2. **small**: the same with a ``--small-chars`` document (default 5 k): the naive reference (the previous
   ``Meteor`` class, NLTK's ``meteor_score`` per pair) and the library, side by side; printed: both times, the
   ratio, and the max |diff| of every σ and of per-summary PerSEval / DEGRESS / accuracy (0 expected).

    python scripts/bench_meteor.py
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import time
from collections.abc import Callable, Sequence

import numpy as np

from persona_metrics.distances import Distance, word_tokens
from persona_metrics.distances import meteor as prepared_meteor
from persona_metrics.distances.lexical import Meteor
from persona_metrics.personalization import score_personalization

COMPANIES = (
    "Brightwater Energy, Northwind Rail, Harbor Foods, Copperfield Bank, Lumen Telecom, Fenwick Biotech, "
    "Zephyr Scooters, Tessaro Semiconductor, Greystone Metals, Alder Insurance, Kestrel Airlines, Oakmont Media"
).split(", ")
PEOPLE = (
    "Maria Okafor, James Lindqvist, Priya Raman, Tomasz Nowak, Aiko Tanaka, Samuel Mensah, Elena Rossi, "
    "David Chen, Fatima Haddad, Lucas Moreau, Ingrid Berg, Omar Siddiqui"
).split(", ")
PLACES = (
    "Riverside, Millbrook, Eastbrook, Greystone, the northern valley, the harbor district, the old town, "
    "the industrial park, the coastal region, the capital, the eastern suburbs, the university quarter"
).split(", ")
ROLES = "chief executive, finance director, mayor, union leader, analyst, economist, spokesperson, engineer".split(", ")
NOUNS = (
    "profit revenue outlook plant factory workers jobs wages prices bills rent emissions solar battery network "
    "software chips trains flights cars trucks houses schools hospitals roads bridges river forest farms "
    "harvest drought storm flood market shares investors dividend budget taxes council residents customers "
    "orders contracts suppliers exports imports loans savings pensions tuition research patents doctors nurses"
).split()
ADJECTIVES = (
    "big large huge small modest strong weak rapid quick slow steady sharp sudden early late new old local "
    "national regional public private cheap expensive bad poor good great major minor quiet busy"
).split()
VERBS = (  # base, third person, past, gerund
    ("raise", "raises", "raised", "raising"),
    ("cut", "cuts", "cut", "cutting"),
    ("lift", "lifts", "lifted", "lifting"),
    ("close", "closes", "closed", "closing"),
    ("open", "opens", "opened", "opening"),
    ("build", "builds", "built", "building"),
    ("hire", "hires", "hired", "hiring"),
    ("expand", "expands", "expanded", "expanding"),
    ("reduce", "reduces", "reduced", "reducing"),
    ("announce", "announces", "announced", "announcing"),
    ("delay", "delays", "delayed", "delaying"),
    ("approve", "approves", "approved", "approving"),
    ("warn", "warns", "warned", "warning"),
    ("invest", "invests", "invested", "investing"),
    ("sell", "sells", "sold", "selling"),
    ("buy", "buys", "bought", "buying"),
)
SENTENCES = (
    "{company} {v2} its {adj} {noun} in {place} after {n} months of talks.",
    "{person}, the {role} of {company}, said the {noun} would be {v2b} by {n} percent.",
    "Residents of {place} asked the council to {v1} the {adj} {noun} before the winter.",
    "Analysts expect {company} to keep {v3} {noun} as {noun2} {v1s} across {place}.",
    "The {adj} {noun} in {place} cost about {n} million dollars, {person} told reporters.",
    "In {year}, {company} {v2} {n} {noun} and promised {adj} {noun2} for {place}.",
    "{person} warned that {adj} {noun} could hurt {noun2} in {place} next year.",
    "Shares of {company} rose {n} percent on Tuesday as investors welcomed the {adj} {noun}.",
    "Shares of {company} fell {n} percent after the {role} {v2} the {noun} plan.",
    "The council of {place} voted {n} to {n2} to {v1} the {noun} near the river.",
    "Workers at the {place} {noun} were offered training, transfers or a {adj} payment.",
    "Environmental groups said the {adj} {noun} would cut emissions in {place} by a third.",
    "{company} is {v3} {noun} because demand for {noun2} stayed {adj} through {year}.",
    "A {adj} storm delayed {noun} in {place}, and {company} {v2} its forecast for {year}.",
    "Critics asked why {company} {v2} the {noun} while prices for {noun2} kept climbing.",
    "{person} said the company had no plan to {v1} {noun} in {place} before {year}.",
    "Local schools in {place} will receive {n} thousand dollars from the {noun} fund.",
    "The {role} described the quarter as {adj}, with {noun} up and {noun2} down.",
    "Regulators approved the {adj} merger of {company} and {company2} on Friday.",
    "Families in {place} said {noun} and {noun2} now take a {adj} share of their budget.",
)


def _fill(rng: random.Random, template: str, extra: Sequence[str] = ()) -> str:
    """One sentence; with ``extra`` words, half of the noun and adjective slots draw from them instead."""

    def pick(pool: Sequence[str]) -> str:
        return rng.choice(extra) if extra and rng.random() < 0.5 else rng.choice(pool)

    verb = rng.choice(VERBS)
    return template.format(
        company=rng.choice(COMPANIES),
        company2=rng.choice(COMPANIES),
        person=rng.choice(PEOPLE),
        place=rng.choice(PLACES),
        role=rng.choice(ROLES),
        noun=pick(NOUNS),
        noun2=pick(NOUNS),
        adj=pick(ADJECTIVES),
        v1=verb[0],
        v1s=verb[1],
        v2=verb[2],
        v2b=verb[2],
        v3=verb[3],
        n=rng.randint(2, 4000),
        n2=rng.randint(1, 9),
        year=rng.randint(1990, 2035),
    ).capitalize()


def make_document(chars: int, seed: int, extra: Sequence[str] = ()) -> str:
    """Varied sentences (templates × seeded fillers) until ``chars`` characters (``extra``: see ``_fill``)."""
    rng = random.Random(seed)
    parts: list[str] = []
    total = 0
    while total < chars:
        sentence = _fill(rng, rng.choice(SENTENCES), extra)
        parts.append(sentence)
        total += len(sentence) + 1
    return " ".join(parts)[:chars].rstrip()


PARAPHRASE = {
    "raised": "lifted",
    "big": "large",
    "quick": "rapid",
    "cut": "cuts",
    "profit": "profits",
    "workers": "worker",
    "jobs": "job",
    "bad": "poor",
    "new": "fresh",
    "prices": "price",
    "closed": "closes",
    "built": "builds",
}
HEADLINES = (
    "{company} {v2} {noun} in {place}",
    "{adj} {noun} for {place} as {company} {v2} plan",
    "{place} {noun} {v2} after {adj} year",
    "{company} {role} says {noun} will be {v2}",
    "{adj} {noun} and {noun2}: what {company} {v2} means for {place}",
)


def make_users(users: int, seed: int) -> tuple[list[str], list[str]]:
    """Per user a reference headline and a model headline (a paraphrase with inflections and synonyms)."""
    rng = random.Random(seed)
    references, predictions = [], []
    for _ in range(users):
        ref = _fill(rng, rng.choice(HEADLINES))
        words = [PARAPHRASE.get(w.lower(), w) if rng.random() < 0.7 else w for w in ref.split()]
        if len(words) > 4:
            del words[rng.randrange(len(words))]
        words.insert(rng.randrange(len(words) + 1), rng.choice(NOUNS))
        references.append(ref)
        predictions.append(" ".join(words))
    return references, predictions


class NaiveMeteor(Meteor):
    """The previous ``Meteor`` class: tokens per text, NLTK's ``meteor_score`` called per pair."""

    def pairwise(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        return Distance.pairwise(self, pairs)

    def _prepare(self, texts: Sequence[str]) -> list:
        return [word_tokens(t) for t in texts]

    def _score(self, reps_a: Sequence, reps_b: Sequence) -> np.ndarray:
        from nltk.translate.meteor_score import meteor_score

        return np.array([1.0 - meteor_score([a], b) if a and b else 1.0 for a, b in zip(reps_a, reps_b, strict=True)])


def timed(fn: Callable[[], object]) -> tuple[float, float, object]:
    """(wall seconds, CPU seconds, result) of one call."""
    wall, cpu = time.perf_counter(), time.process_time()
    result = fn()
    return time.perf_counter() - wall, time.process_time() - cpu, result


def perseval(distance: Distance, doc: str, refs: list[str], preds: list[str]):
    """PerSEval of the model summaries on one document."""
    return score_personalization(preds, refs, [doc] * len(refs), distance=distance)


def all_pairs(doc: str, refs: list[str], preds: list[str]) -> list[tuple[str, str]]:
    """Every ordered pair PerSEval scores (and a few more: both orders of everything)."""
    texts = [doc, *refs, *preds]
    return [(a, b) for a in texts for b in texts if a is not b]


def reset_memos() -> None:
    """Forget every stem and synonym set (WordNet stays loaded)."""
    prepared_meteor.porter_stem.cache_clear()
    prepared_meteor.wordnet_synonyms.cache_clear()


def rich_words(count: int, seed: int) -> list[str]:
    """``count`` single-word WordNet lemma names (seeded sample): a vocabulary as rich as real long text."""
    wordnet = prepared_meteor._wordnet()
    names = sorted({name for name in wordnet.all_lemma_names() if name.isalpha()})
    return random.Random(seed).sample(names, count)


def large(args: argparse.Namespace, extra: Sequence[str] = ()) -> list[str]:
    """The large run: the library timed; the old path estimated (or run with --old-large)."""
    from nltk.translate.meteor_score import meteor_score

    doc = make_document(args.chars, args.seed, extra)
    refs, preds = make_users(args.users, args.seed + 1)
    reset_memos()
    distance = Meteor()
    wall, cpu, result = timed(lambda: perseval(distance, doc, refs, preds))
    n_tokens = len(word_tokens(doc))
    kind = f"half the nouns and adjectives from {len(extra):,} WordNet words" if extra else "the bench's word lists"
    lines = [
        f"## large ({kind}): {args.users} users x a {len(doc):,}-character document ({n_tokens:,} tokens, "
        f"{len(set(word_tokens(doc))):,} unique)",
        f"  library (fresh object, cold memos)  wall {wall:7.2f} s  CPU {cpu:7.2f} s  "
        f"PerSEval {result.perseval:.6f}  DEGRESS {result.degress:.6f}",
    ]
    doc_pairs = 2 * args.users  # σ(u_j, D) and σ(s_j, D)
    one_wall, one_cpu, one = timed(lambda: meteor_score([word_tokens(refs[0])], word_tokens(doc)))
    lines.append(
        f"  old path: one meteor_score call against the document  wall {one_wall:.2f} s  CPU {one_cpu:.2f} s; "
        f"x {doc_pairs} document pairs = about {one_wall * doc_pairs:,.0f} s (estimate)"
    )
    same = distance(refs[0], doc) == 1.0 - float(one)
    lines.append(f"  that pair, sigma(reference 1, document): library == NLTK: {same}")
    if args.old_large:
        old_wall, old_cpu, old = timed(lambda: perseval(NaiveMeteor(), doc, refs, preds))
        lines.append(
            f"  old path, run for real  wall {old_wall:7.2f} s  CPU {old_cpu:7.2f} s  ratio {old_wall / wall:.1f}"
        )
        lines.append(f"  |PerSEval diff| {abs(old.perseval - result.perseval):.2e}")
    lines.append(f"  speed-up (estimated old / library, wall): {one_wall * doc_pairs / wall:,.0f} x")
    return [*lines, ""]


def small(args: argparse.Namespace) -> list[str]:
    """The small run: naive reference and library side by side, and their differences."""
    doc = make_document(args.small_chars, args.seed)
    refs, preds = make_users(args.users, args.seed + 1)
    reset_memos()
    naive_wall, naive_cpu, naive = timed(lambda: perseval(NaiveMeteor(), doc, refs, preds))
    ours_wall, ours_cpu, ours = timed(lambda: perseval(Meteor(), doc, refs, preds))
    keys = ("perseval", "degress", "accuracy_distance")
    per_summary = max(
        float(np.max(np.abs(np.array(ours.per_summary(k), float) - np.array(naive.per_summary(k), float))))
        for k in keys
    )
    pairs = all_pairs(doc, refs, preds)
    sigma_new, sigma_old = Meteor().pairwise(pairs), NaiveMeteor().pairwise(pairs)
    return [
        f"## small: {args.users} users x a {len(doc):,}-character document ({len(word_tokens(doc)):,} tokens)",
        f"  naive (NLTK meteor_score per pair)  wall {naive_wall:7.2f} s  CPU {naive_cpu:7.2f} s",
        f"  library                             wall {ours_wall:7.2f} s  CPU {ours_cpu:7.2f} s",
        f"  ratio naive / library (wall)        {naive_wall / ours_wall:7.1f} x",
        f"  max |diff| per-summary {', '.join(keys)}: {per_summary:.3g}",
        f"  max |diff| of sigma over {len(pairs):,} ordered pairs (every text vs every other, both orders): "
        f"{float(np.max(np.abs(sigma_new - sigma_old))):.3g}; identical: {np.array_equal(sigma_new, sigma_old)}",
        "",
    ]


def cold(args: argparse.Namespace) -> list[str]:
    """The large run in a fresh process: Python start, imports, WordNet load and PerSEval, all timed."""
    command = [sys.executable, __file__, "--cold-child", "--users", str(args.users), "--chars", str(args.chars)]
    wall, cpu_children = time.perf_counter(), os.times()
    child = subprocess.run(command, check=True, capture_output=True, text=True)
    wall = time.perf_counter() - wall
    after = os.times()
    cpu = after.children_user + after.children_system - cpu_children.children_user - cpu_children.children_system
    build_s = float(child.stdout.split()[0])
    return [
        f"## large in a fresh process ({args.users} users x {args.chars:,} characters, the bench's word lists)",
        f"  start + imports + WordNet load + PerSEval: wall {wall - build_s:6.2f} s  "
        f"(CPU {cpu - build_s:.2f} s; building the input, {build_s:.2f} s, subtracted)",
        "",
    ]


def cold_child(args: argparse.Namespace) -> int:
    """In the fresh process: build the input (timed, printed), then score it."""
    start = time.perf_counter()
    doc = make_document(args.chars, args.seed)
    refs, preds = make_users(args.users, args.seed + 1)
    sys.stdout.write(f"{time.perf_counter() - start}\n")
    perseval(Meteor(), doc, refs, preds)
    return 0


def main(argv: list[str] | None = None) -> int:
    """Print the report."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--users", type=int, default=50)
    parser.add_argument("--chars", type=int, default=1_000_000, help="characters of the large document")
    parser.add_argument("--small-chars", type=int, default=5_000, help="characters of the small document")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--rich-words", type=int, default=20_000, help="vocabulary of the second large run (0: none)")
    parser.add_argument("--old-large", action="store_true", help="also run the old path on the large input")
    parser.add_argument("--cold-child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.cold_child:
        return cold_child(args)

    load_wall, _, _ = timed(lambda: prepared_meteor.wordnet_synonyms("dog"))
    lines = [
        f"# METEOR PerSEval (NLTK {__import__('nltk').__version__}); WordNet load (once per process): "
        f"{load_wall:.2f} s, not included below except in the fresh-process run",
        "",
    ]
    lines += cold(args)
    lines += large(args)
    if args.rich_words:
        lines += large(args, rich_words(args.rich_words, args.seed))
    lines += small(args)
    sys.stdout.write("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
