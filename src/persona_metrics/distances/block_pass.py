"""The block pass: BERT's forward pass re-expressed so that a text's hidden states depend on the text alone.

A call's tokens stand in one matrix, every linear layer is computed in products of a fixed
:data:`~persona_metrics.distances.passes.BLOCK_ROWS` rows on one torch thread and attention on each text alone
(:func:`_block_hidden`); chunks of texts (:func:`~persona_metrics.distances.passes._block_chunks`) run on worker
threads (:func:`_block_pass`). Used by :class:`~persona_metrics.distances.bertscore.BertScore` for a BERT model on
the CPU (``docs/perseval.md`` §3.7). Torch is imported on use only.
"""

from __future__ import annotations

import itertools
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from typing import Any

import numpy as np

from persona_metrics.distances.passes import BLOCK_ROWS, _block_chunks, _block_rows


@contextmanager
def _torch_threads(num_threads: int | None) -> Iterator[None]:
    """The torch intra-op thread count set to ``num_threads`` inside the block (unchanged when ``None``)."""
    import torch

    before = torch.get_num_threads()
    if num_threads is not None and num_threads != before:
        torch.set_num_threads(num_threads)
    try:
        yield
    finally:
        if torch.get_num_threads() != before:
            torch.set_num_threads(before)


def _is_block_model(model: Any) -> bool:
    """Whether :func:`_block_hidden` computes this model's forward pass: BERT (absolute positions, its blocks)."""
    config = model.config
    if config.model_type != "bert" or getattr(config, "position_embedding_type", "absolute") != "absolute":
        return False
    embeddings, encoder = getattr(model, "embeddings", None), getattr(model, "encoder", None)
    parts = ("word_embeddings", "position_embeddings", "token_type_embeddings", "LayerNorm")
    return all(hasattr(embeddings, part) for part in parts) and hasattr(encoder, "layer")


def _block_linear(x: Any, linear: Any) -> Any:
    """``linear(x)`` computed as products of fixed ``BLOCK_ROWS``-row slices (``x``'s rows are a multiple of it)."""
    import torch

    out = x.new_empty(x.shape[0], linear.out_features)
    weight = linear.weight.t()
    for start in range(0, x.shape[0], BLOCK_ROWS):
        torch.addmm(linear.bias, x[start : start + BLOCK_ROWS], weight, out=out[start : start + BLOCK_ROWS])
    return out


def _block_hidden(model: Any, chunk: Sequence[np.ndarray]) -> list[np.ndarray]:
    """The last hidden state of each text of ``chunk`` (id arrays sorted by length), BERT's forward pass re-expressed.

    Embeddings as BERT's (word, then token type 0, then position; layer norm). The texts' tokens stand in one
    matrix, padded with zero rows to a multiple of :data:`BLOCK_ROWS`; every linear layer is computed in products
    of that fixed shape, attention (``scaled_dot_product_attention``, no mask) on each group of equal-length
    texts, layer norms and the activation by the model's own modules, row by row. No operation mixes rows of
    different texts, and every product has one shape, so a text's result depends on the text alone (run on one
    torch thread: no split of the work that could depend on the thread count).
    """
    import torch

    emb = model.embeddings
    lengths = [len(ids) for ids in chunk]
    total = sum(lengths)
    starts = np.cumsum([0, *lengths[:-1]]).tolist()
    with torch.inference_mode():
        words = emb.word_embeddings(torch.from_numpy(np.concatenate(chunk)))
        positions = torch.from_numpy(np.concatenate([np.arange(n) for n in lengths]))
        hidden = words.new_zeros(_block_rows(total), words.shape[1])
        hidden[:total] = emb.LayerNorm(words + emb.token_type_embeddings.weight[0] + emb.position_embeddings(positions))
        groups: list[tuple[int, int, int]] = []  # (first row, texts, length); the chunk is sorted by length
        for start, length in zip(starts, lengths, strict=True):
            if groups and groups[-1][2] == length:
                groups[-1] = (groups[-1][0], groups[-1][1] + 1, length)
            else:
                groups.append((start, 1, length))
        for layer in model.encoder.layer:
            attention = layer.attention.self
            heads, size = attention.num_attention_heads, attention.attention_head_size
            q, k, v = (_block_linear(hidden, linear) for linear in (attention.query, attention.key, attention.value))
            context = torch.zeros_like(hidden)
            for first, count, length in groups:
                end, shape = first + count * length, (count, length, heads, size)
                group_q, group_k, group_v = (t[first:end].view(shape).transpose(1, 2) for t in (q, k, v))
                heads_out = torch.nn.functional.scaled_dot_product_attention(
                    group_q, group_k, group_v, scale=size**-0.5
                )
                context[first:end] = heads_out.transpose(1, 2).reshape(count * length, heads * size)
            attended = layer.attention.output.LayerNorm(_block_linear(context, layer.attention.output.dense) + hidden)
            inner = layer.intermediate.intermediate_act_fn(_block_linear(attended, layer.intermediate.dense))
            hidden = layer.output.LayerNorm(_block_linear(inner, layer.output.dense) + attended)
        return [hidden[start : start + n].numpy() for start, n in zip(starts, lengths, strict=True)]


def _block_pass(
    model: Any,
    encoded: Sequence[np.ndarray],
    chunk_tokens: int,
    workers: int,
    emit: Callable[[list[int], list[np.ndarray]], None],
) -> None:
    """:func:`_block_hidden` chunk by chunk (:func:`_block_chunks`) on ``workers`` threads.

    ``emit(indices, states)`` takes each chunk in order as soon as it is done, and at most two chunks per worker are
    started ahead of it, so the hidden states held at once stay bounded whatever the call's size. A failure
    cancels the chunks not started and waits for the running ones.
    """
    chunks = iter(_block_chunks([len(ids) for ids in encoded], chunk_tokens))
    workers = max(1, workers)
    with _torch_threads(1), ThreadPoolExecutor(max_workers=workers) as pool:
        pending: deque[tuple[list[int], Future[list[np.ndarray]]]] = deque()

        def start(chunk: list[int]) -> None:
            pending.append((chunk, pool.submit(_block_hidden, model, [encoded[i] for i in chunk])))

        try:
            for chunk in itertools.islice(chunks, 2 * workers):
                start(chunk)
            while pending:
                chunk, future = pending.popleft()
                states = future.result()
                following = next(chunks, None)
                if following is not None:
                    start(following)
                emit(chunk, states)
        finally:
            for _, future in pending:
                future.cancel()
