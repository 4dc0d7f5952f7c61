"""The forward passes of the model-based distances, planned, and their floating-point operations counted.

Fixed-shape passes (:func:`_fixed_shape_batches`: equal-length texts together, no padding, a number of rows that
depends on the length only) and the chunks of a block pass (:func:`_block_chunks`, run by
:func:`~persona_metrics.distances.block_pass._block_pass`); :func:`encoder_flops` and the FLOPs each plan executes
(:func:`fixed_shape_flops`, :func:`block_pass_flops`). Pure numpy: nothing here imports torch.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import numpy as np

#: Default tokens per forward pass on a GPU (rows × token length; ``batch_size=None``).
GPU_BATCH_TOKENS = 16384
#: Rows of every linear-layer product of a BERTScore block pass: fixed, so a token's result depends on its own row
#: only (:func:`~persona_metrics.distances.block_pass._block_pass`).
BLOCK_ROWS = 128


def _batch_tokens(batch_size: int | None, device: str, cpu_default: int) -> int:
    """The token budget of one forward pass: ``batch_size``, else ``cpu_default`` on CPU and 16384 on a GPU."""
    if batch_size is not None:
        return batch_size
    return cpu_default if device.split(":")[0] == "cpu" else GPU_BATCH_TOKENS


def _rows_per_pass(length: int, batch_tokens: int) -> int:
    """Rows of every forward pass over texts of ``length`` tokens: a function of the length only."""
    return max(1, batch_tokens // max(1, length))


def pass_shapes(lengths: Sequence[int], batch_tokens: int) -> list[tuple[int, int]]:
    """``(rows, length)`` of every forward pass :func:`_fixed_shape_batches` runs over texts of these token lengths.

    A short last pass of a length counts its filled rows: these are the shapes executed, not only the rows needed.
    """
    counts: dict[int, int] = {}
    for length in lengths:
        counts[length] = counts.get(length, 0) + 1
    shapes = []
    for length in sorted(counts):
        rows = _rows_per_pass(length, batch_tokens)
        shapes += [(rows, length)] * -(-counts[length] // rows)
    return shapes


def _num_passes(encoded: Sequence[np.ndarray], batch_tokens: int) -> int:
    return len(pass_shapes([len(ids) for ids in encoded], batch_tokens))


def encoder_flops(rows: int, length: int, layers: int, hidden: int, intermediate: int) -> int:
    """Floating-point operations of ``layers`` BERT blocks on a ``(rows, length)`` input (2 per multiply-add).

    Per token and block: the Q, K, V and output projections (4·H² multiply-adds), the feed-forward pair (2·H·I)
    and attention's scores and weighted sum (2·L·H over all heads). Embeddings, layer norms, softmax, GELU and
    the pooler are elementwise or per-row and left out (under 1 % for the MiniLM at 40-100 tokens).
    """
    return 2 * layers * rows * length * (4 * hidden * hidden + 2 * hidden * intermediate + 2 * length * hidden)


def _fixed_shape_batches(encoded: Sequence[np.ndarray], batch_tokens: int) -> Iterator[tuple[list[int], np.ndarray]]:
    """Forward passes whose shape depends only on the token length of the texts they hold.

    Texts of equal length ``L`` go together (no padding, no attention mask), ``R = max(1, batch_tokens // L)``
    rows per pass; a last, short pass is filled up to ``R`` rows with copies of its first text (their outputs are
    dropped). Every text is therefore computed in a ``(R, L)`` input whatever else is being embedded, which makes
    its output independent of its batch neighbours (BLAS kernels pick their blocking by shape, not by the data).

    Yields:
        ``(indices into encoded, int64 ids of shape (R, L))``.
    """
    by_length: dict[int, list[int]] = {}
    for i, ids in enumerate(encoded):
        by_length.setdefault(len(ids), []).append(i)
    for length in sorted(by_length):
        members, rows = by_length[length], _rows_per_pass(length, batch_tokens)
        for start in range(0, len(members), rows):
            batch = members[start : start + rows]
            filled = batch + [batch[0]] * (rows - len(batch))
            yield batch, np.array([encoded[i] for i in filled], dtype=np.int64).reshape(rows, length)


def _block_chunks(lengths: Sequence[int], chunk_tokens: int) -> list[list[int]]:
    """The texts of each chunk of a block pass, ordered by token length (stable).

    A chunk takes texts until it holds ``chunk_tokens`` tokens, then goes on taking each next text that fits in the
    rows its last block pads anyway (:func:`_block_rows`): those texts' linear layers cost nothing more.
    """
    chunks: list[list[int]] = []
    chunk: list[int] = []
    size = 0
    for i in sorted(range(len(lengths)), key=lengths.__getitem__):
        if size >= chunk_tokens and size + lengths[i] > _block_rows(size):
            chunks.append(chunk)
            chunk, size = [], 0
        chunk.append(i)
        size += lengths[i]
    if chunk:
        chunks.append(chunk)
    return chunks


def _block_rows(tokens: int) -> int:
    """Rows of a block-pass chunk of ``tokens`` tokens: padded up to a multiple of :data:`BLOCK_ROWS`."""
    return -(-tokens // BLOCK_ROWS) * BLOCK_ROWS


def fixed_shape_flops(lengths: Sequence[int], batch_tokens: int, layers: int, hidden: int, intermediate: int) -> int:
    """FLOPs of the fixed-shape passes over texts of these token lengths (:func:`pass_shapes`, filled rows included)."""
    return sum(encoder_flops(rows, n, layers, hidden, intermediate) for rows, n in pass_shapes(lengths, batch_tokens))


def block_pass_flops(lengths: Sequence[int], chunk_tokens: int, layers: int, hidden: int, intermediate: int) -> int:
    """FLOPs of a block pass over texts of these token lengths (:func:`encoder_flops`' terms, padded rows included).

    Each text's own ``(1, L)`` pass (attention runs on each text alone), plus the linear layers on the rows that pad
    each chunk up to a multiple of :data:`BLOCK_ROWS`.
    """
    own = sum(encoder_flops(1, n, layers, hidden, intermediate) for n in lengths)
    filled = (sum(lengths[i] for i in chunk) for chunk in _block_chunks(lengths, chunk_tokens))
    padded = sum(_block_rows(tokens) - tokens for tokens in filled)
    return own + 2 * layers * padded * (4 * hidden * hidden + 2 * hidden * intermediate)
