"""The validity suite (persona_metrics.validity, ``persona-metrics validity``, the cards' Limitations tables).

The properties' pure functions are checked on this file's own development data (texts and scores written here,
every expected count worked out by hand in the comments); the shipped cases (``validity/cases/*.jsonl``) are
measuring data and are only *run* here: a quick run of the runner on 2 cases per group checks the report's shape,
never a pass fraction. The committed report (docs/validity.json) must have been measured on the shipped case files
as they are, in full, and every card must show its tables.
"""

from __future__ import annotations

import doctest
import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
from conftest import load_script

from persona_metrics.commands import validity as command
from persona_metrics.commands.output import InputError
from persona_metrics.params import Params, option
from persona_metrics.validity import (
    CASE_FIELDS,
    CASES_DIR,
    METHODS,
    METRICS,
    Method,
    PropertyResult,
    ValidityReport,
    load_cases,
    method_available,
    run_validity,
)
from persona_metrics.validity import cases as cases_module
from persona_metrics.validity import properties as P
from persona_metrics.validity.cases import file_digest, first_cases, first_documents
from persona_metrics.validity.report import MeasuredMethod

ROOT = Path(__file__).resolve().parents[1]
REPORT = ROOT / "docs" / "validity.json"
tables = load_script("validity_tables")


# --- pure functions on this file's own development data ----------------------------------------------------------
def test_tally_counts_a_tie_as_a_failure() -> None:
    checks = [P.higher("a > b", 0.7, 0.5), P.higher("a > b", 0.5, 0.5), P.higher("a > b", 0.4, 0.5)]
    assert P.tally([*checks, P.Check("c", True)]) == [("a > b", 3, 1), ("c", 1, 1)]


def test_a_margin_within_rounding_is_a_tie() -> None:
    """Scores 1.2e-8 apart (float32 rounding: one thread or two ordered the original coherence's summary and its
    reversed copy either way) are a tie, so a report does not depend on the machine; 2e-6 is an order."""
    assert P.TIE_TOLERANCE == 1e-6
    assert not P.higher("a > b", 0.5 + 1.2e-8, 0.5).holds
    assert not P.higher("a > b", 0.5 + 9e-7, 0.5).holds
    assert P.higher("a > b", 0.5 + 2e-6, 0.5).holds
    assert not P.higher("a > b", 0.5, 0.5 + 2e-6).holds


def test_spoiled_summaries() -> None:
    sentences = ["Mirelle Dairy cut milk prices.", "Farmers protested.", "The board met on Friday."]
    assert P.repeated(sentences) == (
        "Mirelle Dairy cut milk prices. Mirelle Dairy cut milk prices. Farmers protested. Farmers protested. "
        "The board met on Friday. The board met on Friday."
    )
    assert P.reversed_order(sentences) == "The board met on Friday. Farmers protested. Mirelle Dairy cut milk prices."
    assert P.reversed_order(sentences[:2]) != " ".join(sentences[:2])  # never the identity
    with pytest.raises(ValueError, match="at least 2 sentences, got 1"):
        P.reversed_order(sentences[:1])
    assert P.first_word("“Mirelle’s board met.") == "Mirelle’s"  # the quote around it goes, not the apostrophe
    with pytest.raises(ValueError, match="no word"):
        P.first_word(" ... ")


#: Two VERT development cases: (id, [edit kinds]); scores below are invented for the count.
VERT_DEV = [
    {"id": "a", "reference": "r", "paraphrase": "p", "unrelated": "u", "edits": [{"kind": "roles", "text": "e"}]},
    {
        "id": "b",
        "reference": "r2",
        "paraphrase": "p2",
        "unrelated": "u2",
        "edits": [{"kind": "negation", "text": "n2"}, {"kind": "roles", "text": "e2"}],
    },
]


