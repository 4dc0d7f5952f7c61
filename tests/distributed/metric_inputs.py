"""31 rows of inputs for every bundled metric, shared by the distributed test script and tests/test_distributed.py.

Written for this project: four short business-news documents, two or three readers each, and a model output per
row; predictions, references and personas are rotated differently so that a misaligned row changes the scores.
"""

from __future__ import annotations

from persona_metrics.integrations.distributed import (
    DegressMetric,
    PersevalMetric,
    PersonaQualityMetric,
    PersonaStyleMetric,
    SummaryEvalMetric,
    VertMetric,
)

DOCUMENTS = [
    "Harbor Foods raised its annual sales outlook on Tuesday after quarterly revenue rose 6% and the grocer said "
    "it would open two stores in Ohio.",
    "Shares of Delta Micro fell 9% after the chipmaker cut its margin forecast, citing weaker demand from phone "
    "makers.",
    "Northwind Bank reported record profit as higher interest rates lifted lending income, while bad loan "
    "provisions stayed flat.",
    "Orbit Air will buy 40 new jets from Skyline in a deal worth about 5 billion dollars to expand routes in Asia.",
]
REFERENCES = [
    "Harbor Foods raised its annual outlook as quarterly revenue grew 6%.",
    "Harbor Foods is on fire! Revenue up 6% and two new stores!",
    "Delta Micro shares fell 9% after the chipmaker cut its margin forecast.",
    "Ouch! Delta Micro dropped 9% on a weak forecast. Time to buy the dip?",
    "Northwind Bank delivered record profit on stronger net interest income.",
    "Northwind Bank posted a record profit on higher rates, the lender said.",
    "Orbit Air committed to 40 Skyline aircraft, a 5 billion dollar order.",
    "Orbit Air agreed to buy 40 Skyline jets for about 5 billion dollars.",
]
OUTPUTS = [
    "Harbor Foods raised its outlook and will open two stores.",
    "Great news: Harbor Foods grows sales by 6%!",
    "Delta Micro shares slid 9% on a margin warning.",
    "Delta Micro cut its forecast; phone makers buy fewer chips.",
    "Northwind Bank earned a record profit on higher rates.",
    "Record year for Northwind Bank as lending income climbs.",
    "Orbit Air orders 40 Skyline jets worth about 5 billion dollars.",
    "Orbit Air expands in Asia with a big Skyline order!",
]
PERSONAS = ["formal_analyst", "enthusiast", "journalist"]
NUM_ROWS = 31


def inputs(name: str) -> dict[str, list[str]]:
    """The 31 rows of ``name``'s inputs (row i: document i % 4, reference and output rotated)."""
    references = [REFERENCES[(2 * (i % 4) + (i // 4) % 2)] for i in range(NUM_ROWS)]
    columns = {
        "predictions": [OUTPUTS[(3 * i + 1) % len(OUTPUTS)] for i in range(NUM_ROWS)],
        "references": references,
        "documents": [DOCUMENTS[i % 4] for i in range(NUM_ROWS)],
        "document_ids": [f"d{i % 4}" for i in range(NUM_ROWS)],
        "personas": [PERSONAS[i % 3] for i in range(NUM_ROWS)],
        "sources": [DOCUMENTS[i % 4] for i in range(NUM_ROWS)],
    }
    wanted = {
        "perseval": ("predictions", "references", "documents"),
        "degress": ("predictions", "references", "documents", "document_ids"),
        "persona_quality": ("predictions", "references", "personas"),
        "persona_style": ("predictions", "personas"),
        "vert": ("predictions", "references"),
        "summary_eval": ("predictions", "sources"),
    }[name]
    return {k: columns[k] for k in wanted}


#: Predictions replaced by empty generations in the empty-policy runs: "", whitespace only, and a text without a
#: word (empty for persona_style and persona_quality, whose library refuses it; a prediction like any other for the
#: rest). Row 17 is the first row of rank 1's contiguous shard, row 30 the last row.
EMPTY_PREDICTIONS = {2: "", 9: "   ", 17: "!!!", 30: ""}
#: The metrics whose library refuses a text without a word.
WORDLESS_UNDEFINED = ("persona_style", "persona_quality")


#: The classes run with empty generations under 2 processes: the two whose library refuses an empty text (scored 0
#: by the policy) and three that define it themselves. summary_eval takes the same path as perseval and vert (the
#: library's own score) and is left out: a second and third scoring of its 31 rows would double the test's time.
EMPTY_POLICY_CLASSES = ("persona_style", "persona_quality", "perseval", "degress", "vert")


def empty_rows(name: str) -> list[int]:
    """The rows of EMPTY_PREDICTIONS that are empty for metric ``name``."""
    return [i for i, text in EMPTY_PREDICTIONS.items() if not text.strip() or name in WORDLESS_UNDEFINED]


def inputs_with_empty(name: str) -> dict[str, list[str]]:
    """``inputs(name)`` with the predictions of EMPTY_PREDICTIONS."""
    columns = inputs(name)
    columns["predictions"] = [EMPTY_PREDICTIONS.get(i, text) for i, text in enumerate(columns["predictions"])]
    return columns


CLASSES = {
    "perseval": PersevalMetric,
    "degress": DegressMetric,
    "persona_quality": PersonaQualityMetric,
    "persona_style": PersonaStyleMetric,
    "vert": VertMetric,
    "summary_eval": SummaryEvalMetric,
}
OPTIONS = {
    "perseval": {"distance": "jsd", "return_per_summary": True},
    "degress": {"distance": "rougeL"},
    "persona_quality": {"return_per_item": True},
    "persona_style": {},
    "vert": {},
    "summary_eval": {},
}
