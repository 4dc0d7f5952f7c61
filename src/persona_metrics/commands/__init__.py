"""The subcommands of the ``persona-metrics`` console script, one module each.

Every command module has ``NAME``, ``HELP`` (one line for ``persona-metrics --help``), ``DESCRIPTION`` (its
``--help``, which says what the input looks like), ``add_arguments(parser)``, ``run(args) -> int`` and
``main(argv) -> int`` (the same command from Python or a script, without the ``persona-metrics`` dispatcher).
A bad input raises :class:`~persona_metrics.commands.output.InputError`; ``persona-metrics`` prints its message
(which names the file, and the line where there is one) and exits with status 2.

* ``score``: one metric over a JSON-lines file (:mod:`~persona_metrics.commands.score`);
* ``pens``: the PENS personalization leaderboard (:mod:`~persona_metrics.commands.pens`);
* ``merge``: the states files of a sharded ``score`` / ``pens`` run, printed as the unsharded run prints
  (:mod:`~persona_metrics.commands.merge`);
* ``cnndm``: persona quality of summarizers on CNN/DailyMail (:mod:`~persona_metrics.commands.cnndm`);
* ``pipeline``: the persona-quality batch pipeline (:mod:`~persona_metrics.commands.pipeline`);
* ``judge-check``: does a judge separate faithful summaries from false-fact copies?
  (:mod:`~persona_metrics.commands.judge_check`; its judge flags, shared with ``cnndm``:
  :mod:`~persona_metrics.commands.judge_options`);
* ``validity``: the shipped validity suite, each metric's metamorphic properties on hand-written cases
  (:mod:`~persona_metrics.commands.validity`, the library's :mod:`persona_metrics.validity`);
* ``docs``: where the installed documentation (``docs/*.md``) and sample data are
  (:mod:`~persona_metrics.commands.docs`);
* ``register`` and ``list``: the bundled evaluate modules (:mod:`~persona_metrics.commands.register`,
  :mod:`~persona_metrics.commands.list_metrics`).

:mod:`~persona_metrics.commands.bertscore_baseline` is the maintainers' tool behind
``scripts/compute_bertscore_baseline.py`` (not a subcommand: it rewrites a file inside the package).
"""

from __future__ import annotations

import importlib
from types import ModuleType

#: Subcommand name → module of this package, in ``--help`` order.
COMMANDS: dict[str, str] = {
    "score": "score",
    "pens": "pens",
    "cnndm": "cnndm",
    "merge": "merge",
    "pipeline": "pipeline",
    "judge-check": "judge_check",
    "validity": "validity",
    "register": "register",
    "list": "list_metrics",
    "docs": "docs",
}


def command_module(name: str) -> ModuleType:
    """The module implementing subcommand ``name`` (a key of :data:`COMMANDS`)."""
    return importlib.import_module(f"{__name__}.{COMMANDS[name]}")