def test_vert_checks_by_hand() -> None:
    assert list(P.vert_items(VERT_DEV)) == [
        ("a", "paraphrase"), ("a", "edit:0"), ("a", "unrelated"),
        ("b", "paraphrase"), ("b", "edit:0"), ("b", "edit:1"), ("b", "unrelated"),
    ]  # fmt: skip
    score = {
        ("a", "paraphrase"): 0.9, ("a", "edit:0"): 0.95, ("a", "unrelated"): 0.1,  # roles edit wins: a failure
        ("b", "paraphrase"): 0.8, ("b", "edit:0"): 0.8, ("b", "edit:1"): 0.5,  # negation ties: a failure
        ("b", "unrelated"): 0.6,  # above the roles edit of b
    }  # fmt: skip
    # roles: a fails, b holds -> 1 of 2; negation: the tie fails -> 0 of 1; all kinds 1 of 3;
    # edit > unrelated: a 0.95 > 0.1, b 0.8 > 0.6, b 0.5 < 0.6 -> 2 of 3; paraphrase > unrelated: 2 of 2
    assert P.tally(P.vert_checks(VERT_DEV, score)) == [
        ("paraphrase > meaning edit: roles", 2, 1),
        ("paraphrase > meaning edit: negation", 1, 0),
        ("paraphrase > meaning edit: all kinds", 3, 1),
        ("meaning edit > unrelated", 3, 2),
        ("paraphrase > unrelated", 2, 2),
    ]


def test_summary_eval_items_and_checks_by_hand() -> None:
    coherence_cases = [{"id": "c", "source": "S", "summary": "One two. Three four."}]
    completeness_cases = [{"id": "k", "source": "T", "good": "all topics", "one_topic": "one topic"}]
    items = P.coherence_items(coherence_cases, {"One two. Three four.": ["One two.", "Three four."]})
    assert items == {
        ("coherence", "c", "good"): ("One two. Three four.", "S"),
        ("coherence", "c", "repeated"): ("One two. One two. Three four. Three four.", "S"),
        ("coherence", "c", "shuffled"): ("Three four. One two.", "S"),
        ("coherence", "c", "one_word"): ("One", "S"),
    }
    assert P.completeness_items(completeness_cases) == {
        ("completeness", "k", "good"): ("all topics", "T"),
        ("completeness", "k", "one_topic"): ("one topic", "T"),
    }
    coherence = {key: value for key, value in zip(items, (0.5, 0.6, 0.5, 0.2), strict=True)}
    completeness = {("completeness", "k", "good"): 0.7, ("completeness", "k", "one_topic"): 0.3}
    # repeated 0.6 > good 0.5 fails, reversed ties (fails), first word holds, completeness holds
    assert [c.holds for c in P.summary_eval_checks(coherence_cases, completeness_cases, coherence, completeness)] == [
        False,
        False,
        True,
        True,
    ]


def test_style_checks_by_hand() -> None:
    cases = [
        {"id": "e1", "persona": "enthusiast", "genre": "in"},
        {"id": "j1", "persona": "journalist", "genre": "in"},
        {"id": "j2", "persona": "journalist", "genre": "in"},
        {"id": "e2", "persona": "enthusiast", "genre": "cross"},
        {"id": "j3", "persona": "journalist", "genre": "cross"},
    ]
    score = {
        ("e1", "enthusiast"): 0.6, ("j1", "enthusiast"): 0.7, ("j2", "enthusiast"): 0.2,
        ("e1", "journalist"): 0.1, ("j1", "journalist"): 0.9, ("j2", "journalist"): 0.8,
        ("e2", "enthusiast"): 0.9, ("j3", "enthusiast"): 0.1,
        ("e2", "journalist"): 0.5, ("j3", "journalist"): 0.5,
    }  # fmt: skip
    nearest = {"e1": "enthusiast", "j1": "enthusiast", "j2": "journalist", "e2": "enthusiast", "j3": "journalist"}
    # in-genre: recognition enthusiast 1/1, journalist 1/2 (j1 read as enthusiast), all 2/3;
    # ranking for enthusiast: e1 0.6 vs j1 0.7 (fails), vs j2 0.2 (holds) -> 1/2;
    # ranking for journalist: j1 0.9 and j2 0.8 vs e1 0.1 -> 2/2. Cross-genre: recognition 1/1, 1/1, 2/2;
    # ranking enthusiast 0.9 > 0.1 -> 1/1; journalist j3 0.5 vs e2 0.5: a tie -> 0/1
    assert P.tally(P.style_checks(cases, score, nearest)) == [
        ("recognition: enthusiast, in-genre", 1, 1),
        ("recognition: journalist, in-genre", 2, 1),
        ("recognition: all personas, in-genre", 3, 2),
        ("own-persona ranking: enthusiast, in-genre", 2, 1),
        ("own-persona ranking: journalist, in-genre", 2, 2),
        ("recognition: enthusiast, cross-genre", 1, 1),
        ("recognition: journalist, cross-genre", 1, 1),
        ("recognition: all personas, cross-genre", 2, 2),
        ("own-persona ranking: enthusiast, cross-genre", 1, 1),
        ("own-persona ranking: journalist, cross-genre", 1, 0),
    ]


