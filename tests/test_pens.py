"""The PENS loader (through datasets), the synthetic PENS generator and the PENS baselines."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from conftest import load_script

from persona_metrics.datasets.pens import (
    _BASELINE_FUNCTIONS,
    BASELINES,
    NEWS_COLUMNS,
    TEST_COLUMNS,
    baseline_predictions,
    load_pens,
)

ROOT = Path(__file__).resolve().parents[1]
NEWS = [
    ("N1", "finance", "markets", "Harbor Foods lifts outlook", "Harbor Foods raised its outlook. Shares rose."),
    ("N2", "sports", "soccer", "Rovers win the cup", "The Rovers won the cup final 2-1 on Sunday."),
    ("N3", "news", "newsus", "Council backs new park", "The council approved a park on the old rail yard."),
]
USERS = [
    ("U1", "N3", "N1,N2", "Harbor Foods shares rise on outlook;;Rovers lift the cup"),
    ("U2", "N1,N3", "N2,N1", "Cup final goes to Rovers 2-1;;Grocer raises its outlook"),
]


def write_pens(path: Path, news: list[tuple], users: list[tuple]) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    rows = ["\t".join(NEWS_COLUMNS)] + ["\t".join([*n, "{}", "{}"]) for n in news]
    (path / "news.tsv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    rows = ["\t".join(TEST_COLUMNS)] + ["\t".join(u) for u in users]
    (path / "personalized_test.tsv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    return path


def test_one_example_per_user_and_article_in_file_order(tmp_path: Path) -> None:
    ds = load_pens(write_pens(tmp_path, NEWS, USERS))
    assert ds.num_rows == 4
    assert list(zip(ds["user_id"], ds["news_id"], strict=True)) == [
        ("U1", "N1"),
        ("U1", "N2"),
        ("U2", "N2"),
        ("U2", "N1"),
    ]
    assert ds[0]["reference"] == "Harbor Foods shares rise on outlook"
    assert ds[0]["document"] == "Harbor Foods lifts outlook Harbor Foods raised its outlook. Shares rose."
    assert ds[0]["headline"] == "Harbor Foods lifts outlook"
    assert ds[2]["history"] == ["N1", "N3"]
    assert ds[1]["category"] == "sports"


def test_missing_article_id_is_named(tmp_path: Path) -> None:
    users = [("U1", "N3", "N1,N9", "a title;;another title")]
    with pytest.raises(ValueError, match=r"personalized_test.tsv:2: news id 'N9' \(user U1\)"):
        load_pens(write_pens(tmp_path, NEWS, users))


def test_malformed_lines_are_reported_with_line_numbers(tmp_path: Path) -> None:
    path = write_pens(tmp_path, NEWS, USERS)
    lines = (path / "news.tsv").read_text().splitlines()
    lines[2] = lines[2].replace("\t", " ", 1)  # line 3: one field short
    lines.append("N4\tonly two fields")  # line 5
    (path / "news.tsv").write_text("\n".join(lines) + "\n")
    message = r"news.tsv:3: 6 tab-separated fields, expected 7 \(News ID, .*\); 2 malformed lines: 3, 5"
    with pytest.raises(ValueError, match=message):
        load_pens(path)


def test_title_count_must_match_article_count(tmp_path: Path) -> None:
    users = [("U1", "N3", "N1,N2", "only one title")]
    with pytest.raises(ValueError, match=r"personalized_test.tsv:2: user U1 has 2 posnewID but 1 rewrite_titles"):
        load_pens(write_pens(tmp_path, NEWS, users))


def test_wrong_header_and_missing_file(tmp_path: Path) -> None:
    path = write_pens(tmp_path, NEWS, USERS)
    (path / "personalized_test.tsv").write_text("user\tclicks\n")
    with pytest.raises(ValueError, match="is not the PENS header"):
        load_pens(path)
    with pytest.raises(FileNotFoundError, match=r"news\.tsv"):
        load_pens(tmp_path / "nowhere")


def _generator():
    return load_script("make_synthetic_pens")


def test_synthetic_generator_is_deterministic_and_loadable(tmp_path: Path) -> None:
    gen = _generator()
    args = ["--articles", "60", "--users", "12", "--history-articles", "20", "--body-sentences", "4"]
    assert gen.main([str(tmp_path / "a"), *args]) == 0
    assert gen.main([str(tmp_path / "b"), *args]) == 0
    for name in ("news.tsv", "personalized_test.tsv"):
        a, b = ((tmp_path / d / name).read_bytes() for d in "ab")
        assert hashlib.sha256(a).digest() == hashlib.sha256(b).digest()
    ds = load_pens(tmp_path / "a")
    per_article: dict[str, int] = {}
    for news_id in ds["news_id"]:
        per_article[news_id] = per_article.get(news_id, 0) + 1
    assert len(per_article) == 60
    assert min(per_article.values()) >= 2
    assert len(set(ds["user_id"])) == 12


def test_shipped_pens_sample() -> None:
    """data/pens_sample: 64 articles, 14 users, 279 titles, 3-6 distinct titles per article, histories resolved."""
    ds = load_pens(ROOT / "data" / "pens_sample")
    assert ds.num_rows == 279
    assert len(set(ds["user_id"])) == 14
    titles: dict[str, list[str]] = {}
    for news_id, ref in zip(ds["news_id"], ds["reference"], strict=True):
        titles.setdefault(news_id, []).append(ref)
    assert len(titles) == 64
    assert all(3 <= len(t) <= 6 and len(set(t)) == len(t) for t in titles.values())
    assert all(h for h in ds["history_text"])
    assert all(doc.startswith(head + " ") for doc, head in zip(ds["document"], ds["headline"], strict=True))


def test_shipped_pens_sample_is_reproducible(tmp_path: Path) -> None:
    module = load_script("make_pens_sample")
    assert module.main([str(tmp_path)]) == 0
    for name in ("news.tsv", "personalized_test.tsv"):
        assert (tmp_path / name).read_bytes() == (ROOT / "data" / "pens_sample" / name).read_bytes()


# --- baselines ---------------------------------------------------------------------------------------------------
def _reference_baseline_predictions(dataset, name):
    """Each baseline written out plainly from its definition in ``BASELINES`` (an independent reference for the
    table of baseline functions)."""
    refs, heads = dataset["reference"], dataset["headline"]
    if name == "oracle":
        return list(refs)
    if name == "headline":
        return list(heads)
    if name == "shuffled":
        by_article: dict[str, list[int]] = {}
        for i, news_id in enumerate(dataset["news_id"]):
            by_article.setdefault(news_id, []).append(i)
        out = list(heads)
        for idx in by_article.values():
            if len(idx) > 1:
                for src, dst in zip(idx, idx[1:] + idx[:1], strict=True):
                    out[dst] = refs[src]
        return out
    from persona_metrics.distances import word_tokens
    from persona_metrics.resources import sent_tokenize

    sentences: dict[str, list[str]] = {}
    out = []
    for news_id, body, head, history in zip(
        dataset["news_id"], dataset["body"], heads, dataset["history_text"], strict=True
    ):
        if news_id not in sentences:
            sentences[news_id] = sent_tokenize(body) or [head]
        if name == "lead":
            out.append(sentences[news_id][0])
        else:
            interest = set(word_tokens(history))
            out.append(max(sentences[news_id], key=lambda s, interest=interest: len(interest & set(word_tokens(s)))))
    return out


@pytest.fixture(scope="module")
def synthetic_pens(tmp_path_factory):
    script = load_script("make_synthetic_pens")
    path = tmp_path_factory.mktemp("pens")
    args = ["--articles", "30", "--users", "10", "--history-articles", "15", "--body-sentences", "4"]
    assert script.main([str(path), *args]) == 0
    return load_pens(path)


def test_baseline_table_covers_every_baseline() -> None:
    assert list(_BASELINE_FUNCTIONS) == list(BASELINES)


@pytest.mark.parametrize("name", list(BASELINES))
def test_baselines_match_their_plain_definitions(synthetic_pens, name) -> None:
    assert baseline_predictions(synthetic_pens, name) == _reference_baseline_predictions(synthetic_pens, name)


def test_a_prediction_file_named_like_a_baseline_or_another_file_is_refused(capsys, tmp_path: Path) -> None:
    """hyps_oracle.txt used to replace the real oracle row, and hyps_m.txt / m.jsonl each other, with exit 0."""
    from persona_metrics.cli import main

    pens = write_pens(tmp_path / "pens", NEWS, USERS)
    hyps = tmp_path / "hyps_oracle.txt"
    hyps.write_text("a\nb\nc\nd\n")
    assert main(["pens", str(pens), "--no-plot", "--predictions", str(hyps)]) == 2
    assert capsys.readouterr().err == (
        f"persona-metrics pens: error: {hyps}: model name 'oracle' is reserved for a built-in baseline (the reserved "
        f"names are {list(BASELINES)}); rename the model\n"
    )
    first, second = tmp_path / "hyps_m.txt", tmp_path / "m.jsonl"
    first.write_text("a\nb\nc\nd\n")
    second.write_text("")
    assert main(["pens", str(pens), "--no-plot", "--predictions", str(first), str(second)]) == 2
    assert capsys.readouterr().err == (
        f"persona-metrics pens: error: {second}: model name 'm' is also that of {first}; rename one\n"
    )
