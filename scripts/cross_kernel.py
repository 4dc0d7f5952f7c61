"""How far float32-network values move between CPU kernel paths: σ (BERTScore, InfoLM), per-summary PerSEval,
SummaryEval completeness / coherence.

The same float32 network rounds differently on another CPU: torch's vectorised kernels (softmax, layer norm,
GELU, reductions) follow ``ATEN_CPU_CAPABILITY`` (default / avx2 / avx512), MKL's GEMM follows the instruction
set it detects (``MKL_CBWR`` pins it), and oneDNN may take some operators. One machine can emulate every path
its own CPU supports; each path runs here in its own process, and its values are compared with the machine's
default path, item by item. The table printed (and ``--json``) is the one in ``docs/cross_cpu.md``.

``--quantities sigma_bertscore_fp64 perseval_fp64`` measures the ``dtype="float64"`` option instead.

Inputs: every pair of the PerSEval passes over the shipped ``data/personalization_sample`` (BERTScore with the
packaged MiniLM; InfoLM with a seeded random masked LM of the authors' bert-tiny shape, since the authors'
model is a Hub download), the per-summary PerSEval of each of its models with ``distance="bertscore"``, and the
SummaryEval completeness and coherence of the pairs in ``tests/golden/summary_eval_original.json``.

    python scripts/cross_kernel.py                      # every path this CPU supports
    python scripts/cross_kernel.py --json outputs/cross_kernel.json
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "data" / "personalization_sample" / "sample.jsonl"
GOLDEN = ROOT / "tests" / "golden" / "summary_eval_original.json"
#: The kernel paths: a name, the environment it runs under, whether oneDNN is switched off in the process.
PATHS: list[tuple[str, dict[str, str], bool]] = [
    ("default", {}, False),
    ("ATEN_CPU_CAPABILITY=avx2", {"ATEN_CPU_CAPABILITY": "avx2"}, False),
    ("ATEN_CPU_CAPABILITY=avx512", {"ATEN_CPU_CAPABILITY": "avx512"}, False),
    ("ATEN_CPU_CAPABILITY=default", {"ATEN_CPU_CAPABILITY": "default"}, False),
    ("MKL_CBWR=COMPATIBLE", {"MKL_CBWR": "COMPATIBLE"}, False),
    ("MKL_CBWR=SSE4_2", {"MKL_CBWR": "SSE4_2"}, False),
    ("MKL_CBWR=AVX", {"MKL_CBWR": "AVX"}, False),
    ("MKL_CBWR=AVX2", {"MKL_CBWR": "AVX2"}, False),
    ("oneDNN off", {}, True),
    ("ATEN default + MKL_CBWR=COMPATIBLE", {"ATEN_CPU_CAPABILITY": "default", "MKL_CBWR": "COMPATIBLE"}, False),
]


def _cpu_flags() -> set[str]:
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return set()
    line = next((line for line in text.splitlines() if line.startswith("flags")), "")
    return set(line.split(":", 1)[-1].split())


def supported(env: dict[str, str]) -> bool:
    """False for a path this CPU cannot run (torch would stop with an illegal instruction)."""
    flags = _cpu_flags()
    cap = env.get("ATEN_CPU_CAPABILITY")
    if cap == "avx512":
        return {"avx512f", "avx512bw", "avx512vl", "avx512dq"} <= flags
    if cap == "avx2" or env.get("MKL_CBWR") in {"AVX2"}:
        return "avx2" in flags
    return True


def _rows() -> list[dict]:
    return [json.loads(line) for line in SAMPLE.read_text(encoding="utf-8").splitlines() if line.strip()]


def perseval_pairs(rows: list[dict]) -> list[tuple[str, str]]:
    """Every σ pair of the PerSEval passes (references and each model), document by document."""
    pairs: list[tuple[str, str]] = []
    sides = ["reference", *rows[0]["predictions"]]
    for side in sides:
        for doc in dict.fromkeys(r["document_id"] for r in rows):
            group = [r for r in rows if r["document_id"] == doc]
            texts = [r["reference"] if side == "reference" else r["predictions"][side] for r in group]
            pairs += [(a, b) for a in texts for b in texts if a != b]
            pairs += [(a, group[0]["document"]) for a in texts]
    return list(dict.fromkeys(pairs))


def bert_tiny_shaped_mlm(path: Path, words: list[str]) -> str:
    """A seeded random masked LM of the authors' InfoLM shape (2 layers, H = 128, 2 heads)."""
    import torch
    from transformers import BertConfig, BertForMaskedLM, BertTokenizer

    (path / "vocab.txt").write_text("\n".join(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *words]) + "\n")
    BertTokenizer(str(path / "vocab.txt")).save_pretrained(path)
    torch.manual_seed(0)
    config = BertConfig(
        vocab_size=5 + len(words),
        hidden_size=128,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=512,
        max_position_embeddings=64,
        initializer_range=0.2,
    )
    BertForMaskedLM(config).save_pretrained(path)
    return str(path)


def child(out: Path, mlm: str, onednn_off: bool, quantities: list[str]) -> None:
    """Compute ``quantities`` on this process's kernel path; save them to ``out`` (npz)."""
    import torch

    if onednn_off:
        torch.backends.mkldnn.enabled = False
    values: dict[str, np.ndarray] = {}
    seconds: dict[str, float] = {}
    for name in quantities:
        start = time.process_time()
        values[name] = np.asarray(COMPUTE[name](mlm), dtype=float)
        seconds[name] = time.process_time() - start
    values["capability"] = np.array(torch.backends.cpu.get_cpu_capability())
    values["seconds"] = np.array(json.dumps(seconds))
    np.savez(out, **values)