def test_quality_checks_by_hand() -> None:
    versions = ("reference", "good", "wrong_register", "wrong_content")
    cases = [
        {"id": "q1", "persona": "journalist", **dict(zip(versions, ("R", "G", "W", "C"), strict=True))},
        {"id": "q2", "persona": "enthusiast", **dict(zip(versions, ("R2", "G2", "W2", "C2"), strict=True))},
    ]
    assert P.quality_items(cases)["q2", "wrong_register"] == ("W2", "R2", "enthusiast")
    score = {
        ("q1", "good"): 0.6, ("q1", "wrong_register"): 0.7, ("q1", "wrong_content"): 0.3,
        ("q2", "good"): 0.6, ("q2", "wrong_register"): 0.5, ("q2", "wrong_content"): 0.6,
    }  # fmt: skip
    assert P.tally(P.quality_checks(cases, score)) == [
        ("good > wrong register: enthusiast", 1, 1),
        ("good > wrong register: journalist", 1, 0),
        ("good > wrong register: all personas", 2, 1),
        ("good > wrong content: enthusiast", 1, 0),  # a tie
        ("good > wrong content: journalist", 1, 1),
        ("good > wrong content: all personas", 2, 1),
        ("good > wrong register > wrong content: enthusiast", 1, 0),  # good > wrong register, but a tie
        ("good > wrong register > wrong content: journalist", 1, 0),  # wrong register first
        ("good > wrong register > wrong content: all personas", 2, 0),
    ]
    assert P.tally(P.quality_checks(cases[1:], score, "summaries"))[0] == (
        "good > wrong register (summaries): enthusiast",
        1,
        1,
    )


def test_lower_quantile_is_numpys_linear_quantile() -> None:
    rng = np.random.default_rng(3)
    for size in (1, 2, 7, 40):
        values = rng.random(size).tolist()
        assert P.lower_quantile(values, 0.1) == pytest.approx(float(np.quantile(values, 0.1)), abs=1e-12)


def test_off_register_checks_by_hand() -> None:
    summaries = [{"id": f"s{i}", "persona": "journalist", "genre": "in"} for i in range(3)] + [
        {"id": "e0", "persona": "enthusiast", "genre": "in"}
    ]
    off = [{"id": "o1", "register": "chat"}, {"id": "o2", "register": "legal"}]
    score = {(f"s{i}", "journalist"): v for i, v in enumerate((0.6, 0.8, 0.9))}  # 10th percentile 0.64
    score |= {("e0", "enthusiast"): 0.7, ("o1", "journalist"): 0.63, ("o2", "journalist"): 0.7}
    score |= {("o1", "enthusiast"): 0.7, ("o2", "enthusiast"): 0.1}
    assert P.tally(P.off_register_checks(summaries, off, score)) == [
        ("off-register below own summaries' 10th percentile: enthusiast", 2, 1),  # 0.7 is not below 0.7
        ("own summary > off-register (AUC): enthusiast", 2, 1),  # a tie fails
        ("off-register below own summaries' 10th percentile: journalist", 2, 1),
        ("own summary > off-register (AUC): journalist", 6, 4),  # 0.6 is below both
    ]


def test_term_gaps_by_hand() -> None:
    cases = [{"id": "a"}, {"id": "b"}]
    content = {("a", "good"): 0.6, ("a", "wrong_register"): 0.5, ("a", "wrong_content"): 0.2,
               ("b", "good"): 0.4, ("b", "wrong_register"): 0.5, ("b", "wrong_content"): 0.4}  # fmt: skip
    style = {("a", "good"): 0.9, ("a", "wrong_register"): 0.3, ("a", "wrong_content"): 0.9,
             ("b", "good"): 0.8, ("b", "wrong_register"): 0.4, ("b", "wrong_content"): 0.7}  # fmt: skip
    gaps = P.term_gaps(cases, content, style, {"content": 0.7, "style": 0.3})
    # wrong register: content |0.7·0.1| and |0.7·(−0.1)| → 0.07; style 0.3·0.6 and 0.3·0.4 → 0.15
    assert gaps["wrong_register"]["content"] == pytest.approx(0.07)
    assert gaps["wrong_register"]["style"] == pytest.approx(0.15)
    assert gaps["wrong_register"]["style_share"] == pytest.approx(0.15 / 0.22)
    # wrong content: content 0.7·0.4 and 0 → 0.14; style 0 and 0.3·0.1 → 0.015
    assert gaps["wrong_content"]["content"] == pytest.approx(0.14)
    assert gaps["wrong_content"]["style"] == pytest.approx(0.015)


