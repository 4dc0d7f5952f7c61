"""One ``Seq2SeqTrainer.evaluate`` of 31 rows with eval batch 5, run alone or under ``torch.distributed.run``.

    python tests/distributed/trainer_eval.py OUT            # one process
    python -m torch.distributed.run --standalone --nproc_per_node 2 tests/distributed/trainer_eval.py OUT

With 2 processes the Trainer pads the evaluation to 40 rows (4 steps x 2 ranks x 5) and hands all 40 to
``compute_metrics`` on every rank. Each rank writes ``OUT/rank<R>.json``: the metrics of a whole-set hook
(perseval with jsd and persona_style, merged) and of a streaming hook (``batch_eval_metrics=True``), the number
of rows each hook received and the ranks that ran the metric (``computed_on``). Used by tests/test_hooks.py.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import datasets
from test_hooks import DOCS, ROWS, make_tokenizer, make_trainer

import persona_metrics.integrations.distributed as distributed
from persona_metrics.integrations.hooks import make_compute_metrics

NUM_ROWS = 31
# a row tag in every input makes each row's generated summary its own, so a misaligned row changes the scores
TAGS = [f"row{i}" for i in range(NUM_ROWS)]


def eval_dataset(tok):
    rows = [ROWS[(i * 3) % len(ROWS)] for i in range(NUM_ROWS)]
    columns = {
        "document": [DOCS[r[0]] for r in rows],
        "persona": [r[2] for r in rows],
        "summary": [r[3] for r in rows],
        "tag": TAGS,
    }

    def encode(batch):
        enc = tok([f"{t} {p} {d}" for t, p, d in zip(batch["tag"], batch["persona"], batch["document"], strict=True)])
        enc["labels"] = tok(batch["summary"])["input_ids"]
        return enc

    return datasets.Dataset.from_dict(columns).map(encode, batched=True, remove_columns=["tag"])


def main(out: Path) -> None:
    tok = make_tokenizer(TAGS)
    ds = eval_dataset(tok)
    computed_on = []
    real_run_on_main = distributed.run_on_main

    def recording_run_on_main(fn):  # records which ranks call the metric itself
        def wrapped():
            computed_on.append(distributed.rank_and_size()[0])
            return fn()

        return real_run_on_main(wrapped)

    import persona_metrics.integrations.hooks as hooks

    hooks.run_on_main = recording_run_on_main
    rows_seen = []
    whole = {
        "perseval": make_compute_metrics("perseval", tok, ds, distance="jsd"),
        "persona_style": make_compute_metrics("persona_style", tok, ds),
    }

    def compute_metrics(eval_pred):
        rows_seen.append(len(eval_pred.predictions))
        return {k: v for hook in whole.values() for k, v in hook(eval_pred).items()}

    whole_set = make_trainer(out, tok, ds, compute_metrics, eval_batch_size=5).evaluate()
    result = {"whole": whole_set, "rows_seen": rows_seen}
    stream = make_compute_metrics("perseval", tok, ds, streaming=True, distance="jsd")
    result["streaming"] = make_trainer(out, tok, ds, stream, batch_eval_metrics=True, eval_batch_size=5).evaluate()
    result["computed_on"] = sorted(set(computed_on))
    (out / f"rank{os.environ.get('RANK', '0')}.json").write_text(json.dumps(result))


if __name__ == "__main__":
    main(Path(sys.argv[1]))