def _sigma(dtype: str) -> np.ndarray:
    from persona_metrics.distances import BertScore

    return BertScore(dtype=dtype).pairwise(perseval_pairs(_rows()))


def _infolm(mlm: str) -> np.ndarray:
    from persona_metrics.distances import InfoLM

    return InfoLM(model=mlm, max_length=64).pairwise(perseval_pairs(_rows()))


def _perseval(dtype: str) -> np.ndarray:
    import warnings

    from persona_metrics.personalization import score_personalization

    rows = _rows()
    refs, docs, ids = ([r[k] for r in rows] for k in ("reference", "document", "document_id"))
    per_summary = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the sample's single-reference documents
        for model in rows[0]["predictions"]:
            preds = [r["predictions"][model] for r in rows]
            options = {"dtype": dtype}
            result = score_personalization(preds, refs, docs, ids, distance="bertscore", distance_options=options)
            per_summary.append(np.array(result.per_summary("perseval"), dtype=float))
    return np.concatenate(per_summary)


def _summary_eval(name: str) -> np.ndarray:
    from persona_metrics.summary_eval import score_summary_eval

    golden = json.loads(GOLDEN.read_text(encoding="utf-8"))["pairs"]
    result = score_summary_eval([p["summary"] for p in golden], [p["source"] for p in golden])
    return np.asarray(getattr(result, name), dtype=float)


#: What each quantity is computed by (from the path to the test masked LM).
COMPUTE = {
    "sigma_bertscore": lambda mlm: _sigma("float32"),
    "sigma_infolm": _infolm,
    "perseval": lambda mlm: _perseval("float32"),
    "completeness": lambda mlm: _summary_eval("completeness"),
    "coherence": lambda mlm: _summary_eval("coherence"),
    "sigma_bertscore_fp64": lambda mlm: _sigma("float64"),
    "perseval_fp64": lambda mlm: _perseval("float64"),
}


def _max_shift(a: np.ndarray, b: np.ndarray) -> tuple[float, int]:
    both = ~(np.isnan(a) & np.isnan(b))
    diff = np.abs(a[both] - b[both])
    return float(diff.max()) if diff.size else 0.0, int(np.count_nonzero(diff))


def run_paths(mlm: str, tmp: Path, quantities: list[str]) -> list[dict]:
    """Run every supported path in its own process and compare its values with the default path's."""
    results: list[dict] = []
    base: dict[str, np.ndarray] | None = None
    for name, extra, onednn_off in PATHS:
        if not supported(extra):
            results.append({"path": name, "supported": False})
            continue
        out = tmp / f"path{len(results)}.npz"
        env = {k: v for k, v in os.environ.items() if k not in {"ATEN_CPU_CAPABILITY", "MKL_CBWR"}}
        env.update(extra)
        argv = [sys.executable, __file__, "--child", str(out), "--mlm", mlm, "--quantities", *quantities]
        subprocess.run([*argv, *(["--onednn-off"] if onednn_off else [])], check=True, env=env)
        with np.load(out) as npz:
            got = {k: npz[k] for k in npz.files}
        base = base or got
        row: dict = {"path": name, "supported": True, "capability": str(got["capability"])}
        row["seconds"] = json.loads(str(got["seconds"]))
        for q in quantities:
            shift, moved = _max_shift(got[q], base[q])
            row[q] = {"max_abs_shift": shift, "moved": moved, "of": int(got[q].size)}
        results.append(row)
    return results


def table(results: list[dict], quantities: list[str]) -> str:
    """The markdown table of ``docs/cross_cpu.md``: per path and quantity, max |Δ| from the default path (how many
    values moved of how many), and the CPU seconds of each quantity."""
    head = "| kernel path | ATen | " + " | ".join(f"{q}: max abs Δ (moved/n)" for q in quantities)
    lines = [head + " | CPU-s per quantity |", "|" + "---|" * (len(quantities) + 3)]
    for row in results:
        if not row["supported"]:
            lines.append(f"| {row['path']} | not on this CPU |" + " |" * (len(quantities) + 1))
            continue
        cells = [f"{row[q]['max_abs_shift']:.2e} ({row[q]['moved']}/{row[q]['of']})" for q in quantities]
        secs = " / ".join(f"{row['seconds'][q]:.1f}" for q in quantities)
        lines.append(f"| {row['path']} | {row['capability']} | " + " | ".join(cells) + f" | {secs} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Run the comparison (or, with ``--child``, one path's computation)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--mlm", help=argparse.SUPPRESS)
    parser.add_argument("--onednn-off", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--json", type=Path, help="also write the figures to this JSON file")
    parser.add_argument(
        "--quantities", nargs="+", choices=list(COMPUTE), default=list(COMPUTE), help="what to compare (default all)"
    )
    args = parser.parse_args(argv)
    if args.child:
        child(args.child, args.mlm, args.onednn_off, args.quantities)
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        words = sorted({w.lower().strip(".,;:'\"") for r in _rows() for w in r["reference"].split()})[:200]
        mlm = bert_tiny_shaped_mlm(Path(tmp), words)
        results = run_paths(mlm, Path(tmp), args.quantities)
    sys.stdout.write(table(results, args.quantities) + "\n")
    sys.stdout.write(f"CPU flags: avx2={'avx2' in _cpu_flags()} avx512f={'avx512f' in _cpu_flags()}\n")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
