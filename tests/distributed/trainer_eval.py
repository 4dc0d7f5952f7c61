"""One ``Seq2SeqTrainer.evaluate`` of 31 rows with eval batch 5, run alone or under ``torch.distributed.run``.

    python tests/distributed/trainer_eval.py OUT            # one process
    python -m torch.distributed.run --standalone --nproc_per_node 2 tests/distributed/trainer_eval.py OUT

With 2 processes the Trainer pads the evaluation to 40 rows (4 steps x 2 ranks x 5) and hands all 40 to
``compute_metrics`` on every rank. Each rank writes ``OUT/rank<R>.json``: the metrics of a whole-set hook
(perseval with jsd and persona_style, merged) and of a streaming hook (``batch_eval_metrics=True``), the number
of rows each hook received and the ranks that ran the metric (``computed_on``). Used by tests/test_distributed.py.

Then the same 31 rows with an empty generation for rows 3, 17 and 30 (the model emits </s> first for them; row 3
is also among the Trainer's padding rows under 2 processes): a whole-set persona_style hook with the default
``empty="zero"`` and a streaming perseval hook with ``empty="skip"``. The rank also writes the texts generated
for the 31 rows and the empty-generation warnings it issued.
"""

from __future__ import annotations

import json
import os
import sys
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import datasets
from test_hooks import BLANK, DOCS, ROWS, blank_marked_generations, make_tokenizer, make_trainer

import persona_metrics.integrations.distributed as distributed
from persona_metrics.integrations.hooks import make_compute_metrics

NUM_ROWS = 31
# a row tag in every input makes each row's generated summary its own, so a misaligned row changes the scores
TAGS = [f"row{i}" for i in range(NUM_ROWS)]
#: Rows whose generation is empty in the second part.
EMPTY_ROWS = (3, 17, 30)


def eval_dataset(tok, marked=()):
    rows = [ROWS[(i * 3) % len(ROWS)] for i in range(NUM_ROWS)]
    columns = {
        "document": [DOCS[r[0]] for r in rows],
        "persona": [r[2] for r in rows],
        "summary": [r[3] for r in rows],
        "tag": TAGS,
    }

    def encode(batch):
        texts = [f"{t} {p} {d}" for t, p, d in zip(batch["tag"], batch["persona"], batch["document"], strict=True)]
        enc = tok(
            [f"{BLANK} {text}" if int(t[3:]) in marked else text for t, text in zip(batch["tag"], texts, strict=True)]
        )
        enc["labels"] = tok(batch["summary"])["input_ids"]
        return enc

    return datasets.Dataset.from_dict(columns).map(encode, batched=True, remove_columns=["tag"])


def decode(tok, ids):
    import numpy as np

    ids = np.where(ids != -100, ids, tok.pad_token_id)
    return [text.strip() for text in tok.batch_decode(ids, skip_special_tokens=True)]


def with_empty_generations(out: Path, tok) -> dict:
    """Evaluations where rows EMPTY_ROWS generate "": persona_style (zero, whole set), perseval (skip, streaming)."""
    ds = eval_dataset(tok, EMPTY_ROWS)
    marker = tok.convert_tokens_to_ids(BLANK)
    style = make_compute_metrics("persona_style", tok, ds)
    generated = []

    def compute_metrics(eval_pred):
        generated.extend(decode(tok, eval_pred.predictions)[:NUM_ROWS])
        return style(eval_pred)

    result = {}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        trainer = make_trainer(out, tok, ds, compute_metrics, eval_batch_size=5)
        blank_marked_generations(trainer.model, marker, tok.eos_token_id)
        result["zero"] = trainer.evaluate()
        stream = make_compute_metrics("perseval", tok, ds, streaming=True, empty="skip", distance="jsd")
        trainer = make_trainer(out, tok, ds, stream, batch_eval_metrics=True, eval_batch_size=5)
        blank_marked_generations(trainer.model, marker, tok.eos_token_id)
        result["skip"] = trainer.evaluate()
    result["generated"] = generated
    result["warnings"] = [str(w.message) for w in caught if "predictions are empty" in str(w.message)]
    return result


def main(out: Path) -> None:
    tok = make_tokenizer([*TAGS, BLANK])
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
    result["empty"] = with_empty_generations(out, tok)
    (out / f"rank{os.environ.get('RANK', '0')}.json").write_text(json.dumps(result))


if __name__ == "__main__":
    main(Path(sys.argv[1]))
