"""Assemble each metric's Hugging Face Space as a self-contained folder, ready to push.

    python scripts/build_spaces.py OUT [--only perseval ...]

``OUT/<name>/`` gets the app (``spaces/<name>/app.py``), the metric script and its card (``README.md`` with the
Space YAML header), a vendored copy of the library (``persona_metrics/`` with a ``.dist-info`` so its version is
known) and ``requirements.txt``: the Space's own list with the ``persona-metrics`` line replaced by the library's
dependencies from ``setup.cfg``, those of the extras the line names included (``persona-metrics[neural]``; gradio
itself comes from the card's ``sdk_version``). Symbolic links are
resolved: the folder holds plain files only. Run one locally with ``make spaces`` (``SPACE=perseval``).

Reproducible builds: every requirement is pinned (``name==version``) to the version installed in the environment
that runs this script (the one the tests run with), so the Space installs what was tested here. A requirement
that is not installed, or whose installed version does not satisfy its range, is an error. torch comes from the
PyTorch CPU wheel index (Spaces' free hardware has no GPU; the default PyPI build on Linux pulls several GB of
CUDA libraries). The card's ``python_version`` must name the Python that builds the folder (checked by
``tests/test_spaces.py``).
"""

from __future__ import annotations

import argparse
import configparser
import shutil
import sys
from importlib import metadata
from pathlib import Path

from packaging.requirements import Requirement  # a dependency of evaluate
from packaging.version import Version

from persona_metrics import METRICS

ROOT = Path(__file__).resolve().parents[1]
LIBRARY = "persona-metrics"

#: PyTorch's CPU-only wheel index; its Linux wheels carry the local tag ``+cpu`` (``torch-2.13.0+cpu``).
TORCH_CPU_INDEX = "https://download.pytorch.org/whl/cpu"
# The torch pin is written WITHOUT the local tag (``torch==2.13.0``, not ``torch==2.13.0+cpu``). PEP 440: a pin
# without a local label matches every local variant, and a local version sorts above its public one, so with the
# CPU index line pip (what the Hub runs: ``pip install -r requirements.txt``) picks ``2.13.0+cpu`` from that index.
# Without the index line the same pin still installs 2.13.0 (PyPI's CUDA build), whereas ``==2.13.0+cpu`` exists
# only on the CPU index and fails everywhere else ("No matching distribution"). Checked with pip 26.3 on two
# local indexes holding ``X`` and ``X+cpu``. Local tags are dropped from every pin for the same reason: PyPI
# never hosts local versions.
TORCH_INDEX_LINE = f"--extra-index-url {TORCH_CPU_INDEX}"


class RequirementNotInstalled(RuntimeError):
    """A Space requirement is missing from, or out of range in, the environment that builds the Space."""


def _lines(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if line.strip() and not line.strip().startswith("#")]


def setup_metadata() -> tuple[str, dict[str, list[str]]]:
    """The library's version and requirements from ``setup.cfg``: ``""`` the install requirements, then one list per
    extra (an extra naming ``persona-metrics[...]``, as ``all`` does, gets those extras' lists)."""
    config = configparser.ConfigParser()
    config.read(ROOT / "setup.cfg")
    requires = {"": _lines(config["options"]["install_requires"])}
    for extra, text in config["options.extras_require"].items():
        requires[extra] = []
        for line in _lines(text):
            own = Requirement(line)
            is_library = own.name.lower() == LIBRARY
            requires[extra] += [r for e in sorted(own.extras) for r in requires[e]] if is_library else [line]
    return config["metadata"]["version"], requires


def requirement_name(line: str) -> str:
    """The distribution name of a requirement line (``evaluate==0.4.6`` → ``evaluate``)."""
    return Requirement(line).name.lower()


