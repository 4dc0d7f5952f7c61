"""The persona folder: ``{persona}.txt`` sample files, their format, their checks, and the persona registry.

A persona is one UTF-8 file ``<name>.txt`` whose sample texts are separated by lines holding only ``---``; its
name is the file's name. The shipped personas are the files of ``persona_metrics/persona/personas/``
(:data:`BUILTIN_PERSONAS` is read from that folder, never written out), and a folder of the user's
(``persona_dir=``) works the same way: its file names are its personas (``docs/add_a_persona.md``). The shipped
personas also have register texts (``persona_metrics/persona/register/``), which only the ``posterior`` method's
fit reads (:func:`register_texts`).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from functools import cache
from importlib import resources as importlib_resources
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import cast

from persona_metrics.persona.stylometry import is_wordless
from persona_metrics.validation import as_list, check_path, check_text, describe

#: Separator between sample texts in a ``{persona}.txt`` file: a line holding only ``---``.
SAMPLE_SEPARATOR = "---"
#: Suffix of a persona's sample file: the file ``<name>.txt`` is the persona ``<name>``.
SAMPLE_SUFFIX = ".txt"


def split_samples(text: str) -> list[str]:
    """Sample texts of one persona file: blocks separated by lines holding only ``---``."""
    blocks: list[str] = []
    current: list[str] = []
    for line in text.splitlines():
        if line.strip() == SAMPLE_SEPARATOR:
            blocks.append("\n".join(current))
            current = []
        else:
            current.append(line)
    blocks.append("\n".join(current))
    return [b.strip() for b in blocks if b.strip()]


def _check_has_words(text: str, where: str) -> None:
    if is_wordless(text):
        raise ValueError(f"{where}: text has no words: style features are undefined for an empty text")


def _file_samples(path: Path, field: str) -> list[str]:
    """The sample texts of one ``{persona}.txt`` file, each with a word (file and sample named on failure)."""
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as err:
        raise ValueError(f"{field} file {path} is not UTF-8 text ({err.reason} at byte {err.start})") from err
    samples = split_samples(text)
    if not samples:
        raise ValueError(f"{field} file {path} holds no sample text")
    for k, sample in enumerate(samples):
        _check_has_words(check_text(sample, f"{field} file {path}, sample {k}"), f"{field} file {path}, sample {k}")
    return samples


def check_persona_dir(persona_dir: object) -> Path | None:
    """``persona_dir`` as a path to an existing directory (None passes).

    Raises:
        TypeError: not a ``str`` / ``os.PathLike``; ValueError: an empty path (both naming ``persona_dir``).
        FileNotFoundError: no such directory (or a file), naming ``persona_dir``.
    """
    if persona_dir is None:
        return None
    path = check_path("persona_dir", persona_dir)
    try:
        is_dir = path.is_dir()
    except (OSError, ValueError):  # a name the file system cannot encode is no directory either
        is_dir = False
    if not is_dir:
        raise FileNotFoundError(f"persona_dir {describe(str(path))} is not a directory")
    return path


def _persona_files(directory: str | Path | None) -> dict[str, Traversable]:
    """``{persona: its sample file}`` of ``directory`` (default: the shipped personas), sorted by name.

    Raises:
        TypeError / ValueError / FileNotFoundError: see :func:`check_persona_dir`; a directory without a
            ``{persona}.txt`` file.
    """
    if directory is None:
        root = importlib_resources.files("persona_metrics.persona") / "personas"
        files = {Path(str(f)).stem: f for f in root.iterdir() if f.name.endswith(SAMPLE_SUFFIX)}
    else:
        path = cast(Path, check_persona_dir(directory))  # a path for any directory that is not None
        files = {f.stem: cast(Traversable, f) for f in path.glob(f"*{SAMPLE_SUFFIX}")}
        if not files:
            raise FileNotFoundError(f"no {{persona}}.txt files in persona_dir {path}")
    return dict(sorted(files.items()))


def persona_names(directory: str | Path | None = None) -> tuple[str, ...]:
    """The personas of a folder, sorted: the names of its ``{persona}.txt`` files (default: the shipped ones).

    >>> persona_names()
    ('enthusiast', 'formal_analyst', 'journalist')

    Raises:
        TypeError / ValueError / FileNotFoundError: as :func:`load_persona_samples`, before any file is read.
    """
    return tuple(_persona_files(directory))


#: The shipped personas: the files of ``persona_metrics/persona/personas/`` (:func:`persona_names`).
BUILTIN_PERSONAS: tuple[str, ...] = persona_names()


def load_persona_samples(directory: str | Path | None = None) -> dict[str, list[str]]:
    """``{persona: [texts]}`` from every ``{persona}.txt`` in ``directory`` (default: the shipped personas).

    Raises:
        TypeError / ValueError: ``directory`` is not a path (:func:`check_persona_dir`); a file that is not UTF-8,
            holds no sample or a sample without words (file and sample named).
        FileNotFoundError: the directory does not exist or holds no ``.txt`` file.
    """
    files = _persona_files(directory)
    if directory is None:
        return {name: split_samples(f.read_text(encoding="utf-8")) for name, f in files.items()}
    return {name: _file_samples(cast(Path, f), "persona_dir") for name, f in files.items()}


def check_persona_samples(persona_samples: object, field: str = "persona_samples") -> dict[str, list[str]]:
    """``persona_samples`` as ``{name: [texts]}`` of plain lists (None: ``{}``), every text checked.

    Raises:
        TypeError: not a mapping, a name that is not a string, a value that is not a list of strings (named).
        ValueError: an empty name or list, an empty text, a lone surrogate or a text without words (field, persona
            and index named: ``persona_samples['x'][0]``).
    """
    if persona_samples is None:
        return {}
    if not isinstance(persona_samples, Mapping):
        raise TypeError(
            f"{field} must be a dict {{persona name: [sample texts]}}, got {type(persona_samples).__name__}: "
            f"{describe(persona_samples)}"
        )
    out: dict[str, list[str]] = {}
    for name, texts in persona_samples.items():
        check_text(name, f"{field} key {describe(name)}")
        where = f"{field}[{name!r}]"
        items = as_list(texts, where, "a non-empty list of sample texts")
        if not items:
            raise ValueError(f"{where} must be a non-empty list of texts (it is empty)")
        for i, text in enumerate(items):
            _check_has_words(check_text(text, f"{where}[{i}]"), f"{where}[{i}]")
        out[name] = items
    return out


def resolve_samples(
    persona_samples: Mapping[str, Sequence[str]] | None = None, persona_dir: str | Path | None = None
) -> dict[str, list[str]]:
    """Shipped personas, overridden/extended by ``persona_dir`` files, then by ``persona_samples``.

    Raises:
        TypeError / ValueError / FileNotFoundError: see :func:`check_persona_samples` and
            :func:`load_persona_samples`.
    """
    extra = check_persona_samples(persona_samples)
    samples = load_persona_samples()
    if persona_dir is not None:
        samples |= load_persona_samples(persona_dir)
    return samples | extra


#: The ``posterior`` method's register texts (``persona/register/``: 32 per shipped persona, varied in length and
#: sub-style; provenance in the folder's README).
REGISTER_TEXTS_FILE = "register_texts.jsonl"


@cache
def register_rows(name: str) -> tuple[dict[str, str], ...]:
    """The lines of the JSON-lines file ``name`` of the package's ``persona/register/`` folder, read once."""
    path = importlib_resources.files("persona_metrics.persona") / "register" / name
    return tuple(json.loads(line) for line in path.read_text(encoding="utf-8").splitlines())


