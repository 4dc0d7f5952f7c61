"""Glue shared by the bundled ``evaluate`` modules (no evaluate import here; no arithmetic either).

The modules turn results into evaluate's plain dicts with the results' own ``as_dict`` methods.
"""

from __future__ import annotations

import contextlib
import inspect
import os
from collections.abc import Mapping
from typing import Any, TypeVar

from persona_metrics.extras import require_extra
from persona_metrics.metric_spec import MetricSpec
from persona_metrics.params import Params, option_names
from persona_metrics.validation import check_bool, check_ids, check_reference_lists, check_texts

P = TypeVar("P", bound=Params)


class ValidatedTextInputs:
    """Mixin for ``evaluate.Metric`` subclasses whose inputs are aligned lists of strings.

    evaluate checks only the first item of a batch for type, and its errors do not name the index; this mixin
    checks every item (:func:`~persona_metrics.validation.check_texts`, ids with
    :func:`~persona_metrics.validation.check_ids`), option names (:meth:`check_option_names`) and values
    (:meth:`check_option_values`: the params objects built) before evaluate writes anything, so bad input fails
    with the field and index. Put it *before* ``evaluate.Metric`` in the bases; a module sets ``_spec`` (its
    inputs, row options, params and extra) and ``_empty_ok`` (the inputs that may hold empty strings).

    The module's options are facts of its params classes: every field of ``_params`` (less ``_params_not_taken``)
    is a ``_compute`` keyword with the field's default, every other keyword an input, an id option or a
    ``return_*`` flag (``tests/test_option_facts.py``); the hooks, the distributed classes and the CLI read them.
    """

    _text_fields: tuple[str, ...] = ("predictions", "references")
    _empty_ok: tuple[str, ...] = ("predictions",)
    #: Compute options that hold one value per item (converted to a plain list and checked like the texts).
    _id_options: tuple[str, ...] = ()
    #: The params classes whose fields are the module's compute options; each is built from the options given.
    _params: tuple[type[Params], ...] = ()
    #: Fields of ``_params`` that do not change this module's numbers and so are not its options (P-Acc's α and β
    #: for ``perseval``, which does not report P-Acc).
    _params_not_taken: tuple[str, ...] = ()
    #: The install extra every use of the module needs (``"neural"``, ``"vert"``), checked when it is loaded.
    _extra: str | None = None
    #: The metric's spec (:mod:`persona_metrics.metric_registry`): a module that sets it takes its inputs
    #: (``_text_fields``), row options (``_id_options``), params and extra from it, unless it sets them itself.
    _spec: MetricSpec | None = None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """Take the module's facts from its :attr:`_spec` where the module does not set them."""
        super().__init_subclass__(**kwargs)
        spec = cls.__dict__.get("_spec")
        if spec is None:
            return
        facts = {"_text_fields": spec.inputs, "_id_options": spec.row_options, "_params": spec.params}
        for name, value in {**facts, "_extra": spec.extra}.items():
            if name not in cls.__dict__:
                setattr(cls, name, value)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        """Refuse to load without the module's install extra (one line naming it), then set up as evaluate does.

        Raises:
            MissingExtraError: a module of :attr:`_extra` is not installed (a ModuleNotFoundError).
        """
        if self._extra is not None:
            require_extra(type(self).__module__.rpartition(".")[2], self._extra)  # the script's name: the metric's
        super().__init__(*args, **kwargs)

    @classmethod
    def param_options(cls) -> tuple[str, ...]:
        """The compute options that are fields of :attr:`_params` (less ``_params_not_taken``), in declaration order."""
        return tuple(name for name in option_names(cls._params) if name not in cls._params_not_taken)

    def check_option_values(self, **options: Any) -> dict[type[Params], Params]:
        """Check the values of compute options before any data is scored; the params objects built.

        Run by :meth:`compute` and, when they are built, by the training hook and the distributed metric classes,
        so a bad value fails at once and the same way everywhere. ``return_*`` flags must be bools, id options
        lists of ids; each params class of :attr:`_params` is built from the options that are its fields (its own
        checks and messages). Names are not checked here (evaluate rejects unknown options; the hook checks them
        against ``_compute``).

        Raises:
            TypeError / ValueError: a bad value, naming the option.
        """
        for key, value in options.items():
            if key.startswith("return_"):
                check_bool(key, value)
        for key in self._id_options:
            check_ids(options.get(key), key)
        return {params: params(**params.split(options)[0]) for params in self._params}

    def checked_params(self, cls: type[P], values: Mapping[str, Any]) -> P:
        """The params object of this computation: the one :meth:`compute` checked, else built from ``values``.

        ``_compute`` passes it down to the library, so each option is checked once per computation.

        Args:
            cls: a params class of :attr:`_params`.
            values: ``_compute``'s keywords (``locals()``): the fields it takes, with their defaults (a field it does
                not take, :attr:`_params_not_taken`, keeps the class's default).
        """
        checked = vars(self).get("_checked_params", {}).get(cls)
        return checked if checked is not None else cls(**{name: values[name] for name in cls.names() if name in values})

    def check_option_names(self, options: Any) -> None:
        """Refuse compute options that ``_compute`` does not take, before any data is written.

        Raises:
            TypeError: an unknown option (the metric's options named).
        """
        params = inspect.signature(self._compute).parameters  # type: ignore[attr-defined]
        if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()):
            return
        known = [k for k in params if k not in self._text_fields]
        unknown = sorted(str(k) for k in options if k not in params)
        if unknown:
            raise TypeError(f"unknown option(s) {unknown} for this metric; its options are {known}")

    def library_result(self, **kwargs: Any) -> Any:
        """The library's result object for checked inputs and options, where ``compute`` gives its dict.

        For the callers that merge results of parts of one input (the distributed metric classes): a part's
        result, then :func:`persona_metrics.merge`, then :meth:`present`. The inputs must already be checked
        (:meth:`validated`, :meth:`check_option_values`); evaluate's writer is not involved.
        """
        self._want_result = True
        try:
            return self._compute(**kwargs)  # type: ignore[attr-defined]
        finally:
            self._want_result = False

    def _output(self, result: Any, **options: Any) -> Any:
        """What ``_compute`` returns: :meth:`present` of the library's result (for :meth:`library_result`: itself)."""
        return result if vars(self).get("_want_result") else self.present(result, **options)

    def present(self, result: Any, **options: Any) -> dict[str, Any]:
        """The module's output dict of a library result, under the compute ``options`` (each module defines it)."""
        raise NotImplementedError

    def compute(self, **kwargs: Any) -> Any:
        """Check the options' values (:meth:`check_option_values`), then compute as evaluate does.

        When the computation fails, the module's cache files (``.arrow`` and its ``.lock`` in evaluate's data
        directory) are deleted as evaluate deletes them after a successful one, so repeated failures leave nothing
        behind and the module is ready for the next call.
        """
        options = {k: v for k, v in kwargs.items() if k not in self._text_fields}
        self.check_option_names(options)
        self._checked_params = self.check_option_values(**options)  # the objects _compute passes down
        for key in self._id_options:
            if kwargs.get(key) is not None:
                kwargs[key] = check_ids(kwargs[key], key)
        if all(kwargs.get(k) is None for k in self._text_fields) and not self._has_added_data():
            raise ValueError(
                f"no inputs: {', '.join(self._text_fields)} are all missing and nothing was added with add or add_batch"
            )
        try:
            return super().compute(**kwargs)  # type: ignore[misc]
        except Exception:
            self._discard_cache_files()
            raise
        finally:
            self._checked_params = {}

    def _has_added_data(self) -> bool:
        """Whether ``add`` / ``add_batch`` wrote rows for this computation (evaluate's writer exists)."""
        state = vars(self)
        return state.get("writer") is not None or state.get("buf_writer") is not None

    def _discard_cache_files(self) -> None:
        """Delete this computation's cache files and release their locks (evaluate keeps them after a failure)."""
        state = vars(self)
        pairs = list(zip(state.get("filelocks") or [], state.get("file_paths") or [], strict=False))
        for lock, path in reversed(pairs):
            with contextlib.suppress(OSError):
                os.remove(path)
            lock.release()
            with contextlib.suppress(OSError):
                os.remove(lock.lock_file)
        for name in ("data", "writer", "buf_writer", "filelocks", "file_paths"):
            if name in state:
                setattr(self, name, None)

    def _text_features(self) -> Any:
        """``datasets.Features`` with one string column per name in ``_text_fields`` (in order)."""
        import datasets

        return datasets.Features({name: datasets.Value("string", id="sequence") for name in self._text_fields})

    def _present(self, fields: dict[str, Any], names: dict[str, str] | None = None) -> dict[str, Any]:
        """The text fields given in ``fields`` (under ``names``), refusing a batch that gives only some of them.

        Raises:
            TypeError: some text fields given and another missing or None (named).
        """
        names = names or {}
        present = {k: fields[names.get(k, k)] for k in self._text_fields if fields.get(names.get(k, k)) is not None}
        missing = [names.get(k, k) for k in self._text_fields if k not in present]
        if present and missing:
            needed = ", ".join(names.get(k, k) for k in self._text_fields)
            raise TypeError(f"{missing[0]} is missing (None); this metric needs {needed}")
        return present

    def _checked(self, present: dict[str, Any]) -> dict[str, Any]:
        """The present text fields as checked plain lists (field and index named on failure)."""
        return check_texts(allow_empty=self._empty_ok, **present)

    def validated(self, fields: dict[str, Any]) -> dict[str, Any]:
        """The text fields of ``fields`` as checked plain lists (field and index named on failure).

        Raises:
            TypeError / ValueError: a missing field, a bad container or item (field and index named).
        """
        present = self._present(fields)
        return self._checked(present) if present else present

    def add_batch(self, **kwargs: Any) -> None:
        """Validate every item, then hand the batch (plain lists) to evaluate."""
        kwargs.update(self.validated(kwargs))
        super().add_batch(**kwargs)  # type: ignore[misc]

    def add(self, **kwargs: Any) -> None:
        """Validate one example, then hand it to evaluate."""
        singular = {"predictions": "prediction", "references": "reference"}  # evaluate's names in add()
        present = self._present(kwargs, singular)
        if present:
            for name, values in self._checked({k: [v] for k, v in present.items()}).items():
                kwargs[singular.get(name, name)] = values[0]
        super().add(**kwargs)  # type: ignore[misc]


