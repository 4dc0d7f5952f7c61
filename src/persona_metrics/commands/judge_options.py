"""The judge's command-line flags, shared by ``persona-metrics cnndm`` and ``persona-metrics judge-check``.

Each flag's type, default, allowed values (or range) and help come from
:class:`~persona_metrics.summary_eval.params.JudgeOptions`; ``--rubric`` lists the rubric registry as it is. A value
out of range is refused when the judge is built, in one line naming the option and its range (exit status 2).
"""

from __future__ import annotations

import argparse
import ipaddress
import os
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from persona_metrics.commands.output import InputError
from persona_metrics.summary_eval.judge import API_KEY_ENV
from persona_metrics.summary_eval.params import JudgeOptions
from persona_metrics.summary_eval.rubrics import RUBRICS

#: The judge options with a ``--NAME`` flag of their own (besides model, base URL, key, cache).
FLAGGED_OPTIONS = (
    "timeout",
    "concurrency",
    "max_retries",
    "response_format",
    "scoring",
    "rubric",
    "max_tokens",
    "top_logprobs",
    "context_tokens",
)


def add_judge_arguments(parser: argparse.ArgumentParser, title: str, model_required: bool) -> argparse._ArgumentGroup:
    """The judge's group: ``-m/--model``, ``--base-url``, ``--api-key-env``, the flagged options and the cache.

    Args:
        parser: the command's parser.
        title: the group's title in ``--help``.
        model_required: whether ``-m/--model`` must be given (else no model means no judge).

    Returns:
        The group, for the command's own judge flags.
    """
    group = parser.add_argument_group(title)
    group.add_argument(
        "-m",
        "--model",
        required=model_required,
        default=None,
        help="the judge's model name" + ("" if model_required else "; without it, no accuracy"),
    )
    group.add_argument("--base-url", default=None, help="an OpenAI-compatible endpoint, e.g. http://127.0.0.1:8080/v1")
    group.add_argument("--api-key-env", default=API_KEY_ENV, help=f"variable holding the key (default {API_KEY_ENV})")
    for name in FLAGGED_OPTIONS:
        _judge_option(group, name, choices=tuple(RUBRICS) if name == "rubric" else None)  # the registry as it is now
    group.add_argument(
        "--cache-dir", type=Path, default=None, help="the judge answer cache (default <cache>/judge, see above)"
    )
    group.add_argument("--no-cache", action="store_true", help="no judge answer cache")
    return group


def _judge_option(group: argparse._ArgumentGroup, name: str, choices: tuple[str, ...] | None = None) -> None:
    """``--NAME`` for the judge option ``name``: its type, default, allowed values or range and help from JudgeOptions.

    The range is shown in the help and checked when the judge is built (:func:`make_judge`), with the library's
    message.
    """
    spec, default = JudgeOptions.spec(name), JudgeOptions.default(name)
    shown = f"{default:g}" if isinstance(default, float) else default
    allowed = f"; {spec.allowed()}" if spec.interval is not None else ""
    group.add_argument(
        "--" + name.replace("_", "-"),
        type=int if spec.integer else type(default),
        choices=choices or spec.choices,
        default=default,
        help=f"{spec.help} (default {shown}{allowed})",
    )


def judge_flags_given(args: argparse.Namespace) -> list[str]:
    """The judge flags of :func:`add_judge_arguments` given a value other than their default, as typed (``--timeout``).

    A run without a judge would ignore them, so it refuses them instead (:func:`make_judge`, ``score``).
    """
    defaults: dict[str, Any] = {"model": None, "base_url": None, "api_key_env": API_KEY_ENV}
    defaults |= {name: JudgeOptions.default(name) for name in FLAGGED_OPTIONS} | {"cache_dir": None, "no_cache": False}
    return [
        "-m/--model" if name == "model" else "--" + name.replace("_", "-")
        for name, default in defaults.items()
        if getattr(args, name, default) != default
    ]


def is_local(base_url: str) -> bool:
    """Whether ``base_url`` points at this machine (a loopback address or ``localhost``)."""
    host = urlparse(base_url).hostname or ""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def make_judge(args: argparse.Namespace, known_answers: dict[str, dict[str, Any]] | None = None) -> Any:
    """The judge of ``-m/--model`` (None without one); the key from ``--api-key-env``.

    Args:
        args: the parsed command line (the flags of :func:`add_judge_arguments`).
        known_answers: answers read back from a results file (by request key), used instead of calls.

    Raises:
        ValueError: no key in the named variable for a server that is not on this machine (the option named),
            a bad judge option, or judge flags without ``-m/--model`` (no judge would read them).
    """
    from persona_metrics.summary_eval.judge import Judge
    from persona_metrics.summary_eval.judge_cache import default_cache_dir

    if args.model is None:
        if given := judge_flags_given(args):
            raise ValueError(f"{', '.join(given)}: judge options, but no judge: give -m/--model, or drop them")
        return None
    key = os.environ.get(args.api_key_env)
    if key is None and args.base_url is not None and is_local(args.base_url):
        key = "none"  # a local server without authentication (documented in --help)
    if key is None:
        raise ValueError(
            f"no API key for the judge: set the environment variable {args.api_key_env} (option --api-key-env), "
            "or point --base-url at a server on this machine"
        )
    return Judge(
        args.model,
        base_url=args.base_url,
        api_key=key,
        known_answers=known_answers,
        cache_dir=None if args.no_cache else (args.cache_dir or default_cache_dir()),
        **{name: getattr(args, name) for name in FLAGGED_OPTIONS},
    )


def judge_failure(err: Exception, judge: Any, results: Path | None = None) -> InputError:
    """The command's one-line error for a judge failure, saying where the finished items are kept.

    Args:
        err: the :class:`~persona_metrics.summary_eval.judge_client.JudgeError`.
        judge: the failed judge (its ``cache``, when it has one, keeps every answer it got).
        results: the ``--out`` results file, when the command writes one.
    """
    kept = (["the judge cache"] if getattr(judge, "cache", None) is not None else []) + (
        [str(results)] if results is not None else []
    )
    saved = f"; finished items are saved in {' and '.join(kept)}: rerun the same command to go on" if kept else ""
    return InputError(f"{err}{saved}")
