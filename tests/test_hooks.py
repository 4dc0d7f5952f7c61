"""persona_metrics.integrations.hooks: compute_metrics for Seq2SeqTrainer (whole-set and batch_eval_metrics streaming).

A tiny randomly initialised T5 and a word-level tokenizer built here from the texts below (no hub download) are
trained for a few steps; the metric values must appear in the Trainer's evaluation logs. Golden values come from
an independent source: ``persona_metrics.load(name).compute(...)`` called directly on the same strings.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import persona_metrics
from persona_metrics import PersonaMetricsWarning
from persona_metrics.integrations.hooks import make_compute_metrics, numbers_only
from persona_metrics.metric_registry import METRIC_SPECS

DOCS = {
    "harbor": "Harbor Foods raised its annual sales outlook on Tuesday after quarterly revenue rose 6% and the grocer "
    "said it would open two stores in Ohio.",
    "delta": "Shares of Delta Micro fell 9% after the chipmaker cut its margin forecast, citing weaker demand from "
    "phone makers.",
    "northwind": "Northwind Bank reported record profit as higher interest rates lifted lending income, while bad "
    "loan provisions stayed flat.",
    "orbit": "Orbit Air will buy 40 new jets from Skyline in a deal worth about 5 billion dollars to expand routes "
    "in Asia.",
}
# (document, user, persona, that user's own summary): 4 documents x 2 users, so every document has two different
# users' references (perseval/degress exclude a document with a single reference).
ROWS = [
    ("harbor", "u1", "formal_analyst", "Harbor Foods raised its annual outlook as quarterly revenue grew 6%."),
    ("harbor", "u3", "enthusiast", "Harbor Foods is on fire! Revenue up 6% and two new stores!"),
    ("delta", "u2", "journalist", "Delta Micro shares fell 9% after the chipmaker cut its margin forecast."),
    ("delta", "u3", "enthusiast", "Ouch! Delta Micro dropped 9% on a weak forecast. Time to buy the dip?"),
    ("northwind", "u1", "formal_analyst", "Northwind Bank delivered record profit on stronger net interest income."),
    ("northwind", "u2", "journalist", "Northwind Bank posted a record profit on higher rates, the lender said."),
    ("orbit", "u1", "formal_analyst", "Orbit Air committed to 40 Skyline aircraft, a 5 billion dollar order."),
    ("orbit", "u2", "journalist", "Orbit Air agreed to buy 40 Skyline jets for about 5 billion dollars."),
]
COLUMNS = {
    "document": [DOCS[r[0]] for r in ROWS],
    "user": [r[1] for r in ROWS],
    "persona": [r[2] for r in ROWS],
    "summary": [r[3] for r in ROWS],
    "doc_id": [r[0] for r in ROWS],
    # an explicit grouping that differs from grouping by text: the Orbit rows become two single-reference
    # documents, which perseval/degress exclude (3 documents scored, 2 excluded)
    "group": [r[0] for r in ROWS[:6]] + ["orbit-1", "orbit-2"],
}
SUMMARIES = COLUMNS["summary"]
# Shorter "model outputs" for the unit tests (every word is in the tokenizer's vocabulary).
PREDICTIONS = [
    "Harbor Foods raised its outlook.",
    "Harbor Foods is on fire!",
    "Delta Micro shares fell 9%",
    "Delta Micro dropped 9% on a weak forecast.",
    "Northwind Bank reported record profit",
    "Northwind Bank posted a record profit, the lender said.",
    "Orbit Air will buy 40 new jets",
    "Orbit Air agreed to buy 40 Skyline jets",
]
PERSONALIZATION_KEYS = {"perseval": ("perseval", "degress", "edp"), "degress": ("degress", "egises", "p_accuracy")}


def make_tokenizer(extra_words=()):
    """A WordLevel tokenizer over the words of ROWS and PREDICTIONS (and ``extra_words``): whitespace split, so
    every one of those texts comes back unchanged from decode(encode(text))."""
    from tokenizers import Tokenizer, models, pre_tokenizers, processors
    from transformers import PreTrainedTokenizerFast

    texts = [*DOCS.values(), *COLUMNS["persona"], *SUMMARIES, *PREDICTIONS, *extra_words]
    words = sorted({w for text in texts for w in text.split()})
    vocab = {tok: i for i, tok in enumerate(["<pad>", "</s>", "<unk>", *words])}
    backend = Tokenizer(models.WordLevel(vocab, unk_token="<unk>"))
    backend.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    backend.post_processor = processors.TemplateProcessing(single="$A </s>", special_tokens=[("</s>", 1)])
    return PreTrainedTokenizerFast(
        tokenizer_object=backend,
        pad_token="<pad>",
        eos_token="</s>",
        unk_token="<unk>",
        clean_up_tokenization_spaces=False,
    )


@pytest.fixture(scope="module")
def tok():
    return make_tokenizer()


@pytest.fixture(scope="module")
def eval_ds(tok):
    import datasets

    ds = datasets.Dataset.from_dict(COLUMNS)

    def encode(batch):
        enc = tok([f"{p} {d}" for p, d in zip(batch["persona"], batch["document"], strict=True)])
        enc["labels"] = tok(batch["summary"])["input_ids"]
        return enc

    return ds.map(encode, batched=True)


def tiny_t5(tok):
    """A randomly initialised 1-layer T5 (d_model 16). A larger init scale makes its outputs differ between inputs
    (so misaligned side columns would change the scores); generation never starts with </s> and never emits
    <pad> or <unk>, so every generated summary has at least one word (persona_style rejects empty summaries)."""
    import torch
    from transformers import T5Config, T5ForConditionalGeneration

    torch.manual_seed(0)
    config = T5Config(
        vocab_size=len(tok),
        d_model=16,
        d_kv=8,
        d_ff=32,
        num_layers=1,
        num_decoder_layers=1,
        num_heads=2,
        relative_attention_num_buckets=8,
        pad_token_id=tok.pad_token_id,
        eos_token_id=tok.eos_token_id,
        decoder_start_token_id=tok.pad_token_id,
        initializer_factor=3.0,
    )
    model = T5ForConditionalGeneration(config)
    model.generation_config.begin_suppress_tokens = [tok.eos_token_id]
    model.generation_config.suppress_tokens = [tok.pad_token_id, tok.unk_token_id]
    return model


def make_trainer(tmp_path, tok, eval_ds, compute_metrics, batch_eval_metrics=False, eval_batch_size=3, **args):
    from transformers import DataCollatorForSeq2Seq, Seq2SeqTrainer, Seq2SeqTrainingArguments

    model = tiny_t5(tok)
    training_args = Seq2SeqTrainingArguments(
        output_dir=str(tmp_path / "out"),
        per_device_train_batch_size=4,
        per_device_eval_batch_size=eval_batch_size,  # 8 rows, 3 by default: batches of 3, 3, 2
        learning_rate=1e-3,
        predict_with_generate=True,
        generation_max_length=6,
        batch_eval_metrics=batch_eval_metrics,
        report_to=[],
        use_cpu=True,
        save_strategy="no",
        disable_tqdm=True,
        seed=0,
        **args,
    )
    return Seq2SeqTrainer(
        model=model,
        args=training_args,
        train_dataset=eval_ds,
        eval_dataset=eval_ds,
        data_collator=DataCollatorForSeq2Seq(tok, model=model),
        processing_class=tok,
        compute_metrics=compute_metrics,
    )


def pad_ids(tok, texts, width):
    """Token ids of ``texts`` padded with -100 to ``width`` (as the Trainer pads generated ids across batches)."""
    rows = tok(texts)["input_ids"]
    return np.array([ids + [-100] * (width - len(ids)) for ids in rows], dtype=np.int64)


def eval_pred(tok, predictions, references=None, width=24):
    from transformers import EvalPrediction

    labels = None if references is None else pad_ids(tok, references, width)
    return EvalPrediction(predictions=pad_ids(tok, predictions, width), label_ids=labels)


def direct(name, **kwargs):
    # Independent source of golden values: the evaluate module itself, on the same strings.
    return persona_metrics.load(name).compute(**kwargs)


def assert_numbers_match(result, expected, keys):
    for key in keys:
        assert result[key] == pytest.approx(expected[key], rel=1e-9, abs=1e-12), key


# ---------------------------------------------------------------- training: values in the evaluation logs


@pytest.mark.parametrize(
    ("name", "options", "keys"),
    [
        ("persona_style", {}, ("style_similarity",)),
        ("perseval", {"distance": "rougeL"}, PERSONALIZATION_KEYS["perseval"]),
    ],
)
def test_training_logs_metric_values(tmp_path, tok, eval_ds, name, options, keys) -> None:
    hook = make_compute_metrics(name, tok, eval_ds, **options)
    trainer = make_trainer(tmp_path, tok, eval_ds, hook, max_steps=4, eval_strategy="steps", eval_steps=2)
    trainer.train()
    evals = [entry for entry in trainer.state.log_history if "eval_loss" in entry]
    assert [entry["step"] for entry in evals] == [2, 4]
    for entry in evals:
        for key in keys:
            assert math.isfinite(entry[f"eval_{key}"]), (key, entry)
        assert not any(isinstance(v, str | list | dict) for v in entry.values()), entry
        assert "eval_scores" not in entry
    if name == "perseval":
        assert evals[-1]["eval_num_documents"] == 4
        assert evals[-1]["eval_num_excluded_documents"] == 0


def test_trainer_values_match_direct_compute(tmp_path, tok, eval_ds) -> None:
    trainer = make_trainer(tmp_path, tok, eval_ds, make_compute_metrics("perseval", tok, eval_ds))
    out = trainer.predict(eval_ds)
    ids = np.where(out.predictions != -100, out.predictions, tok.pad_token_id)
    decoded = [t.strip() for t in tok.batch_decode(ids, skip_special_tokens=True)]
    assert all(decoded)
    expected = direct("perseval", predictions=decoded, references=SUMMARIES, documents=COLUMNS["document"])
    assert_numbers_match({k.removeprefix("test_"): v for k, v in out.metrics.items()}, expected, expected)


@pytest.mark.filterwarnings("ignore:.*single reference:persona_metrics.PersonaMetricsWarning")
@pytest.mark.parametrize(
    ("name", "columns", "options"),
    [
        ("persona_style", None, {}),
        ("perseval", None, {"distance": "rougeL"}),
        ("degress", {"document_ids": "group"}, {"distance": "jsd"}),
    ],
)
def test_streaming_matches_whole_set(tmp_path, tok, eval_ds, name, columns, options) -> None:
    whole = make_compute_metrics(name, tok, eval_ds, columns=columns, **options)
    stream = make_compute_metrics(name, tok, eval_ds, columns=columns, streaming=True, **options)
    expected = make_trainer(tmp_path, tok, eval_ds, whole).evaluate()
    streamer = make_trainer(tmp_path, tok, eval_ds, stream, batch_eval_metrics=True)
    metric_keys = {k for k in expected if not any(s in k for s in ("loss", "runtime", "per_second", "preparation"))}
    assert metric_keys, expected
    for _ in range(2):  # the offset is reset after each evaluation
        got = streamer.evaluate()
        assert metric_keys <= set(got)
        assert_numbers_match(got, expected, metric_keys)


# ---------------------------------------------------------------- empty generations (the empty= policy)

#: A row whose input holds this word gets an empty generation (see blank_marked_generations).
BLANK = "BLANK"
#: Rows with an empty prediction in the tests below (rows 1 and 4: Harbor and Northwind keep one non-empty user).
EMPTY_ROWS = (1, 4)
KEPT_ROWS = [i for i in range(len(ROWS)) if i not in EMPTY_ROWS]
WITH_EMPTY = ["" if i in EMPTY_ROWS else text for i, text in enumerate(PREDICTIONS)]
EMPTY_WARNING = "ignore:.*predictions are empty:persona_metrics.PersonaMetricsWarning"
SINGLE_REFERENCE = "ignore:.*single reference:persona_metrics.PersonaMetricsWarning"


def blank_marked_generations(model, marker_id, eos_id):
    """Make ``model.generate`` emit ``</s>`` first (decoded: ``""``) for every input that holds ``marker_id``.

    The other rows are generated as before (greedy, with the model's own processors, which run first); this is a
    model that has learned to stop at once on some inputs, as an undertrained one does."""
    import torch
    from transformers import LogitsProcessor, LogitsProcessorList

    class EndAtOnce(LogitsProcessor):
        def __init__(self, rows):
            self.rows = rows

        def __call__(self, input_ids, scores):
            if input_ids.shape[1] == 1:  # the first token after the decoder start
                scores[self.rows] = -torch.inf
                scores[self.rows, eos_id] = 0.0
            return scores

    generate = model.generate

    def generate_with_blanks(*args, **kwargs):
        rows = (kwargs["input_ids"] == marker_id).any(dim=1)
        return generate(*args, logits_processor=LogitsProcessorList([EndAtOnce(rows)]), **kwargs)

    model.generate = generate_with_blanks
    return model


def marked_dataset(tok, marked):
    """The evaluation rows of COLUMNS, tokenized, with BLANK in front of the inputs of the ``marked`` rows."""
    import datasets

    def encode(batch, indices):
        texts = [
            f"{BLANK} {p} {d}" if i in marked else f"{p} {d}"
            for i, p, d in zip(indices, batch["persona"], batch["document"], strict=True)
        ]
        enc = tok(texts)
        enc["labels"] = tok(batch["summary"])["input_ids"]
        return enc

    return datasets.Dataset.from_dict(COLUMNS).map(encode, batched=True, with_indices=True)


def decoded_generations(trainer, tok, ds):
    out = trainer.predict(ds)
    ids = np.where(out.predictions != -100, out.predictions, tok.pad_token_id)
    return [t.strip() for t in tok.batch_decode(ids, skip_special_tokens=True)], out.metrics


def zero_scored_style(predictions, personas):
    """Hand calculation of empty="zero" for persona_style: the library's scores of the non-empty items, 0 for each
    empty one, averaged over every item."""
    kept = [i for i, text in enumerate(predictions) if text.strip()]
    scores = direct("persona_style", predictions=[predictions[i] for i in kept], personas=[personas[i] for i in kept])
    return sum(scores["scores"]) / len(predictions), scores["style_similarity"]


@pytest.mark.parametrize(("name", "options"), [("persona_style", {}), ("perseval", {"distance": "jsd"})])
def test_empty_generations_do_not_stop_training(tmp_path, name, options) -> None:
    """The model generates "" for rows 1 and 4 at every evaluation. With the default policy trainer.train() goes
    on, each evaluation logs eval_num_empty = 2 and the values of a hand calculation on the generated texts, and
    the hook warns once for the whole run (the old hook raised `predictions[1] is empty` for persona_style)."""
    import warnings

    tok = make_tokenizer([BLANK])
    ds = marked_dataset(tok, EMPTY_ROWS)
    hook = make_compute_metrics(name, tok, ds, **options)
    trainer = make_trainer(tmp_path, tok, ds, hook, max_steps=2, eval_strategy="steps", eval_steps=1)
    blank_marked_generations(trainer.model, tok.convert_tokens_to_ids(BLANK), tok.eos_token_id)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        trainer.train()
        decoded, predicted = decoded_generations(trainer, tok, ds)  # the weights of the last evaluation
    evals = [entry for entry in trainer.state.log_history if "eval_loss" in entry]
    assert [entry["eval_num_empty"] for entry in evals] == [2, 2]
    assert predicted["test_num_empty"] == 2
    assert [i for i, text in enumerate(decoded) if not text] == list(EMPTY_ROWS)
    messages = [str(w.message) for w in caught if "predictions are empty" in str(w.message)]
    assert len(messages) == 1, messages  # once per hook, not once per evaluation
    assert f"{name}: 2 of 8 predictions are" in messages[0]
    if name == "persona_style":
        expected, kept_mean = zero_scored_style(decoded, COLUMNS["persona"])
        assert expected == pytest.approx(kept_mean * 6 / 8, rel=1e-12)  # each empty item counts 0
        assert evals[-1]["eval_style_similarity"] == pytest.approx(expected, rel=1e-12)
    else:  # perseval defines an empty summary itself (distance 1 from every text): scored as the library does
        expected = direct(name, predictions=decoded, references=SUMMARIES, documents=COLUMNS["document"], **options)
        assert_numbers_match(evals[-1], {f"eval_{k}": v for k, v in expected.items()}, ["eval_perseval", "eval_edp"])


def hand_calculation(name, policy, document_ids, options):
    """What each policy must give for WITH_EMPTY, from the evaluate module on hand-picked rows."""
    columns = {"predictions": WITH_EMPTY, **_inputs(name)}
    if document_ids is not None:
        columns["document_ids"] = document_ids
    if policy == "skip":  # score only the non-empty items (with their rows of every other input)
        result = direct(name, **{k: [v[i] for i in KEPT_ROWS] for k, v in columns.items()}, **options)
        return {**numbers_only(result), "num_empty": 2}
    if name == "persona_style":  # zero: the library has no score for an empty text; each counts 0
        mean, _ = zero_scored_style(WITH_EMPTY, COLUMNS["persona"])
        return {"style_similarity": mean, "num_empty": 2}
    return {**numbers_only(direct(name, **columns, **options)), "num_empty": 2}  # zero: the library's own score


def run_streaming(hook, tok, predictions, references):
    """One streaming evaluation in batches of 3, 2 and 3 rows."""
    for start, stop in [(0, 3), (3, 5)]:
        assert hook(eval_pred(tok, predictions[start:stop], references[start:stop]), False) == {}
    return hook(eval_pred(tok, predictions[5:], references[5:]), True)


@pytest.mark.filterwarnings(EMPTY_WARNING)
@pytest.mark.filterwarnings(SINGLE_REFERENCE)
@pytest.mark.parametrize("policy", ["zero", "skip"])
@pytest.mark.parametrize(
    ("name", "columns", "options"),
    [
        ("persona_style", None, {}),
        ("perseval", None, {"distance": "jsd"}),
        ("degress", {"document_ids": "group"}, {"distance": "rougeL"}),
    ],
)
def test_empty_policy_matches_hand_calculation(tok, eval_ds, name, columns, options, policy) -> None:
    """zero: each empty item gets the metric's empty-summary score (persona_style: 0, so the mean drops to
    sum(non-empty scores) / 8); skip: equal to scoring only the non-empty items (degress: with their document ids).
    Whole-set and streaming hooks agree."""
    document_ids = COLUMNS["group"] if columns else None
    expected = hand_calculation(name, policy, document_ids, options)
    whole = make_compute_metrics(name, tok, eval_ds, columns=columns, empty=policy, **options)
    assert whole(eval_pred(tok, WITH_EMPTY, SUMMARIES)) == pytest.approx(expected, rel=1e-12)
    stream = make_compute_metrics(name, tok, eval_ds, columns=columns, streaming=True, empty=policy, **options)
    for _ in range(2):  # the empty rows of one evaluation are not carried into the next
        assert run_streaming(stream, tok, WITH_EMPTY, SUMMARIES) == pytest.approx(expected, rel=1e-12)
    if name == "persona_style" and policy == "zero":
        skipped = hand_calculation(name, "skip", None, options)["style_similarity"]
        assert expected["style_similarity"] == pytest.approx(skipped * 6 / 8, rel=1e-12)


@pytest.mark.parametrize("name", ["persona_style", "perseval"])
def test_empty_error_raises_the_named_error(tok, eval_ds, name) -> None:
    message = r"^predictions\[1\] is empty \(empty or whitespace-only text\)$"  # the library's check_text error
    whole = make_compute_metrics(name, tok, eval_ds, empty="error")
    with pytest.raises(ValueError, match=message):
        whole(eval_pred(tok, WITH_EMPTY, SUMMARIES))
    stream = make_compute_metrics(name, tok, eval_ds, streaming=True, empty="error")
    with pytest.raises(ValueError, match=message):
        stream(eval_pred(tok, WITH_EMPTY[:3], SUMMARIES[:3]), compute_result=False)
    # the next evaluation starts afresh and has no empty prediction
    assert run_streaming(stream, tok, PREDICTIONS, SUMMARIES)["num_empty"] == 0


def test_every_prediction_empty(tok, eval_ds) -> None:
    nothing = [""] * len(PREDICTIONS)
    zero = make_compute_metrics("persona_style", tok, eval_ds)
    with pytest.warns(PersonaMetricsWarning, match="8 of 8 predictions are empty"):
        assert zero(eval_pred(tok, nothing)) == {"style_similarity": 0.0, "num_empty": 8}
    skip = make_compute_metrics("persona_style", tok, eval_ds, empty="skip", streaming=True)
    with pytest.warns(PersonaMetricsWarning, match="nothing was left to score, so only num_empty is reported"):
        assert run_streaming(skip, tok, nothing, SUMMARIES) == {"num_empty": 8}


#: What the warning must say for perseval / degress under empty="zero" (issue 35): the problem and what to do.
DEGRESS_REWARDS_EMPTY = ("DEGRESS rewards empty output", "empty='skip'", "empty='error'", "eval_accuracy_distance")


def _empty_warnings(hook, tok, predictions):
    """The hook's result on ``predictions`` and the library's warnings it gave."""
    import warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = hook(eval_pred(tok, predictions, SUMMARIES))
    return result, [str(w.message) for w in caught if issubclass(w.category, PersonaMetricsWarning)]


@pytest.mark.filterwarnings(SINGLE_REFERENCE)
@pytest.mark.parametrize("name", ["perseval", "degress"])
def test_zero_warning_says_that_degress_rewards_empty_output(tok, eval_ds, name) -> None:
    """Issue 35: under the default empty="zero" an empty generation is at distance 1 from every text, another empty
    one included, so DEGRESS rewards it (all-empty output scores far above one identical text for every user). The
    hook's warning says so and what to do; the numbers stay the library's (checked by the hand calculation above).
    The old warning said only "each gets the library's score for an empty summary"."""
    hook = make_compute_metrics(name, tok, eval_ds, distance="rougeL")
    result, messages = _empty_warnings(hook, tok, WITH_EMPTY)
    assert result["num_empty"] == 2
    (message,) = [m for m in messages if "predictions are empty" in m]
    for phrase in DEGRESS_REWARDS_EMPTY:
        assert phrase in message, (phrase, message)
    # the claim holds on these rows: all-empty output looks more responsive than one identical text for every user
    columns = {"references": SUMMARIES, "documents": COLUMNS["document"]}
    nothing = direct("degress", predictions=[""] * len(ROWS), **columns)["degress"]
    same = direct("degress", predictions=[PREDICTIONS[0]] * len(ROWS), **columns)["degress"]
    assert nothing > 0.5 > 1e-3 > same
    # only where DEGRESS scores the empty generations: skip leaves them out, the style metrics score them 0
    for other, policy in [(name, "skip"), ("persona_style", "zero")]:
        _, messages = _empty_warnings(make_compute_metrics(other, tok, eval_ds, empty=policy), tok, WITH_EMPTY)
        (message,) = [m for m in messages if "predictions are empty" in m]
        assert "DEGRESS rewards empty output" not in message


def test_hook_docs_and_degress_card_say_that_degress_rewards_empty_output() -> None:
    """Issue 35: the hook's docs and the degress card name the problem of the default empty="zero" and the way out."""
    from pathlib import Path

    import persona_metrics.integrations.hooks as hooks

    card = (Path(__file__).resolve().parents[1] / "metrics" / "degress" / "README.md").read_text(encoding="utf-8")
    for text in (hooks.__doc__, make_compute_metrics.__doc__, card):
        assert text is not None
        flat = " ".join(text.split())
        assert "DEGRESS rewards empty output" in flat
        assert "skip" in flat
        assert "error" in flat