def installed_pin(line: str) -> str:
    """``line`` pinned to the installed version: ``torch>=2.2,<2.14`` → ``torch==2.13.0`` (local tag dropped).

    Raises:
        RequirementNotInstalled: the distribution is not installed here, or its version is outside ``line``.
    """
    requirement = Requirement(line)
    try:
        installed = metadata.version(requirement.name)
    except metadata.PackageNotFoundError:
        raise RequirementNotInstalled(
            f"{requirement.name!r} (requirement {line!r}) is not installed in {sys.prefix}: the Space pins the "
            f"versions of the environment that builds it; install the project there first (pip install -e '.[all]')"
        ) from None
    if not requirement.specifier.contains(installed, prereleases=True):
        raise RequirementNotInstalled(
            f"{requirement.name} {installed} is installed in {sys.prefix}, outside the requirement {line!r}"
        )
    extras = f"[{','.join(sorted(requirement.extras))}]" if requirement.extras else ""
    marker = f"; {requirement.marker}" if requirement.marker else ""
    return f"{requirement.name}{extras}=={Version(installed).public}{marker}"


def space_requirements(space_file: Path, library_requires: dict[str, list[str]]) -> str:
    """The Space's requirements, pinned, with the library line replaced by the library's own dependencies and those
    of the extras it names (``library_requires`` as :func:`setup_metadata` returns them)."""
    own = _lines(space_file.read_text(encoding="utf-8"))
    library = [Requirement(ln) for ln in own if requirement_name(ln) == LIBRARY]
    if not library:
        raise ValueError(f"{space_file}: expected a {LIBRARY!r} line to replace with the vendored library")
    extras = ["", *sorted(library[0].extras)]
    merged = {requirement_name(r): r for extra in extras for r in library_requires[extra]}
    for line in own:
        if requirement_name(line) != LIBRARY:
            merged[requirement_name(line)] = line
    pins = [installed_pin(merged[name]) for name in sorted(merged)]
    python = f"{sys.version_info.major}.{sys.version_info.minor}.{sys.version_info.micro}"
    header = [
        f"# Written by scripts/build_spaces.py: the exact versions installed where it ran (Python {python}).",
        f"# {LIBRARY} is vendored in this folder (persona_metrics/); these are its dependencies and the app's.",
        "# torch is pinned without its +cpu tag and resolves to the CPU build through the index above.",
    ]
    index = [TORCH_INDEX_LINE] if "torch" in merged else []
    return "\n".join([*index, *header, *pins]) + "\n"


def build_space(name: str, out: Path, version: str, library_requires: dict[str, list[str]]) -> Path:
    """Write ``out/<name>/`` and return it (an existing folder is replaced).

    Raises:
        RequirementNotInstalled: before anything is written, when a requirement cannot be pinned.
    """
    source = ROOT / "spaces" / name
    requirements = space_requirements(source / "requirements.txt", library_requires)
    target = out / name
    if target.exists():
        shutil.rmtree(target)
    target.mkdir(parents=True)
    for file in ("app.py", "README.md", f"{name}.py"):
        shutil.copyfile(source / file, target / file)  # follows the links into metrics/<name>/
    shutil.copytree(
        ROOT / "src" / "persona_metrics",
        target / "persona_metrics",
        symlinks=False,  # metrics/ (a link to the top-level metrics/) is copied as files
        ignore=shutil.ignore_patterns("__pycache__", "*.pyc"),
    )
    dist_info = target / f"persona_metrics-{version}.dist-info"
    dist_info.mkdir()
    (dist_info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {LIBRARY}\nVersion: {version}\n")
    (target / "requirements.txt").write_text(requirements)
    return target


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path, help="output folder (one sub-folder per Space)")
    parser.add_argument("--only", nargs="+", choices=METRICS, default=list(METRICS), help="build only these Spaces")
    args = parser.parse_args(argv)
    version, requires = setup_metadata()
    for name in args.only:
        try:
            target = build_space(name, args.out, version, requires)
        except RequirementNotInstalled as error:
            print(f"build_spaces.py: {name}: {error}", file=sys.stderr)
            return 1
        print(f"{name}: {target}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