class ValidatedReferenceLists(ValidatedTextInputs):
    """:class:`ValidatedTextInputs` for modules whose ``references`` hold one string or a list per prediction.

    The multi-reference convention of evaluate's ``rouge``. Every item is checked before evaluate encodes it
    (``persona_metrics.validation.check_reference_lists`` names the field and index), and a single reference
    is stored as a one-item list, so one call (or several ``add_batch`` calls) may mix both forms. The input
    features are ``predictions`` (and the other ``_text_fields``) as strings and ``references`` as a sequence
    of strings. ``_compute`` receives one list of references per prediction.
    """

    _text_fields: tuple[str, ...] = ("predictions", "references")
    _empty_ok: tuple[str, ...] = ("predictions",)

    def _text_features(self) -> Any:
        """``datasets.Features``: one string per text field, a sequence of strings for ``references``."""
        import datasets

        text = datasets.Value("string", id="sequence")
        return datasets.Features(
            {
                name: datasets.Sequence(text, id="references") if name == "references" else text
                for name in self._text_fields
            }
        )

    def _checked(self, present: dict[str, Any]) -> dict[str, Any]:
        """The present fields as checked plain lists, ``references`` as one list of strings per item."""
        texts = {k: v for k, v in present.items() if k != "references"}
        out = check_texts(allow_empty=self._empty_ok, **texts) if texts else {}
        if present.get("references") is None:
            return out
        references = check_reference_lists(present["references"])
        if out and len(references) != len(next(iter(out.values()))):
            first = next(iter(out))
            raise ValueError(
                f"references has {len(references)} items but {first} has {len(out[first])}; they must align"
            )
        return {**out, "references": references}