@pytest.mark.parametrize("value", ["zeros", "Zero", "", None, ["zero"]])
def test_invalid_empty_value_names_the_allowed_values(tok, eval_ds, value) -> None:
    import re

    from persona_metrics.integrations.distributed import PersevalMetric

    message = "^" + re.escape(f"empty must be one of ['zero', 'skip', 'error'], got {value!r}") + "$"
    with pytest.raises(ValueError, match=message):
        make_compute_metrics("persona_style", tok, eval_ds, empty=value)
    with pytest.raises(ValueError, match=message):
        PersevalMetric(empty=value)
    from persona_metrics.integrations.empty import ALLOWED_EMPTY, DEFAULT_EMPTY  # the constant the message reads

    assert (ALLOWED_EMPTY, DEFAULT_EMPTY) == (("zero", "skip", "error"), "zero")


# ---------------------------------------------------------------- unit tests, no training


def test_decode_replaces_minus_100_everywhere(tok) -> None:
    for text in SUMMARIES + PREDICTIONS:
        assert tok.decode(tok(text)["input_ids"], skip_special_tokens=True) == text
    pred = eval_pred(tok, PREDICTIONS, SUMMARIES)
    assert (pred.predictions == -100).any()
    assert (pred.label_ids == -100).any()
    with pytest.raises(OverflowError):  # what an unguarded decode does (transformers #22634)
        tok.batch_decode(pred.predictions, skip_special_tokens=True)
    hook = make_compute_metrics("perseval", tok, COLUMNS)  # a plain mapping of columns works too
    expected = direct("perseval", predictions=PREDICTIONS, references=SUMMARIES, documents=COLUMNS["document"])
    result = hook(pred)
    assert_numbers_match(result, expected, PERSONALIZATION_KEYS["perseval"])
    # predictions as a tuple (generated ids, ...) are accepted: the first item is used
    pred.predictions = (pred.predictions, np.zeros(3))
    assert hook(pred) == result


