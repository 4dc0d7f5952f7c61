"""BERTScore rescaling baselines (bert_score's method and file format) from text the project ships.

bert_score's baselines are the mean P / R / F of BERTScore over random pairs of *unrelated* sentences, per
layer; rescaled scores are ``(s − b) / (1 − b)`` (:func:`persona_metrics.persona.content.bertscore_f1`).
bert_score ships none for the packaged all-MiniLM-L6-v2, so the project computes one:

1. :func:`shipped_texts`: every persona sample (``persona_metrics/persona/personas/*.txt``) and every string
   value in ``data/**/*.json(l)``, each tagged with its source;
2. :func:`unrelated_pairs`: the texts are split into sentences (Punkt), sentences of < 5 words are dropped, the
   rest de-duplicated and sorted, then shuffled with ``seed``; each sentence is paired with the sentence
   ``len/2`` positions later, and pairs from the same source are skipped, so partners are unrelated;
3. :func:`compute_bertscore_baseline`: for each layer, mean P, R, F over the pairs (no idf);
4. :func:`write_baseline`: ``LAYER,P,R,F`` (bert_score's format) and a provenance ``.json`` next to it.

The inputs are explicit: the exact pairs of steps 1–2 are shipped beside the baseline
(``bertscore_baseline_minilm.pairs.jsonl``, :func:`pairs_file`), and the ``.json`` record holds their SHA-256.
Recomputing the baseline reads that pairs file (:func:`read_inputs`), never the persona folder or the data
samples, so adding or editing a persona file leaves the baseline, and every rescaled number, unchanged. Drawing
a new pair set (steps 1–2 again) is a deliberate act: ``python scripts/compute_bertscore_baseline.py --data data``.
"""

from __future__ import annotations

import csv
import hashlib
import json
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from importlib import resources as importlib_resources
from pathlib import Path

from persona_metrics.progress import progress_bar
from persona_metrics.significance import check_seed

#: Sentences shorter than this many words are left out (too short to be "a sentence").
MIN_WORDS = 5
#: Fewer unrelated pairs than this make a baseline too noisy to ship.
MIN_PAIRS = 100
#: The layers of the packaged MiniLM.
MINILM_LAYERS: tuple[int, ...] = (1, 2, 3, 4, 5, 6)


@dataclass(frozen=True)
class BaselineRow:
    """Mean BERTScore precision, recall and F1 of unrelated pairs at one layer."""

    layer: int
    precision: float
    recall: float
    f1: float


