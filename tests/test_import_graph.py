"""The import graph of ``src/persona_metrics``: no new import circle (every import statement counts, also inside
functions and under ``TYPE_CHECKING``).

The circles that remain are listed in :data:`KNOWN_CIRCLES` until they are untangled; a new one, or a known one
that grows, fails here.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "persona_metrics"

#: The groups of modules that import each other today (strongly connected, directly or through others): to be
#: removed, never grown. A group found must lie inside one of these.
KNOWN_CIRCLES = [
    frozenset(
        {
            "persona_metrics.persona.quality",
            "persona_metrics.persona.style",
            "persona_metrics.significance",
            "persona_metrics.personalization.formulas",
            "persona_metrics.personalization.params",
            "persona_metrics.personalization.scorer",
        }
    ),
]


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


def test_no_new_import_circle() -> None:
    new = [sorted(group) for group in circles() if not any(group <= known for known in KNOWN_CIRCLES)]
    assert not new, new


def test_the_hooks_and_the_distributed_classes_share_option_facts_from_below() -> None:
    """Both read input names and option checks from evaluate_support (they imported each other before)."""
    edges = _edges()
    assert "persona_metrics.integrations.hooks" not in edges["persona_metrics.integrations.distributed"]
    pair = {"persona_metrics.integrations.hooks", "persona_metrics.integrations.distributed"}
    assert not any(pair <= group for group in circles())