def test_persona_style_needs_no_references(tok, eval_ds) -> None:
    hook = make_compute_metrics("persona_style", tok, eval_ds)
    result = hook(eval_pred(tok, PREDICTIONS))  # label_ids None: persona_style does not take references
    expected = direct("persona_style", predictions=PREDICTIONS, personas=COLUMNS["persona"])
    assert result == {"style_similarity": pytest.approx(expected["style_similarity"], rel=1e-12), "num_empty": 0}
    with pytest.raises(ValueError, match="needs references"):
        make_compute_metrics("degress", tok, eval_ds)(eval_pred(tok, PREDICTIONS))


@pytest.mark.filterwarnings("ignore:.*single reference:persona_metrics.PersonaMetricsWarning")
def test_streaming_accepts_tensors_and_gathers_document_ids(tok, eval_ds) -> None:
    import torch

    columns = {"document_ids": "group"}  # not an evaluate feature: gathered by the hook, passed to compute
    hook = make_compute_metrics("degress", tok, eval_ds, columns=columns, streaming=True)
    batches = []
    for start, stop, width in [(0, 3, 20), (3, 5, 22), (5, 8, 24)]:  # each batch padded to its own width
        batch = eval_pred(tok, PREDICTIONS[start:stop], SUMMARIES[start:stop], width=width)
        batch.predictions, batch.label_ids = torch.tensor(batch.predictions), torch.tensor(batch.label_ids)
        batches.append(batch)
    assert hook(batches[0], compute_result=False) == {}
    assert hook(batches[1], compute_result=False) == {}
    with pytest.warns(PersonaMetricsWarning, match=r"single reference and are excluded \('orbit-1', 'orbit-2'\)"):
        result = hook(batches[2], compute_result=True)
    # independent source: the module itself on the same strings, grouped by the "group" column
    expected = direct(
        "degress",
        predictions=PREDICTIONS,
        references=SUMMARIES,
        documents=COLUMNS["document"],
        document_ids=COLUMNS["group"],
    )
    assert result == pytest.approx({**numbers_only(expected), "num_empty": 0})
    assert (result["num_documents"], result["num_excluded_documents"]) == (3, 2)
    whole = make_compute_metrics("degress", tok, eval_ds, columns=columns)(eval_pred(tok, PREDICTIONS, SUMMARIES))
    assert whole == pytest.approx(result)