def _strings(value: object) -> list[str]:
    """Every string inside a decoded JSON value, depth first."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def _data_texts(data_dir: Path) -> list[tuple[str, str]]:
    """(source, text) for every string in ``data_dir/**/*.json`` (one source per file) and ``*.jsonl`` (per line)."""
    texts: list[tuple[str, str]] = []
    for path in sorted(data_dir.rglob("*")):
        if path.suffix == ".jsonl":
            for i, line in enumerate(path.read_text(encoding="utf-8").splitlines()):
                if line.strip():
                    texts += [(f"{path}#{i}", s) for s in _strings(json.loads(line))]
        elif path.suffix == ".json":
            texts += [(str(path), s) for s in _strings(json.loads(path.read_text(encoding="utf-8")))]
    return texts


def shipped_texts(data_dir: str | Path | None = None, persona_dir: str | Path | None = None) -> list[tuple[str, str]]:
    """(source id, text) for every persona sample and every string of the data samples, in a fixed order.

    Args:
        data_dir: a folder searched recursively for ``*.json`` / ``*.jsonl``; ``None``: no data texts.
        persona_dir: the persona samples (``*.txt``, samples separated by ``---`` lines); default the packaged
            ``persona_metrics/persona/personas``.
    """
    personas = Path(
        str(importlib_resources.files("persona_metrics.persona") / "personas") if persona_dir is None else persona_dir
    )
    texts: list[tuple[str, str]] = []
    for path in sorted(personas.glob("*.txt")):
        texts += [(f"{path.name}#{i}", t) for i, t in enumerate(path.read_text(encoding="utf-8").split("\n---\n"))]
    return texts + (_data_texts(Path(data_dir)) if data_dir is not None else [])


def unrelated_pairs(
    texts: Iterable[tuple[str, str]], seed: int, min_words: int = MIN_WORDS
) -> tuple[list[tuple[str, str]], int]:
    """Pairs of sentences from different sources (step 2 of the module docstring).

    Returns:
        The pairs and the number of distinct sentences they were drawn from.

    Raises:
        TypeError / ValueError: ``seed`` not an int from 0 to 2**64 - 1
            (:func:`~persona_metrics.significance.check_seed`).
    """
    from persona_metrics.resources import sent_tokenize

    seed = check_seed(seed)

    sentences: dict[str, str] = {}
    for source, text in texts:
        for sent in sent_tokenize(text):
            if len(sent.split()) >= min_words:
                sentences.setdefault(sent.strip(), source)
    ordered = sorted(sentences)
    random.Random(seed).shuffle(ordered)
    half = len(ordered) // 2
    partners = ordered[half:] + ordered[:half]
    pairs = [(a, b) for a, b in zip(ordered, partners, strict=True) if sentences[a] != sentences[b]]
    return pairs, len(ordered)


def compute_bertscore_baseline(
    pairs: Sequence[tuple[str, str]],
    model: str | None = None,
    layers: Iterable[int] = MINILM_LAYERS,
    progress: bool | None = None,
) -> list[BaselineRow]:
    """Mean BERTScore P, R, F1 (no idf, no rescaling) of ``pairs`` at each layer of ``layers``.

    Args:
        pairs: ``(reference, candidate)`` sentence pairs (non-empty texts).
        model: a local model directory or Hub id; ``None``: the packaged all-MiniLM-L6-v2.
        layers: the hidden layers to compute (1-based, as bert_score's ``num_layers``).
        progress: show a progress bar over the layers (``None``: the library's switch,
            :mod:`persona_metrics.progress`).

    Returns:
        One :class:`BaselineRow` per layer, in the order given.

    Raises:
        ValueError: no pair, an empty text, or a layer the model does not have.
    """
    from persona_metrics.distances import BertScore

    if not pairs:
        raise ValueError("no sentence pair to compute a baseline from")
    rows = []
    for layer in progress_bar(list(layers), desc="bertscore baseline: layers", unit="layer", enabled=progress):
        p, r, f = BertScore(model=model, num_layers=layer).precision_recall_f1(pairs)
        rows.append(BaselineRow(layer, float(p.mean()), float(r.mean()), float(f.mean())))
    return rows


def pairs_digest(pairs: Sequence[tuple[str, str]]) -> str:
    """SHA-256 of the pairs (tab between partners, newline between pairs): what a baseline was computed from."""
    return hashlib.sha256("\n".join(f"{a}\t{b}" for a, b in pairs).encode()).hexdigest()


def pairs_file(baseline: str | Path) -> Path:
    """The pairs file of a baseline file: ``NAME.pairs.jsonl`` beside ``NAME.tsv``."""
    return Path(baseline).with_suffix(".pairs.jsonl")


def write_pairs(pairs: Sequence[tuple[str, str]], path: str | Path) -> None:
    """Write ``pairs`` as JSON lines, one ``[reference, candidate]`` list per line."""
    lines = [json.dumps([a, b], ensure_ascii=False) for a, b in pairs]
    Path(path).write_text("\n".join(lines) + "\n", encoding="utf-8")


def read_pairs(path: str | Path) -> list[tuple[str, str]]:
    """The pairs of a pairs file (:func:`write_pairs`).

    Raises:
        FileNotFoundError: no such file.
        ValueError: a line that is not a list of two non-empty strings (``FILE:LINE`` named).
    """
    pairs: list[tuple[str, str]] = []
    for number, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), start=1):
        try:
            pair = json.loads(line)
        except json.JSONDecodeError as err:
            raise ValueError(f"{path}:{number}: not JSON ({err})") from err
        if not (isinstance(pair, list) and len(pair) == 2 and all(isinstance(t, str) and t.strip() for t in pair)):
            raise ValueError(f"{path}:{number}: expected a list of two non-empty strings, got {line[:80]!r}")
        pairs.append((pair[0], pair[1]))
    return pairs


def read_inputs(baseline: str | Path) -> tuple[list[tuple[str, str]], dict]:
    """The pairs a baseline file was computed from, checked against its ``.json`` record, and the record.

    Raises:
        ValueError: the pairs file does not match the record (count or SHA-256): the message says how to
            recompute the baseline from the pairs, or to draw new pairs.
        FileNotFoundError: the pairs file or the record is missing.
    """
    record_path = Path(baseline).with_suffix(".json")
    record = json.loads(record_path.read_text(encoding="utf-8"))
    pairs = read_pairs(pairs_file(baseline))
    if record.get("pairs") != len(pairs) or record.get("pairs_sha256") != pairs_digest(pairs):
        raise ValueError(
            f"{pairs_file(baseline)} ({len(pairs)} pairs, SHA-256 {pairs_digest(pairs)[:12]}) is not what "
            f"{record_path.name} records ({record.get('pairs')} pairs, {str(record.get('pairs_sha256'))[:12]}): "
            "restore the pairs file, or draw new pairs and recompute the baseline with "
            "`python scripts/compute_bertscore_baseline.py --data data` (every rescaled BERTScore moves)"
        )
    return pairs, record


def write_baseline(rows: Sequence[BaselineRow], path: str | Path, record: dict) -> None:
    """Write ``LAYER,P,R,F`` (8 decimals, bert_score's format) to ``path`` and ``record`` to ``path.json``."""
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(["LAYER", "P", "R", "F"])
        writer.writerows([(r.layer, f"{r.precision:.8f}", f"{r.recall:.8f}", f"{r.f1:.8f}") for r in rows])
    out.with_suffix(".json").write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
