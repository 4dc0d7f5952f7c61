"""The import graph of ``src/persona_metrics``: every import points down a floor, and no import circle.

Every import statement counts, also inside functions and under ``TYPE_CHECKING``. The floors (``docs/layout.md``):

1. validation, warning, extras, signature, formatting, progress, params, merging, line_checks: no package import
   above them;
2. significance (array statistics only), resources, text_services (the text services VERT and SummaryEval share);
3. distances;
4. the families: personalization, persona, vert, summary_eval (no family imports another: what two families share
   lives on a floor below);
5. datasets;
6. integrations;
7. commands, cli;

with the package ``__init__`` and the bundled metric scripts (``persona_metrics/metrics``) on top.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "persona_metrics"
ROOT = "persona_metrics"

#: Floor of each top-level module or subpackage of the package (by the name after ``persona_metrics.``). A new
#: top-level module must be given its floor here.
FLOORS: dict[str, int] = {
    "validation": 1,
    "warning": 1,
    "extras": 1,
    "signature": 1,
    "formatting": 1,
    "progress": 1,
    "params": 1,
    "merging": 1,
    "line_checks": 1,
    "metric_spec": 1,
    "state_fields": 1,
    "results": 1,
    "significance": 2,
    "resources": 2,
    "text_services": 2,
    "distances": 3,
    "personalization": 4,
    "persona": 4,
    "vert": 4,
    "summary_eval": 4,
    "datasets": 5,
    "validity": 5,
    "metric_registry": 5,
    "sharding": 5,
    "integrations": 6,
    "app_support": 6,
    "commands": 7,
    "cli": 7,
    "metrics": 8,
}
#: The metric families of floor 4: none imports another (what two of them share lives below).
FAMILIES: tuple[str, ...] = ("personalization", "persona", "vert", "summary_eval")
#: The floor of the package ``__init__`` (``import persona_metrics`` loads the registry and registers).
TOP = 8


def _modules() -> dict[str, Path]:
    out = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return out


def _resolve(name: str, modules: dict[str, Path]) -> str:
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name


def _edges() -> dict[str, set[str]]:
    """Module → the package modules it imports (every import statement of the file)."""
    modules = _modules()
    edges: dict[str, set[str]] = {m: set() for m in modules}
    for module, path in modules.items():
        base = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                parent = base[: len(base) - node.level + 1]
                origin = ".".join([*parent, node.module or ""]).rstrip(".") if node.level else (node.module or "")
                targets = [f"{origin}.{a.name}" if f"{origin}.{a.name}" in modules else origin for a in node.names]
            for target in targets:
                resolved = _resolve(target, modules)
                if resolved.startswith("persona_metrics") and resolved != module:
                    edges[module].add(resolved)
    return edges


def _reachable(edges: dict[str, set[str]], start: str) -> set[str]:
    seen, todo = set(), [start]
    while todo:
        for nxt in edges[todo.pop()]:
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return seen


def circles() -> set[frozenset[str]]:
    """The groups of two or more modules that all reach each other through imports (``__init__`` files aside:
    a package re-exporting its modules is not a circle of the modules)."""
    edges = _edges()
    leaves = {m for m, path in _modules().items() if path.name != "__init__.py"}
    edges = {m: targets & leaves for m, targets in edges.items() if m in leaves}
    reach = {m: _reachable(edges, m) for m in edges}
    groups = {frozenset({m} | {o for o in reach[m] if m in reach[o]}) for m in edges}
    return {group for group in groups if len(group) > 1}


def floor(module: str) -> int | None:
    """The floor of a package module (``None``: not in :data:`FLOORS`)."""
    if module == ROOT:
        return TOP
    return FLOORS.get(module.split(".")[1])


def upward_imports(edges: dict[str, set[str]]) -> list[str]:
    """``"importer (floor) -> imported (floor)"`` for every import of a module on a higher floor."""
    found = []
    for module, targets in sorted(edges.items()):
        below = floor(module)
        for target in sorted(targets):
            above = floor(target)
            if below is not None and above is not None and above > below:
                found.append(f"{module} ({below}) -> {target} ({above})")
    return found


def sideways_imports(edges: dict[str, set[str]]) -> list[str]:
    """``"importer -> imported"`` for every import of a module of one family by a module of another."""
    found = []
    for module, targets in sorted(edges.items()):
        family = module.split(".")[1] if "." in module else None
        for target in sorted(targets):
            other = target.split(".")[1] if "." in target else None
            if family in FAMILIES and other in FAMILIES and other != family:
                found.append(f"{module} -> {target}")
    return found


def test_every_module_has_a_floor() -> None:
    assert [m for m in sorted(_modules()) if floor(m) is None] == []


def test_every_import_points_down() -> None:
    assert upward_imports(_edges()) == []


def test_no_family_imports_another() -> None:
    """The families share services from the floors below (text_services, distances), not each other's modules."""
    assert sideways_imports(_edges()) == []


def test_no_import_circle() -> None:
    assert sorted(sorted(group) for group in circles()) == []


@pytest.mark.parametrize(
    ("importer", "imported", "upward"),
    [
        ("persona_metrics.significance", "persona_metrics.commands.output", True),
        ("persona_metrics.signature", "persona_metrics", True),
        ("persona_metrics.commands.score", "persona_metrics.formatting", False),
        ("persona_metrics.vert.scorer", "persona_metrics.summary_eval.components", False),  # sideways: see below
    ],
)
def test_the_floor_rule_itself(importer: str, imported: str, upward: bool) -> None:
    """The checker sees an upward import (so a passing run means something), and lets down or sideways pass."""
    assert bool(upward_imports({importer: {imported}})) is upward


@pytest.mark.parametrize(
    ("importer", "imported", "sideways"),
    [
        ("persona_metrics.summary_eval.scorer", "persona_metrics.vert.encoders", True),
        ("persona_metrics.vert.scorer", "persona_metrics.vert.encoders", False),  # within a family
        ("persona_metrics.vert.scorer", "persona_metrics.text_services", False),  # down
        ("persona_metrics.metric_registry", "persona_metrics.vert.scorer", False),  # down, from above the families
    ],
)
def test_the_family_rule_itself(importer: str, imported: str, sideways: bool) -> None:
    """The checker sees one family importing another, and lets imports within a family or downward pass."""
    assert bool(sideways_imports({importer: {imported}})) is sideways


def test_the_hooks_and_the_distributed_classes_share_option_facts_from_below() -> None:
    """Both read input names and option checks from evaluate_support (they imported each other before)."""
    edges = _edges()
    assert "persona_metrics.integrations.hooks" not in edges["persona_metrics.integrations.distributed"]
    pair = {"persona_metrics.integrations.hooks", "persona_metrics.integrations.distributed"}
    assert not any(pair <= group for group in circles())