def test_default_columns_and_references_per_metric(tok, eval_ds) -> None:
    assert set(METRIC_SPECS) == set(persona_metrics.METRICS)  # the hook's default columns: every spec's
    for name in persona_metrics.METRICS:
        make_compute_metrics(name, tok, eval_ds)  # the defaults exist in a dataset with the documented columns


def test_missing_column_names_it(tok, eval_ds) -> None:
    import datasets

    with pytest.raises(ValueError, match=r"column 'persona' .*available columns: \['document', 'user'"):
        make_compute_metrics("persona_style", tok, eval_ds.remove_columns("persona"))
    with pytest.raises(ValueError, match=r"column 'doc' \(metric input 'documents'\)"):
        make_compute_metrics("perseval", tok, eval_ds, columns={"documents": "doc"})
    with pytest.raises(ValueError, match="eval_dataset is required"):
        make_compute_metrics("perseval", tok)
    with pytest.raises(ValueError, match=r"\['users'\] are not inputs of metric 'perseval'"):
        make_compute_metrics("perseval", tok, eval_ds, columns={"users": "user"})
    with pytest.raises(ValueError, match="both as columns and as compute options"):
        make_compute_metrics("degress", tok, eval_ds, columns={"document_ids": "doc_id"}, document_ids=[1] * 8)
    with pytest.raises(ValueError, match=r"compute options \['distanse'\] are not inputs of metric 'perseval'"):
        make_compute_metrics("perseval", tok, eval_ds, distanse="jsd")
    with pytest.raises(TypeError, match="eval_dataset must be"):
        make_compute_metrics("persona_style", tok, [{"persona": "journalist"}])
    with pytest.raises(TypeError, match=r"DatasetDict \(splits \['validation'\]\)"):
        make_compute_metrics("persona_style", tok, datasets.DatasetDict(validation=eval_ds))


