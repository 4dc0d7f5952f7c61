"""The one warning helper of the library: :func:`warn`, which attributes each warning to the caller's line.

Every warning the library issues goes through :func:`warn` (category :class:`PersonaMetricsWarning` unless another
is given; ``docs/progress.md`` §2): the stack is walked past the library, its evaluate modules and the Hugging Face
libraries that call them (:data:`INTERNAL_MODULES`), so ``-W``, ``warnings.simplefilter`` and ``pytest.warns``
see the user's line.
"""

from __future__ import annotations

import os
import sys
import warnings
from types import FrameType


class PersonaMetricsWarning(UserWarning):
    """Warnings about data the metrics handle in a documented but noteworthy way."""


#: Modules whose frames :func:`warn` passes over to reach the caller's line: this package, the evaluate modules
#: it ships (loaded as ``evaluate_modules.*``), the Hugging Face libraries that call them, and import machinery.
INTERNAL_MODULES: tuple[str, ...] = (
    "persona_metrics",
    "evaluate",
    "evaluate_modules",
    "datasets",
    "transformers",
    "huggingface_hub",
    "importlib",
    "contextlib",
)
_PACKAGE_DIR = os.path.dirname(os.path.realpath(__file__))
_METRICS_DIR = os.path.realpath(os.path.join(_PACKAGE_DIR, "metrics"))


def _is_internal(frame: FrameType) -> bool:
    name = str(frame.f_globals.get("__name__", ""))
    if any(name == prefix or name.startswith(prefix + ".") for prefix in INTERNAL_MODULES):
        return True
    filename = frame.f_code.co_filename
    if filename.startswith("<frozen importlib"):
        return True
    path = os.path.realpath(filename)
    return any(path.startswith(root + os.sep) for root in (_PACKAGE_DIR, _METRICS_DIR))


def _caller_frame() -> FrameType:
    """The innermost frame outside :data:`INTERNAL_MODULES` (the outermost frame when every frame is internal)."""
    frame = sys._getframe(2)  # the caller of warn()
    while frame.f_back is not None and _is_internal(frame):
        frame = frame.f_back
    return frame


def warn(message: str, category: type[Warning] = PersonaMetricsWarning) -> None:
    """Issue a warning attributed to the user's line that called into the library.

    Every warning of the library goes through here. Instead of a fixed ``stacklevel``, the stack is walked to the
    first frame outside :data:`INTERNAL_MODULES` (the library, its evaluate modules, evaluate / datasets /
    transformers, import machinery), so the warning's ``filename`` and ``lineno`` are those of the caller's
    code whether it called a library function, an evaluate module's ``compute`` or ``evaluate.load``. The
    usual filters (``-W``, ``warnings.simplefilter``, ``pytest.warns``) and once-per-location registry apply
    to that line, as for ``warnings.warn`` (Python 3.12's ``skip_file_prefixes`` does the same; 3.11 lacks it).

    Args:
        message: the warning text.
        category: the warning class (default :class:`PersonaMetricsWarning`).
    """
    frame = _caller_frame()
    module_globals = frame.f_globals
    # No module_globals=: CPython would then ask the caller's __loader__ for the source line, and under
    # `python -c` or the interactive prompt (__main__ with the built-in importer) that raises ImportError
    # instead of warning. warnings.warn does not pass them either; the line is read by file name.
    warnings.warn_explicit(
        message,
        category,
        frame.f_code.co_filename,
        frame.f_lineno,
        module=str(module_globals.get("__name__", "<string>")),
        registry=module_globals.setdefault("__warningregistry__", {}),
    )
