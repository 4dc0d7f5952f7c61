"""The bundled metrics: loading by path (:func:`load`) and bare-name registration in evaluate's modules cache.

``evaluate`` has no plugin mechanism: ``evaluate.load("perseval")`` looks in the working directory, then
the Hub, then its modules cache (``$HF_MODULES_CACHE/evaluate_modules/metrics/evaluate-metric--NAME/<hash>/``,
newest ``NAME.py`` by mtime wins). :func:`register` writes the installed metric scripts there, so the bare
name resolves offline from any directory (``docs/evaluate_conventions.md`` §1.2, §1.7).

This module imports the standard library and floors 1-2 of the package only; :func:`load` imports evaluate on
first use (importing it takes seconds).
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

from persona_metrics.resources import remove_if_stale, replace_file
from persona_metrics.warning import warn

logger = logging.getLogger(__name__)

#: evaluate's namespace for canonical metrics; ``evaluate.load("NAME")`` falls back to it.
DEFAULT_NAMESPACE = "evaluate-metric"


def metrics_dir() -> Path:
    """Directory of the installed metric scripts (``persona_metrics/metrics/<name>/<name>.py``)."""
    return Path(__file__).resolve().parent.parent / "metrics"


def available_metrics() -> tuple[str, ...]:
    """Names of the bundled metrics, sorted."""
    root = metrics_dir()
    return tuple(sorted(p.name for p in root.iterdir() if (p / f"{p.name}.py").is_file()))


def metric_script(name: str) -> Path:
    """Path of a bundled metric's script; ``ValueError`` naming the bundled metrics if unknown."""
    names = available_metrics()
    if name not in names:
        raise ValueError(f"unknown metric {name!r}; bundled metrics are {list(names)}")
    return metrics_dir() / name / f"{name}.py"


def load(name: str, **kwargs: Any) -> Any:
    """Load a bundled metric as an ``evaluate`` module, by the installed script's path (``persona_metrics.load``).

    Makes no network call and logs no warning, from any working directory. A metric registered with
    :func:`~persona_metrics.metric_registry.register_metric` that ships no script gets a module made from its spec
    (:func:`~persona_metrics.integrations.evaluate_support.spec_module`). ``kwargs`` go to ``evaluate.load``
    (``config_name``, ``experiment_id``, ``keep_in_memory`` ...).

    Raises:
        ValueError: an unknown name (the message lists the bundled metrics).
    """
    import evaluate  # heavy (seconds): imported on first use only

    if name not in available_metrics():
        from persona_metrics.metric_registry import METRIC_SPECS

        if name in METRIC_SPECS:  # a registered metric without a script of its own: its module, made from its spec
            from persona_metrics.integrations.evaluate_support import spec_module

            return spec_module(METRIC_SPECS[name])(**kwargs)
    return evaluate.load(str(metric_script(name)), **kwargs)


def modules_cache() -> Path:
    """Evaluate's ``HF_MODULES_CACHE``, resolved with evaluate's own precedence (``evaluate/config.py``)."""
    if os.getenv("HF_MODULES_CACHE"):
        return Path(os.environ["HF_MODULES_CACHE"])
    default_home = os.path.join(os.getenv("XDG_CACHE_HOME", "~/.cache"), "huggingface")
    return Path(os.path.expanduser(os.getenv("HF_HOME", default_home))) / "modules"


def script_hash(path: Path) -> str:
    """Evaluate's module hash: sha256 of the script's lines with comments stripped, joined by newlines."""
    lines = [re.sub(r"#.*", "", line) for line in path.read_text(encoding="utf-8").splitlines(keepends=True)]
    return hashlib.sha256("\n".join(line for line in lines if line).encode("utf-8")).hexdigest()


def _touch_init(directory: Path) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "__init__.py").touch(exist_ok=True)


def _newest(pkg: Path, name: str) -> Path | None:
    scripts = [p for p in pkg.glob(f"*/{name}.py") if len(p.parent.name) == 64]
    return max(scripts, key=lambda p: p.stat().st_mtime) if scripts else None


#: ``.tmp-*`` build directories older than this (seconds) are left over from a killed run and are removed.
STALE_TMP_SECONDS = 600