def test_length_mismatch(tok, eval_ds) -> None:
    with pytest.raises(ValueError, match="got 3 predictions but eval_dataset has 8 rows"):
        make_compute_metrics("perseval", tok, eval_ds)(eval_pred(tok, PREDICTIONS[:3], SUMMARIES[:3]))
    stream = make_compute_metrics("persona_style", tok, eval_ds, streaming=True)
    assert stream(eval_pred(tok, PREDICTIONS[:5]), compute_result=False) == {}
    with pytest.raises(ValueError, match="got 10 predictions so far but eval_dataset has 8 rows"):
        stream(eval_pred(tok, PREDICTIONS[:5]), compute_result=False)
    with pytest.raises(ValueError, match="got 5 predictions but eval_dataset has 8 rows"):
        stream(eval_pred(tok, PREDICTIONS[:5]), compute_result=True)


def test_logits_are_rejected(tok, eval_ds) -> None:
    from transformers import EvalPrediction

    hook = make_compute_metrics("persona_style", tok, eval_ds)
    with pytest.raises(ValueError, match="predict_with_generate=True"):
        hook(EvalPrediction(predictions=(np.zeros((8, 5, len(tok)), dtype=np.float32),), label_ids=None))


def test_streaming_recovers_after_a_failed_evaluation(tok, eval_ds) -> None:
    stream = make_compute_metrics("persona_style", tok, eval_ds, streaming=True, empty="error")
    assert stream(eval_pred(tok, PREDICTIONS[:3]), compute_result=False) == {}
    empty = eval_pred(tok, PREDICTIONS[3:6])
    empty.predictions[1] = -100  # decodes to "": with empty="error" the evaluation fails on it
    with pytest.raises(ValueError, match=r"predictions\[4\] is empty"):  # row 4 of the evaluation
        stream(empty, compute_result=False)
    # the next evaluation starts afresh: a new module, offset 0, nothing left of the failed one
    assert stream(eval_pred(tok, PREDICTIONS[:4]), compute_result=False) == {}
    result = stream(eval_pred(tok, PREDICTIONS[4:]), compute_result=True)
    expected = direct("persona_style", predictions=PREDICTIONS, personas=COLUMNS["persona"])
    assert result["style_similarity"] == pytest.approx(expected["style_similarity"], rel=1e-12)

    loaded = make_compute_metrics(persona_metrics.load("persona_style"), tok, eval_ds, streaming=True, empty="error")
    with pytest.raises(ValueError, match="is empty"):
        loaded(empty, compute_result=False)
    with pytest.raises(RuntimeError, match="failed mid-way"):
        loaded(eval_pred(tok, PREDICTIONS), compute_result=True)