# --- option facts shared by the training hooks and the distributed metric classes ----------------------------
#: The inputs a model's outputs fill (never given as dataset columns or compute options).
MODEL_INPUTS = ("predictions", "references")


def input_names(module: Any) -> list[str]:
    """The metric's input features (``predictions``, ``references``, ``personas`` ...), in order."""
    features = module.features
    if isinstance(features, list):
        features = features[0]
    return list(features)


def check_option_names(module: Any, name: str, mapping: Mapping[str, str], compute_kwargs: Mapping[str, Any]) -> None:
    """Check that column keys and compute options are inputs of the metric, each given once.

    Checked when the hook is built, so a typo fails at once, not after the first training epoch.
    """
    for key in MODEL_INPUTS:
        if key in mapping or key in compute_kwargs:
            raise ValueError(f"{key!r} comes from the model outputs; do not pass it in columns or compute options")
    clash = sorted(set(mapping) & set(compute_kwargs))
    if clash:
        raise ValueError(f"{clash} given both as columns and as compute options; give each once")
    compute = getattr(module, "_compute", None)
    if compute is None:
        return
    params = inspect.signature(compute).parameters
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()):
        return
    for what, keys in (("columns", mapping), ("compute options", compute_kwargs)):
        unknown = [k for k in keys if k not in params]
        if unknown:
            raise ValueError(f"{what} {unknown} are not inputs of metric {name!r}; its inputs are {list(params)}")


