"""Rough edges of issue 35: NLTK data behind a deduplicator's links, a cache folder that cannot take a write, case
files whose bad lines lost their place, the PENS plot's footer and the persona script's marks."""

from __future__ import annotations

import errno
import json
import logging
import os
import shutil
from pathlib import Path

import pytest

from persona_metrics import resources
from persona_metrics.cli import main

ROOT = Path(__file__).resolve().parents[1]
CASES = ROOT / "src" / "persona_metrics" / "validity" / "cases"
PUNKT_FILE = "abbrev_types.txt"


@pytest.fixture
def private_cache(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """An empty cache folder of the test's own, NLTK's search path restored afterwards."""
    import nltk

    monkeypatch.setattr(nltk.data, "path", list(nltk.data.path))
    cache = tmp_path / "cache"
    monkeypatch.setenv(resources.CACHE_ENV, str(cache))
    return cache


def no_space(*args: object, **kwargs: object) -> None:
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


# --- 1. NLTK data: a file a deduplicator replaced by a link ------------------------------------------------------
def test_a_link_to_an_identical_copy_is_healed(private_cache: Path, caplog: pytest.LogCaptureFixture) -> None:
    """NLTK refuses to open a link that leads outside its data folder: the link is replaced by a real copy."""
    target = resources.ensure_punkt()
    built = target / PUNKT_FILE
    original = built.read_bytes()
    twin = private_cache.parent / "dedup" / PUNKT_FILE  # where a deduplicator keeps the one copy
    twin.parent.mkdir()
    shutil.copyfile(built, twin)
    built.unlink()
    built.symlink_to(twin)
    resources._COMPLETE.discard(target)  # a new process checks the copy once
    with caplog.at_level(logging.WARNING, logger="persona_metrics.resources"):
        assert resources.sent_tokenize("Mr. Smith left. He came back.") == ["Mr. Smith left.", "He came back."]
    assert not built.is_symlink()
    assert built.read_bytes() == original
    assert twin.read_bytes() == original  # the other copy is left alone
    healed = [r.getMessage() for r in caplog.records if "symbolic link to an identical copy" in r.getMessage()]
    assert len(healed) == 1
    assert PUNKT_FILE in healed[0]
    assert str(twin) in healed[0]
    assert not [r for r in caplog.records if "does not match its manifest" in r.getMessage()]  # healed, not rebuilt
    assert sorted(p.name for p in target.iterdir()) == sorted([resources.COMPLETE_MARKER, *_punkt_files()])
    resources._COMPLETE.discard(target)
    with caplog.at_level(logging.WARNING, logger="persona_metrics.resources"):
        caplog.clear()
        resources.ensure_punkt()
    assert not caplog.records  # the next process finds nothing to heal


def _punkt_files() -> list[str]:
    return ["abbrev_types.txt", "collocations.tab", "ortho_context.tab", "sent_starters.txt"]


def test_a_link_to_other_content_is_refused(private_cache: Path, caplog: pytest.LogCaptureFixture) -> None:
    """A link whose content is not the built file's is not trusted: a warning names it, the resource is rebuilt,
    and the file the link led to is not written through."""
    target = resources.ensure_punkt()
    built = target / PUNKT_FILE
    original = built.read_bytes()
    other = private_cache.parent / "other.txt"
    other.write_text("mr\ndr\n")
    built.unlink()
    built.symlink_to(other)
    resources._COMPLETE.discard(target)
    with caplog.at_level(logging.WARNING, logger="persona_metrics.resources"):
        assert resources.ensure_punkt() == target
    refused = [r.getMessage() for r in caplog.records if "is a symbolic link to" in r.getMessage()]
    assert len(refused) == 1
    assert PUNKT_FILE in refused[0]
    assert str(other) in refused[0]
    assert "not trusted" in refused[0]
    assert not built.is_symlink()
    assert built.read_bytes() == original
    assert other.read_text() == "mr\ndr\n"


# --- 2. a cache folder that cannot take a write -------------------------------------------------------------------
def _assert_names_the_way_out(err: OSError, path: Path) -> None:
    message = str(err)
    assert isinstance(err, OSError)
    assert err.errno == errno.ENOSPC
    assert str(path) in message
    assert "No space left on device" in message
    assert "\n" not in message


def test_a_full_disk_on_the_first_nltk_build(private_cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(Path, "write_text", no_space)
    with pytest.raises(OSError, match="No space left on device") as info:
        resources.ensure_punkt()
    target = private_cache / "nltk_data" / "tokenizers" / "punkt_tab" / "english"
    _assert_names_the_way_out(info.value, target)
    assert f"{resources.CACHE_ENV}" in str(info.value)
    assert str(private_cache) in str(info.value)
    assert not target.exists()
    assert list(target.parent.iterdir()) == []  # no build folder left behind


def _full_disk_on_write(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every text written through ``os.fdopen`` (:func:`resources.replace_file`) fails as on a full disk."""
    real = os.fdopen

    def fdopen(fd: int, mode: str = "r", *args: object, **kwargs: object) -> object:
        handle = real(fd, mode, *args, **kwargs)
        return Full(handle) if "w" in mode else handle

    class Full:
        def __init__(self, handle) -> None:
            self.handle = handle

        def __enter__(self) -> Full:
            return self

        def __exit__(self, *exc: object) -> None:
            self.handle.close()

        def write(self, text: str) -> int:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "fdopen", fdopen)


def test_a_full_disk_on_the_centroid_cache(private_cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from persona_metrics.persona.samples import load_persona_samples
    from persona_metrics.persona.style import build_centroids

    resources.ensure_punkt(), resources.ensure_cmudict()  # the NLTK data is there: only the cache write fails
    samples = load_persona_samples()
    _full_disk_on_write(monkeypatch)
    with pytest.raises(OSError, match="No space left on device") as info:
        build_centroids(samples)
    path = private_cache / "persona_centroids.json"
    _assert_names_the_way_out(info.value, path)
    assert resources.CACHE_ENV in str(info.value)
    assert sorted(p.name for p in private_cache.iterdir()) == ["nltk_data"]  # no partial file

    given = private_cache.parent / "mine" / "centroids.json"
    with pytest.raises(OSError, match="No space left on device") as info:
        build_centroids(samples, given)
    _assert_names_the_way_out(info.value, given)
    assert "centroid_cache" in str(info.value)
    assert list(given.parent.iterdir()) == []


def test_a_full_disk_on_the_judge_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from persona_metrics.summary_eval.judge_cache import write_json

    _full_disk_on_write(monkeypatch)
    path = tmp_path / "judge" / "abc.json"
    with pytest.raises(OSError, match="No space left on device") as info:
        write_json(path, {"key": "abc"})
    _assert_names_the_way_out(info.value, path)
    assert "--cache-dir" in str(info.value)
    assert resources.CACHE_ENV in str(info.value)
    assert list(path.parent.iterdir()) == []


def test_the_cli_says_a_full_disk_in_one_line(
    private_cache: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    resources.ensure_punkt(), resources.ensure_cmudict()
    items = tmp_path / "style.jsonl"
    items.write_text(json.dumps({"prediction": "Shares rose 4% after the results.", "persona": "journalist"}) + "\n")
    _full_disk_on_write(monkeypatch)
    assert main(["score", "persona_style", str(items)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    (line,) = captured.err.splitlines()
    assert line.startswith("persona-metrics score: error: cannot write the persona centroid cache to ")
    assert str(private_cache / "persona_centroids.json") in line
    assert resources.CACHE_ENV in line
    assert "No space left on device" in line


def test_the_cli_says_a_failed_nltk_build_in_one_line(
    private_cache: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A full disk while a command builds NLTK data on first use: one line naming the cache folder."""
    monkeypatch.setattr(Path, "write_text", no_space)
    assert main(["validity", "summary_eval", "-m", "original", "--limit", "1"]) == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert line.startswith("persona-metrics validity: error: cannot write ")
    assert str(private_cache) in line
    assert resources.CACHE_ENV in line


# --- 3. validity --cases: a bad line keeps its place ------------------------------------------------------------
def _cases_with(tmp_path: Path, name: str, line: int, change: dict[str, str]) -> tuple[Path, Path]:
    """A copy of the shipped cases with ``change`` applied to line ``line`` of ``name``."""
    folder = tmp_path / "cases"
    shutil.copytree(CASES, folder)
    path = folder / name
    lines = path.read_text(encoding="utf-8").splitlines()
    row = json.loads(lines[line - 1])
    row.update({key: row[key] + value if key == "text" else value for key, value in change.items()})
    lines[line - 1] = json.dumps(row)  # a lone surrogate is written as the escape \\ud800, as JSON allows
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return folder, path


@pytest.mark.parametrize(
    ("metric", "name", "line", "change", "says"),
    [
        ("persona_style", "style.jsonl", 1, {"text": " \ud800"}, "field 'text' contains a lone surrogate (U+D800"),
        ("persona_style", "style_summaries.jsonl", 3, {"persona": "pirate"}, "field 'persona' = 'pirate' is not a"),
        ("persona_quality", "persona_quality.jsonl", 2, {"persona": "pirate"}, "field 'persona' = 'pirate' is not a"),
    ],
)
def test_a_bad_case_line_is_named_by_file_and_line(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    metric: str,
    name: str,
    line: int,
    change: dict[str, str],
    says: str,
) -> None:
    folder, path = _cases_with(tmp_path, name, line, change)
    code = main(["validity", metric, "-m", "jsd", "--cases", str(folder), "--limit", "1"])
    captured = capsys.readouterr()
    assert code == 2
    assert captured.out == ""
    (message,) = captured.err.splitlines()
    assert message.startswith(f"persona-metrics validity: error: {path}:{line}: {says}")


# --- 4. what the plots and tables show -------------------------------------------------------------------------
def test_the_pens_plot_shows_its_signature_whole(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """One distance: a one-panel figure whose signature line is wider than the panel. Nothing drawn may touch the
    image's edges (the footer used to run off the right edge, cut mid-word)."""
    pytest.importorskip("matplotlib")
    from PIL import Image

    out = tmp_path / "out"
    assert main(["pens", str(ROOT / "data" / "pens_sample"), "--out", str(out), "--bootstrap", "20"]) == 0
    (signature,) = [ln for ln in capsys.readouterr().out.splitlines() if ln.startswith("signature (rougeL): ")]
    assert len(signature) > 130  # wider than the 7.2-inch panel holds in the footer's font
    with Image.open(out / "leaderboard.png") as image:
        pixels = image.convert("L")
        width, height = pixels.size
        edges = [(x, y) for x in (0, 1, width - 2, width - 1) for y in range(height)]
        edges += [(x, y) for y in (0, 1, height - 2, height - 1) for x in range(width)]
        touching = [xy for xy in edges if pixels.getpixel(xy) < 250]
    assert not touching, f"drawn up to the image's edge at {touching[:5]} ({width}x{height})"


def test_the_persona_feature_table_explains_its_marks() -> None:
    """The held-out persona check marks each mean ✓ or ✗ against the methodology's range: a line says which is
    which."""
    from conftest import load_script

    from persona_metrics.persona.samples import load_persona_samples

    table = load_script("evaluate_personas").features_table(load_persona_samples())
    assert "✗" in table
    assert "✓" in table
    (legend,) = [ln for ln in table.splitlines() if ln.startswith("✓")]
    assert "✗" in legend
    assert "range" in legend
    assert "no mark" in legend