def test_numbers_only_drops_non_numbers(tok, eval_ds) -> None:
    result = {
        "a": 1,
        "flag": True,
        "np_flag": np.bool_(False),
        "f32": np.float32(0.5),
        "i64": np.int64(3),
        "nan": float("nan"),
        "signature": "rougeL|v1",
        "scores": [0.1],
        "per_summary": {"x": [1]},
        "none": None,
    }
    out = numbers_only(result)
    assert list(out) == ["a", "flag", "np_flag", "f32", "i64", "nan"]
    assert out == {"a": 1, "flag": 1, "np_flag": 0, "f32": 0.5, "i64": 3, "nan": pytest.approx(math.nan, nan_ok=True)}
    assert [type(v) for v in out.values()] == [int, int, int, float, int, float]

    # through the hook: lists, dicts and strings the modules return on request never reach the Trainer
    style = make_compute_metrics("persona_style", tok, eval_ds, return_nearest=True, return_features=True)
    assert set(style(eval_pred(tok, PREDICTIONS))) == {"style_similarity", "num_empty"}
    options = {"return_signature": True, "return_per_summary": True, "bootstrap": 20}
    perseval = make_compute_metrics("perseval", tok, eval_ds, **options)(eval_pred(tok, PREDICTIONS, SUMMARIES))
    expected = direct(
        "perseval", predictions=PREDICTIONS, references=SUMMARIES, documents=COLUMNS["document"], **options
    )
    assert {"signature", "per_summary"} <= set(expected)
    assert set(perseval) == {k for k, v in expected.items() if isinstance(v, int | float)} | {"num_empty"}
    assert "perseval_ci_low" in perseval
    assert_numbers_match(perseval, expected, expected.keys() & perseval.keys())