# --- an evaluate module made from a metric spec --------------------------------------------------------------
#: The output flags of a module made by :func:`spec_module`.
SPEC_MODULE_FLAGS: tuple[str, ...] = ("return_per_item", "return_signature")


def spec_module(spec: MetricSpec) -> type:
    """An ``evaluate.Metric`` class for a registered metric that ships no script of its own.

    Its inputs, options (the fields of the spec's params class, then :data:`SPEC_MODULE_FLAGS`) and checks are the
    spec's and :class:`ValidatedTextInputs`'; ``compute`` returns the result's
    :meth:`~persona_metrics.results.ItemResult.summary`, with ``per_item`` and ``signature`` on request.
    :func:`persona_metrics.load` builds one for such a metric, so the hooks and the distributed classes find it.
    """
    import evaluate  # heavy (seconds): imported on first use only

    (params_class,) = spec.params
    base = ValidatedReferenceLists if spec.list_inputs else ValidatedTextInputs
    parameters = [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
    parameters += [inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY) for name in spec.inputs]
    parameters += [
        inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=params_class.default(name))
        for name in params_class.names()
    ]
    parameters += [inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=False) for name in SPEC_MODULE_FLAGS]

    def _info(self: Any) -> Any:
        return evaluate.MetricInfo(
            description=f"{spec.name}: a metric of the {spec.family} family (persona-metrics registry)",
            citation="",
            inputs_description=f"inputs {list(spec.inputs)}; options {list(params_class.names())}",
            features=self._text_features(),
        )

    def _compute(self: Any, **kwargs: Any) -> Any:
        flags = {name: kwargs.pop(name, False) for name in SPEC_MODULE_FLAGS}
        inputs = {name: kwargs.pop(name) for name in spec.inputs}
        return self._output(spec.score(inputs, params=params_class(**kwargs)), **flags)

    def present(self: Any, result: Any, return_per_item: bool = False, return_signature: bool = False, **_: Any) -> Any:
        return result.summary_dict(return_per_item, return_signature)

    _compute.__signature__ = inspect.Signature(parameters)  # type: ignore[attr-defined]
    attributes = {"_spec": spec, "_info": _info, "_compute": _compute, "present": present, "__module__": __name__}
    return type(f"{spec.name.title().replace('_', '')}Module", (base, evaluate.Metric), attributes)