def _intact(target: Path, name: str, script: Path) -> bool:
    """Whether ``target`` holds an undamaged copy of ``script``: the same bytes, its ``__init__.py`` and metadata."""
    try:
        same = (target / f"{name}.py").read_bytes() == script.read_bytes()
        meta = json.loads((target / f"{name}.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return same and isinstance(meta, dict) and (target / "__init__.py").is_file()


def _remove_stale_tmp(pkg: Path) -> None:
    """Remove what a killed ``register`` left behind (older than :data:`STALE_TMP_SECONDS`).

    Build directories ``pkg/.tmp-*`` and half-written files ``pkg/<hash>/.tmp-*`` of an in-place repair.
    """
    for tmp in (*pkg.glob(".tmp-*"), *pkg.glob("*/.tmp-*")):
        remove_if_stale(tmp, STALE_TMP_SECONDS)


def _contents(target: Path, name: str, script: Path) -> dict[str, bytes]:
    """The files of a registered copy: the script, its metadata (as evaluate writes it) and ``__init__.py``."""
    meta = {"original file path": str(script), "local file path": str(target / f"{name}.py")}
    return {"__init__.py": b"", f"{name}.json": json.dumps(meta).encode(), f"{name}.py": script.read_bytes()}


def _repair(target: Path, name: str, script: Path) -> None:
    """Rewrite a damaged copy in place, file by file, each atomically.

    The version directory never disappears, so a concurrent ``evaluate.load`` sees the damaged files or the
    repaired ones, never "module not found". The script gets an mtime at least a second past the damaged one's,
    so Python's bytecode cache (keyed on whole-second mtime and size) cannot serve the damaged code, and its
    compiled files are removed.
    """
    logger.warning("the registered copy of %s in %s is damaged; rewriting it", name, target)
    script_path = target / f"{name}.py"
    try:
        not_before = script_path.stat().st_mtime + 1
    except OSError:
        not_before = 0.0
    for filename, data in _contents(target, name, script).items():  # the script last: evaluate stats it first
        replace_file(target / filename, data, mode=0o644, not_before=not_before)
    shutil.rmtree(target / "__pycache__", ignore_errors=True)


def _install(target: Path, name: str, script: Path) -> None:
    """Write a fresh copy of ``script`` at ``target`` atomically: a new version directory appears whole."""
    if target.is_dir():
        _repair(target, name, script)
        return
    if target.exists() or target.is_symlink():  # a file where the version directory belongs
        logger.warning("%s is not a directory; replacing it with the registered copy of %s", target, name)
        target.unlink()
    pkg = target.parent
    tmp = Path(tempfile.mkdtemp(prefix=".tmp-", dir=pkg))
    try:
        os.chmod(tmp, 0o755)
        for filename, data in _contents(target, name, script).items():
            (tmp / filename).write_bytes(data)
        try:
            os.rename(tmp, target)
            logger.info("registered %s in %s", name, target)
        except OSError:  # another process registered the same version first
            if not _intact(target, name, script):
                raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def register(names: list[str] | tuple[str, ...] | None = None, namespace: str = DEFAULT_NAMESPACE) -> list[Path]:
    """Copy the bundled metric scripts into evaluate's modules cache so bare names resolve offline.

    Idempotent and safe when several processes run it at once (each new copy built aside and renamed into place).
    A registered copy is verified byte for byte and a damaged one repaired in place, file by file, so a concurrent
    ``evaluate.load`` never finds the version gone; it is made the newest, so it wins over older and newer
    registrations; a killed run's leftovers are removed (``docs/evaluate_conventions.md`` §1.7). ``import
    persona_metrics`` calls this once; the fast path reads the scripts and their copies and writes nothing.

    Args:
        names: metrics to register (default: all bundled metrics).
        namespace: ``"evaluate-metric"`` for ``evaluate.load("NAME")``; an org name for
            ``evaluate.load("org/NAME")``.

    Returns:
        The registered directories, one per metric.
    """
    root = modules_cache()
    metrics_pkg = root / "evaluate_modules" / "metrics"
    for directory in (root, root / "evaluate_modules", metrics_pkg):
        _touch_init(directory)
    done = []
    for name in names if names is not None else available_metrics():
        script = metric_script(name)
        pkg = metrics_pkg / f"{namespace}--{name}"
        _touch_init(pkg)
        _remove_stale_tmp(pkg)
        target = pkg / script_hash(script)
        if not _intact(target, name, script):
            _install(target, name, script)
        newest = _newest(pkg, name)
        if newest is not None and newest.parent != target:  # newer than the newest, even a future mtime
            stamp = max(time.time(), newest.stat().st_mtime + 1)
            os.utime(target / f"{name}.py", (stamp, stamp))
        done.append(target)
    return done


def warn_if_stale(name: str, loaded_script: str | Path) -> None:
    """Warn when a metric script loaded from evaluate's cache differs from the installed one.

    Called by each metric script at import: a cached copy from an older ``persona-metrics`` version
    keeps loading by bare name until ``persona-metrics register`` is run again.
    """
    try:
        installed = metric_script(name)
    except ValueError:
        return
    loaded = Path(loaded_script)
    if loaded.resolve() == installed.resolve() or not loaded.is_file():
        return
    if script_hash(loaded) != script_hash(installed):
        warn(
            f"the {name!r} module loaded from {loaded.parent} is not the installed version; "
            "run `persona-metrics register` to update evaluate's cache",
            UserWarning,
        )
