"""One metric as the whole package knows it: a frozen :class:`MetricSpec` (``docs/add_a_metric.md``).

Each family declares the spec of each of its evaluate names in its ``spec.py``, beside its params;
:mod:`persona_metrics.metric_registry` collects them. Every per-metric table of the package reads the spec: the
library call and its inputs (engine parts, Ray, the CLI), the layout of its states (documents or items), the training
hook's dataset columns, the empty-prediction policy, the distributed classes, ``score``, ``merge`` and the validity
runner. A new metric is one spec, its params and its library function; nothing above the family names it.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from persona_metrics.params import Params
from persona_metrics.state_fields import ItemCodec


def resolve(target: str) -> Any:
    """The object a ``"package.module:name"`` string names, imported on first use."""
    module, _, name = target.partition(":")
    return getattr(importlib.import_module(module), name)


@dataclass(frozen=True)
class MetricSpec:
    """What the package knows of one metric (one ``evaluate.load`` name).

    Attributes:
        name: the evaluate name (``"vert"``).
        family: the subpackage that declares it (``"vert"``).
        function: the library function (or ``"module:name"``, imported on first use): called with the inputs in
            order, then keywords (``params=`` a params object, or its options one by one); returns a :attr:`result`.
        inputs: the function's positional inputs, in order: the evaluate module's features, the engines' columns,
            and (singular, :meth:`field_of`) the fields of a ``score`` input line.
        params: the params classes whose fields are its options (:mod:`persona_metrics.params`); a per-item metric
            has one, which its function takes as ``params=``.
        result: the result type the function returns (for a DEGRESS / PerSEval part of single-reference documents
            only, :class:`~persona_metrics.personalization.ExcludedPart`).
        headline: the result key ``score -q`` prints and a hook's ``metric_for_best_model`` would pick.
        row_options: keyword inputs that hold one value per item (``document_ids``), taken when present.
        by_document: a part must hold whole documents (DEGRESS / PerSEval: per-document states), else any items.
        hook_columns: the Trainer hook's default dataset column of each input other than the model's outputs.
        list_inputs: inputs whose ``score`` line field may hold a list of strings (VERT's references).
        wordless_empty: a prediction without a word counts as empty (the style metrics: style needs a word).
        empty_rewarded: the score of an empty summary rewards it (DEGRESS: the hooks' warning says so).
        extra: the install extra every use needs (``"neural"``), or None.
        judged: its function takes an LLM judge as ``judge=`` (the CLI's ``-m``/``--base-url`` build one).
        validity: its validity suite, a :class:`~persona_metrics.validity.runner.Suite` (or ``"module:name"`` of
            one) that the runner measures; None for the shipped metrics (the runner's own suites) and for a metric
            without one.
        codec: how its result writes itself as per-item states lines and is rebuilt from them
            (:class:`~persona_metrics.state_fields.ItemCodec`); None for a per-document metric, whose states are its
            documents' lines (``personalization/states.py``).
    """

    name: str
    family: str
    function: str | Callable[..., Any]
    inputs: tuple[str, ...]
    params: tuple[type[Params], ...]
    result: type
    headline: str
    row_options: tuple[str, ...] = ()
    by_document: bool = False
    hook_columns: Mapping[str, str] = field(default_factory=dict)
    list_inputs: tuple[str, ...] = ()
    wordless_empty: bool = False
    empty_rewarded: bool = False
    extra: str | None = None
    judged: bool = False
    validity: Any = None
    codec: ItemCodec | None = None

    @property
    def layout(self) -> str:
        """``"documents"`` (per-document states: :attr:`by_document`) or ``"items"``."""
        return "documents" if self.by_document else "items"

    @staticmethod
    def field_of(name: str) -> str:
        """The field of a ``score`` input line for input ``name``: its singular (``personas`` → ``persona``)."""
        return name.removesuffix("s")

    def library_function(self) -> Callable[..., Any]:
        """The library function (imported on first use)."""
        if callable(self.function):
            return self.function
        function: Callable[..., Any] = resolve(self.function)
        return function

    def score(self, columns: Mapping[str, Sequence[Any]], **keywords: Any) -> Any:
        """The library's result over ``columns`` (every input by name; :attr:`row_options` when present).

        Args:
            columns: the inputs by name (other names are ignored).
            **keywords: the function's keywords (``params=``, or the options one by one).

        Raises:
            ValueError: a missing input (named); the library's own errors.
        """
        missing = [name for name in self.inputs if name not in columns]
        if missing:
            raise ValueError(f"{self.name} needs the inputs {list(self.inputs)}; missing {missing}")
        rows = {name: columns[name] for name in self.row_options if name in columns}
        return self.library_function()(*(columns[name] for name in self.inputs), **rows, **keywords)

    def make_params(self, options: Mapping[str, Any]) -> tuple[Any, ...]:
        """One params object per class of :attr:`params`, each built from the options that are its fields.

        The caller checks the option names first (an option of no class is not used here).
        """
        return tuple(params(**params.split(options)[0]) for params in self.params)

    def known_columns(self) -> Iterable[str]:
        """Every input and row option, in order."""
        return (*self.inputs, *self.row_options)
