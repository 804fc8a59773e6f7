"""The engines' modules import one another in one direction (constants, config, state,
the rule modules, masks, setup, step, observation, invariants, scenario): no cycles,
counting imports inside functions too, and the shared core modules import no engine."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

CORE = Path(__file__).resolve().parents[2] / "kanaloa_env" / "core"
ENGINES = ("kanaloa", "kahuna")
SHARED = ("batch", "fields", "files", "kernels", "rng", "scenario_checks")


def _imports(path: Path, package: str) -> set[str]:
    """The modules of `package` (dotted) that the file imports, anywhere in it."""
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level == 1:  # from .x import y / from . import x
                out.update([node.module] if node.module else (a.name for a in node.names))
            elif node.level == 0 and node.module and node.module.startswith(package + "."):
                out.add(node.module[len(package) + 1 :])
        elif isinstance(node, ast.Import):
            out.update(
                a.name[len(package) + 1 :] for a in node.names if a.name.startswith(package + ".")
            )
    return {name.split(".")[0] for name in out}


def import_graph(folder: Path, package: str) -> dict[str, set[str]]:
    """Module -> the sibling modules it imports (the package's `__init__` left out: it
    puts the modules together and nothing imports it)."""
    modules = {p.stem for p in folder.glob("*.py")} - {"__init__"}
    return {m: (_imports(folder / f"{m}.py", package) & modules) - {m} for m in sorted(modules)}


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """A cycle of `graph` as a list of modules (first = last), or None."""
    done: set[str] = set()
    path: list[str] = []

    def visit(m: str) -> list[str] | None:
        if m in path:
            return path[path.index(m) :] + [m]
        if m in done:
            return None
        path.append(m)
        for d in sorted(graph[m]):
            cycle = visit(d)
            if cycle:
                return cycle
        path.pop()
        done.add(m)
        return None

    for m in graph:
        cycle = visit(m)
        if cycle:
            return cycle
    return None


@pytest.mark.parametrize("engine", ENGINES)
def test_an_engine_has_no_import_cycle(engine: str) -> None:
    graph = import_graph(CORE / engine, f"kanaloa_env.core.{engine}")
    assert {"constants", "config", "state", "masks", "setup", "step"} <= set(graph)
    cycle = find_cycle(graph)
    assert cycle is None, f"core/{engine}: import cycle {' -> '.join(cycle or [])}"
    # The state is plain data over the config: it imports no rules.
    assert graph["state"] <= {"config", "constants"}, graph["state"]
    assert graph["constants"] == set()


def test_the_shared_core_imports_no_engine() -> None:
    graph = import_graph(CORE, "kanaloa_env.core")
    assert set(SHARED) <= set(graph)
    for name in SHARED:
        assert not graph[name] & set(ENGINES), (name, graph[name])
    assert find_cycle({m: graph[m] & set(SHARED) for m in SHARED}) is None


def test_the_cycle_finder_finds_one() -> None:
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set(), "c": {"a", "b"}}) is None
    assert _imports(Path(__file__), "tests") == set()