@pytest.mark.slow
def test_persona_quality_streaming_matches_direct_compute(tok, eval_ds) -> None:
    hook = make_compute_metrics("persona_quality", tok, eval_ds, streaming=True)  # references and personas
    assert hook(eval_pred(tok, PREDICTIONS[:5], SUMMARIES[:5]), compute_result=False) == {}
    result = hook(eval_pred(tok, PREDICTIONS[5:], SUMMARIES[5:]), compute_result=True)
    expected = direct("persona_quality", predictions=PREDICTIONS, references=SUMMARIES, personas=COLUMNS["persona"])
    assert set(result) == {*expected, "num_empty"}
    assert_numbers_match(result, expected, expected)
    assert type(result["bertscore_rescaled"]) is int


def test_bad_option_values_fail_when_the_hook_is_built(tok, eval_ds) -> None:
    # the library's own checks (distance registry, PersevalParams ranges, style methods, weights), at build time
    cases = [
        ("perseval", {"distance": "rouge-l"}, ValueError, "unknown distance 'rouge-l'"),
        ("perseval", {"beta": -1}, ValueError, r"beta must be in \(0, 300\], got -1"),
        ("perseval", {"beta": 10**400}, ValueError, "beta must be a finite number, got an int of 401 digits"),
        ("perseval", {"distance_options": [1]}, TypeError, "distance_options must be a mapping"),
        ("degress", {"p_acc_alpha": 2.0}, ValueError, r"p_acc_alpha must be in \(0, 1\]"),
        ("degress", {"distance": "bleu", "distance_options": {"max_order": 0}}, ValueError, "max_order"),
        ("persona_style", {"method": "cosine"}, ValueError, "not a style method"),
        ("persona_quality", {"overall_weights": {"content": 0.5, "style": 0.4}}, ValueError, "must sum to 1"),
        ("vert", {"alpha": 0}, ValueError, "alpha must be a finite number > 0"),
        ("persona_style", {"persona_dir": 5}, TypeError, "persona_dir must be a path"),
        ("perseval", {"return_per_summary": "yes"}, TypeError, "return_per_summary must be a bool"),
    ]
    for name, options, error, message in cases:
        with pytest.raises(error, match=message):
            make_compute_metrics(name, tok, eval_ds, **options)
        with pytest.raises(error, match=message):  # the same check when the module computes
            direct(name, **{"predictions": PREDICTIONS, **_inputs(name)}, **options)


def _inputs(name):
    return {
        "perseval": {"references": SUMMARIES, "documents": COLUMNS["document"]},
        "degress": {"references": SUMMARIES, "documents": COLUMNS["document"]},
        "persona_style": {"personas": COLUMNS["persona"]},
        "persona_quality": {"references": SUMMARIES, "personas": COLUMNS["persona"]},
        "vert": {"references": SUMMARIES},
    }[name]