@cache
def shipped_register_texts() -> dict[str, tuple[str, ...]]:
    """``{shipped persona: its register texts}``, read once from the package."""
    out: dict[str, list[str]] = {}
    for row in register_rows(REGISTER_TEXTS_FILE):
        out.setdefault(row["persona"], []).append(row["text"])
    return {name: tuple(texts) for name, texts in sorted(out.items())}


@cache
def register_texts_digest() -> str:
    """SHA-256 of the shipped register texts (what a cached posterior model records), computed once."""
    return hashlib.sha256(json.dumps(shipped_register_texts()).encode("utf-8")).hexdigest()


def register_texts(samples: Mapping[str, Sequence[str]]) -> dict[str, tuple[str, ...]]:
    """The register texts the ``posterior`` fit adds to ``samples``: each shipped persona's own, if it has its samples.

    A persona whose samples the user replaced, and a persona of the user's, get none.

    >>> sorted(register_texts(load_persona_samples()))
    ['enthusiast', 'formal_analyst', 'journalist']
    >>> register_texts({"journalist": ["My own wire copy."]})
    {}
    """
    shipped = load_persona_samples()
    return {
        name: texts
        for name, texts in shipped_register_texts().items()
        if name in samples and list(samples[name]) == shipped.get(name)
    }


#: The ``fidelity`` method's extra texts (``persona/register/``): texts in none of the personas' registers, and
#: summary-length texts of the shipped personas (provenance in the folder's README).
BACKGROUND_TEXTS_FILE = "background_texts.jsonl"
SUMMARY_TEXTS_FILE = "summary_texts.jsonl"


@cache
def shipped_background_texts() -> dict[str, tuple[tuple[str, str], ...]]:
    """``{register: ((text, id), …)}``: the shipped texts in none of the personas' registers, read once."""
    out: dict[str, list[tuple[str, str]]] = {}
    for row in register_rows(BACKGROUND_TEXTS_FILE):
        out.setdefault(row["register"], []).append((row["text"], row["id"]))
    return {name: tuple(texts) for name, texts in out.items()}


@cache
def shipped_fidelity_texts() -> dict[str, tuple[tuple[str, str], ...]]:
    """``{shipped persona: ((text, id), …)}``: its register texts and its summary-length texts, read once."""
    out: dict[str, list[tuple[str, str]]] = {}
    for name in (REGISTER_TEXTS_FILE, SUMMARY_TEXTS_FILE):
        for row in register_rows(name):
            out.setdefault(row["persona"], []).append((row["text"], row["id"]))
    return {name: tuple(texts) for name, texts in sorted(out.items())}


@cache
def fidelity_texts_digest() -> str:
    """SHA-256 of the shipped background and summary-length texts (what a cached fidelity model records)."""
    payload = json.dumps([shipped_background_texts(), shipped_fidelity_texts()], sort_keys=True)
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


def fidelity_texts(samples: Mapping[str, Sequence[str]]) -> dict[str, tuple[tuple[str, str], ...]]:
    """The texts the ``fidelity`` fit adds to ``samples``: each shipped persona's own if it has its samples.

    Like :func:`register_texts`, a persona whose samples the user replaced, and a persona of the user's, get none.
    """
    shipped = load_persona_samples()
    return {
        name: texts
        for name, texts in shipped_fidelity_texts().items()
        if name in samples and list(samples[name]) == shipped.get(name)
    }