def test_system_predictions_rotate_within_each_document() -> None:
    rows = [
        {"document_id": "d2", "user_id": "u1", "reference": "d2-u1"},
        {"document_id": "d1", "user_id": "u2", "reference": "d1-u2"},
        {"document_id": "d1", "user_id": "u1", "reference": "d1-u1"},
        {"document_id": "d2", "user_id": "u2", "reference": "d2-u2"},
        {"document_id": "d1", "user_id": "u3", "reference": "d1-u3"},
    ]
    systems = P.system_predictions(rows)
    assert systems["oracle"] == [row["reference"] for row in rows]
    assert systems["rotated"] == ["d2-u2", "d1-u3", "d1-u2", "d2-u1", "d1-u1"]
    assert systems["same_for_all"] == ["d2-u1", "d1-u1", "d1-u1", "d2-u1", "d1-u1"]


def test_perseval_checks_by_hand() -> None:
    perseval = {
        "oracle": {"d1": 0.9, "d2": 0.4},
        "rotated": {"d1": 0.1, "d2": 0.5},
        "same_for_all": {"d1": 0.2, "d2": 0.1},
    }
    degress = {"same_for_all": {"d1": 0.01, "d2": 0.05}}  # 0.05 is not below the bound
    shuffled = {"oracle": (0.5, 0.5), "rotated": (0.25, 0.25 + 2**-54)}  # the last bit differs: not the same
    assert P.tally(P.perseval_checks(perseval, degress, shuffled)) == [
        ("oracle highest PerSEval (per document)", 2, 1),
        ("rotation lowers PerSEval (per document)", 2, 1),
        ("same summary for all: DEGRESS < 0.05 (per document)", 2, 1),
        ("shuffled rows: the same system PerSEval exactly", 2, 1),
    ]


@pytest.mark.parametrize("module", [P, cases_module], ids=lambda m: m.__name__)
def test_docstring_examples_run(module) -> None:
    result = doctest.testmod(module)
    assert result.failed == 0
    assert result.attempted > 0


# --- case files ------------------------------------------------------------------------------------------------------
def test_every_shipped_case_file_loads() -> None:
    for name in CASE_FIELDS:
        rows = load_cases(name)
        assert rows, name
        assert all(set(CASE_FIELDS[name]) <= set(row) for row in rows)
    assert (CASES_DIR / "README.md").is_file()


@pytest.mark.parametrize(
    ("name", "line", "message"),
    [
        ("coherence.jsonl", {"id": "c", "source": "S"}, r"coherence.jsonl:1: missing keys \['summary'\]"),
        ("coherence.jsonl", {"id": "c", "source": "S", "summary": " "}, r"\['summary'\] must not be empty"),
        ("style.jsonl", {"id": "s", "persona": "p", "genre": "sport", "text": "t"}, r"genre = 'sport'; allowed"),
        ("vert.jsonl", {"id": "v", "reference": "r", "paraphrase": "p", "unrelated": "u", "edits": []}, "'edits'"),
        (
            "vert.jsonl",
            {"id": "v", "reference": "r", "paraphrase": "p", "unrelated": "u", "edits": [{"kind": "roles"}]},
            r"vert.jsonl:1: edits\[0\]: missing keys \['text'\]",
        ),
    ],
)
def test_malformed_case_lines_are_named(tmp_path: Path, name: str, line: dict, message: str) -> None:
    (tmp_path / name).write_text(json.dumps(line) + "\n", encoding="utf-8")
    with pytest.raises(ValueError, match=message):
        load_cases(name, tmp_path)


