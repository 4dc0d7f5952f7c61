"""Assemble each metric's Hugging Face Space as a self-contained folder, ready to push.

    python scripts/build_spaces.py OUT [--only perseval ...]

``OUT/<name>/`` gets the app (``spaces/<name>/app.py``), the metric script and its card (``README.md`` with the
Space YAML header), a vendored copy of the library (``persona_metrics/`` with a ``.dist-info`` so its version is
known) and ``requirements.txt``: the Space's own list with the ``persona-metrics`` line replaced by the library's
dependencies from ``setup.cfg`` (gradio itself comes from the card's ``sdk_version``). Symbolic links are
resolved: the folder holds plain files only. Run one locally with ``make spaces`` (``SPACE=perseval``).
"""

from __future__ import annotations

import argparse
import configparser
import shutil
import sys
from pathlib import Path

from packaging.requirements import Requirement  # a dependency of evaluate

from persona_metrics import METRICS

ROOT = Path(__file__).resolve().parents[1]
LIBRARY = "persona-metrics"


def setup_metadata() -> tuple[str, list[str]]:
    """The library's version and install requirements, from ``setup.cfg``."""
    config = configparser.ConfigParser()
    config.read(ROOT / "setup.cfg")
    requires = [line.strip() for line in config["options"]["install_requires"].splitlines() if line.strip()]
    return config["metadata"]["version"], requires


def requirement_name(line: str) -> str:
    """The distribution name of a requirement line (``evaluate==0.4.6`` → ``evaluate``)."""
    return Requirement(line).name.lower()


def space_requirements(space_file: Path, library_requires: list[str]) -> str:
    """The Space's requirements with the library line replaced by the library's own dependencies."""
    lines = [ln.strip() for ln in space_file.read_text(encoding="utf-8").splitlines()]
    own = [ln for ln in lines if ln and not ln.startswith("#")]
    if LIBRARY not in {requirement_name(ln) for ln in own}:
        raise ValueError(f"{space_file}: expected a {LIBRARY!r} line to replace with the vendored library")
    merged = {requirement_name(r): r for r in library_requires}
    for line in own:
        if requirement_name(line) != LIBRARY:
            merged[requirement_name(line)] = line
    header = f"# {LIBRARY} is vendored in this folder (persona_metrics/); these are its dependencies.\n"
    return header + "\n".join(merged.values()) + "\n"


def build_space(name: str, out: Path, version: str, library_requires: list[str]) -> Path:
    """Write ``out/<name>/`` and return it (an existing folder is replaced)."""
    source = ROOT / "spaces" / name
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
    (target / "requirements.txt").write_text(space_requirements(source / "requirements.txt", library_requires))
    return target


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path, help="output folder (one sub-folder per Space)")
    parser.add_argument("--only", nargs="+", choices=METRICS, default=list(METRICS), help="build only these Spaces")
    args = parser.parse_args(argv)
    version, requires = setup_metadata()
    for name in args.only:
        target = build_space(name, args.out, version, requires)
        print(f"{name}: {target}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