def test_repeated_ids_unknown_files_and_empty_files(tmp_path: Path) -> None:
    line = json.dumps({"id": "c1", "source": "S", "summary": "A. B."})
    (tmp_path / "coherence.jsonl").write_text(f"{line}\n{line}\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"coherence\.jsonl:2: c1 appears twice"):
        load_cases("coherence.jsonl", tmp_path)
    (tmp_path / "coherence.jsonl").write_text("\n", encoding="utf-8")
    with pytest.raises(ValueError, match="no case"):
        load_cases("coherence.jsonl", tmp_path)
    with pytest.raises(ValueError, match="not a validity case file"):
        load_cases("judge.jsonl")
    with pytest.raises(FileNotFoundError):
        load_cases("vert.jsonl", tmp_path)


def test_limits_keep_the_first_cases_of_each_group() -> None:
    rows = [{"document_id": d, "user_id": u} for d in ("d1", "d2", "d3") for u in ("u1", "u2")]
    assert first_documents(rows, 2) == rows[:4]
    assert first_documents(rows, None) == rows
    assert first_cases(rows, 1, lambda row: row["user_id"]) == rows[:2]


# --- methods --------------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class ToyParams(Params):
    mode: str = option("a", "a toy choice", choices=("a", "b"))
    flag: bool = option(False, "a toy flag")


def test_a_method_is_measured_only_when_its_option_exists() -> None:
    assert method_available(Method("toy", "b", {"mode": "b"}, ToyParams))
    assert method_available(Method("toy", "flag", {"flag": True}, ToyParams))
    assert not method_available(Method("toy", "c", {"mode": "c"}, ToyParams))  # a choice not (yet) there
    assert not method_available(Method("toy", "new", {"new_option": 1}, ToyParams))  # an option not (yet) there
    assert method_available(Method("toy", "rouge", {"distance": "rougeL"}))
    assert not method_available(Method("toy", "nope", {"distance": "no-such-distance"}))


def test_each_metric_lists_its_default_first() -> None:
    for metric in METRICS:
        roles = [m.role for m in METHODS if m.metric == metric]
        assert roles[0] == "default", metric
        assert roles.count("default") == 1, metric
    assert {m.metric for m in METHODS} == set(METRICS)


def test_bad_arguments_are_named() -> None:
    with pytest.raises(ValueError, match=r"'bleu' is not in the validity suite; allowed: \['vert'"):
        run_validity(["bleu"])
    with pytest.raises(ValueError, match=r"methods\['perseval'\]: 'bleu' is not a method of the suite"):
        run_validity(["perseval"], {"perseval": ["bleu"]})
    with pytest.raises(ValueError, match="methods names 'vert', which is not among the metrics measured"):
        run_validity(["perseval"], {"vert": ["original"]})
    with pytest.raises(ValueError, match="limit"):
        run_validity(["perseval"], limit=0)


# --- the report ------------------------------------------------------------------------------------------------------
def _toy_report() -> ValidityReport:
    methods = (
        MeasuredMethod("m", "base", {}, "default"),
        MeasuredMethod("m", "new", {"x": True}, "variant"),
        MeasuredMethod("m", "other", {"distance": "rougeL"}, "reference"),
    )
    results = (
        PropertyResult("m", "base", "a > b", 4, 1),
        PropertyResult("m", "base", "DEGRESS ≈ 0", 2, 2),
        PropertyResult("m", "new", "a > b", 4, 3),
        PropertyResult("m", "new", "DEGRESS ≈ 0", 2, 2),
        PropertyResult("m", "other", "a > b", 4, 2),
        PropertyResult("m", "other", "DEGRESS ≈ 0", 2, 0),
    )
    return ValidityReport(results, methods, {"m.jsonl": "00"}, None, "0.1.0", ("m gone",))


def test_report_table_and_json_round_trip() -> None:
    report = _toy_report()
    assert report.table("m") == [
        {"property": "a > b", "cases": 4, "base (default)": 0.25, "new": 0.75, "other (reference)": 0.5},
        {"property": "DEGRESS ≈ 0", "cases": 2, "base (default)": 1.0, "new": 1.0, "other (reference)": 0.0},
    ]
    assert [row["property"] for row in report.table("m", "DEGRESS")] == ["DEGRESS ≈ 0"]
    data = json.loads(json.dumps(report.as_dict()))
    assert ValidityReport.from_dict(data) == report
    with pytest.raises(ValueError, match="format"):
        ValidityReport.from_dict({**data, "format": 0})
    with pytest.raises(ValueError, match="'vert' was not measured"):
        report.table("vert")


# --- the runner and the command, on 2 cases per group of the shipped files ---------------------------------------
@pytest.fixture(scope="module")
def quick_report() -> ValidityReport:
    return run_validity(limit=2)


#: The cases counted per property on 2 cases per group of the shipped files (vert: 2 cases of 4 edits each;
#: style: 2 texts per persona and genre, 3 personas; quality: 2 cases per persona; perseval: 2 documents).
QUICK_CASES = {
    ("vert", "paraphrase > meaning edit: all kinds"): 8,
    ("vert", "paraphrase > unrelated"): 2,
    ("summary_eval", "coherence: good > repeated sentences"): 2,
    ("summary_eval", "completeness: good > one topic"): 2,
    ("persona_style", "recognition: all personas, in-genre"): 6,
    ("persona_style", "own-persona ranking: journalist, cross-genre"): 2 * 4,
    ("persona_quality", "good > wrong register: all personas"): 6,
    ("perseval", "rotation lowers PerSEval (per document)"): 2,
    ("perseval", "shuffled rows: the same system PerSEval exactly"): 3,
}


def test_quick_run_measures_every_available_method_and_property(quick_report: ValidityReport) -> None:
    assert quick_report.metrics() == list(METRICS)
    assert [m.name for m in quick_report.methods] == [m.name for m in METHODS if method_available(m)]
    assert quick_report.limit == 2
    assert set(quick_report.case_files) == set(CASE_FIELDS)
    for metric in METRICS:
        names = [m.name for m in quick_report.methods if m.metric == metric]
        properties = {(row.method, row.name) for row in quick_report.results if row.metric == metric}
        by_method = {name: {p for method, p in properties if method == name} for name in names}
        assert all(by_method[name] == by_method[names[0]] for name in names), metric  # every method, every property
    counts = {(row.metric, row.name): row.cases for row in quick_report.results}
    assert {key: counts[key] for key in QUICK_CASES} == QUICK_CASES
    assert all(0 <= row.passed <= row.cases for row in quick_report.results)


def test_command_prints_the_tables_and_writes_the_json(tmp_path: Path, capsys) -> None:
    assert command.main(["perseval", "--limit", "1", "--json", str(tmp_path / "v.json")]) == 0
    out = capsys.readouterr().out
    assert out.startswith("## perseval\n\n| property")
    assert "rougeL (default)" in out
    assert "| jsd " in out
    assert "a quick look" in out
    saved = ValidityReport.from_dict(json.loads((tmp_path / "v.json").read_text(encoding="utf-8")))
    assert saved == run_validity(["perseval"], limit=1)
    assert command.main(["perseval", "-m", "jsd", "--limit", "1", "-f", "csv"]) == 0
    assert capsys.readouterr().out.splitlines()[0] == "metric,method,property,cases,passed,fraction"
    with pytest.raises(InputError, match="exactly one METRIC"):
        command.main(["-m", "jsd"])
    with pytest.raises(InputError, match="not in the validity suite"):
        command.main(["bleu"])


# --- the committed report and the cards -------------------------------------------------------------------------
def committed_report() -> ValidityReport:
    return ValidityReport.from_dict(json.loads(REPORT.read_text(encoding="utf-8")))


def test_committed_report_is_a_full_run_on_the_shipped_cases() -> None:
    report = committed_report()
    assert report.limit is None
    assert report.case_files == {name: file_digest(CASES_DIR / name) for name in CASE_FIELDS}, (
        "the case files changed since docs/validity.json was measured: run `make validity`"
    )
    assert report.metrics() == list(METRICS)


@pytest.mark.parametrize("card", list(tables.CARDS))
def test_each_card_shows_the_committed_table(card: str) -> None:
    text = tables.card_path(card).read_text(encoding="utf-8")
    title = text.index("\n# Metric Card for")
    assert text.index("\n## ", title) == text.index("\n## Limitations (measured)\n"), f"{card}: Limitations first"
    assert tables.current_table(card) == tables.card_table(committed_report(), card), (
        f"metrics/{card}/README.md differs from docs/validity.json: run `python scripts/validity_tables.py`"
    )


def test_card_check_fails_on_a_changed_figure(tmp_path: Path) -> None:
    data = json.loads(REPORT.read_text(encoding="utf-8"))
    first = data["results"][0]
    first["passed"] = (first["passed"] + 1) % (first["cases"] + 1)  # another pass fraction of the first row
    (tmp_path / "changed.json").write_text(json.dumps(data), encoding="utf-8")
    assert tables.main([str(tmp_path / "changed.json"), "--check"]) == 1
    assert tables.main([str(REPORT), "--check"]) == 0
