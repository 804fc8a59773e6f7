"""The package's layers (DESIGN.md: imports only point down), checked on its source.

- No module of `games/` imports `bots/`, the views above the games (`render/`, the
  envs, records, evaluation, the command-line tools) at import time: read from every
  module's import-time imports, and seen in a fresh interpreter that imports every
  module of `games/`.
- No import cycles: the graph of import-time imports (a module's own, and the
  packages `__init__` each runs first) has none, between modules nor between the
  parts of the package (core, drawing, games, bots, render, ...), and every module
  imports in a fresh interpreter.
- No layer above `games/` compares a game's name (`== "kanaloa"`, `in ("kanaloa",
  "kahuna")`, a tuple of game names to branch on): what differs between games is
  asked of the game (`kanaloa_env.games.protocol.Game`).
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import kanaloa_env

ROOT = Path(kanaloa_env.__file__).resolve().parent
PKG = "kanaloa_env"
BUILT_IN_GAMES = ("kanaloa", "kahuna")  # the package's own (kanaloa_env.games.GAMES)

# What the games may import: the engines, the drawing primitives, and each other.
BELOW_GAMES = ("kanaloa_env.core", "kanaloa_env.drawing", "kanaloa_env.games")
PACKAGE_LEVEL = {"kanaloa_env", "kanaloa_env._env_ids"}
# Modules needing an optional dependency that the test environment may lack.
OPTIONAL = {
    "kanaloa_env.wrappers.rllib": "ray",
    "kanaloa_env.core.gpu_kernels": "numba_cuda",
    "kanaloa_env.wrappers.gpu_learner": "numba_cuda",
}


def _modules() -> dict[str, tuple[Path, bool]]:
    """Every module of the package: dotted name -> (file, is a package)."""
    out = {}
    for path in sorted(ROOT.rglob("*.py")):
        parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
        is_pkg = parts[-1] == "__init__"
        out[".".join(parts[:-1] if is_pkg else parts)] = (path, is_pkg)
    return out


MODULES = _modules()


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _import_time_imports(body: list[ast.stmt]) -> Iterator[ast.Import | ast.ImportFrom]:
    """The import statements that run when the module runs: at module level and in
    class bodies, if/try/with blocks included, not in functions nor under
    `if TYPE_CHECKING:`."""
    for node in body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        elif isinstance(node, ast.If):
            if not _is_type_checking(node.test):
                yield from _import_time_imports(node.body)
            yield from _import_time_imports(node.orelse)
        elif isinstance(node, ast.Try):
            for block in (node.body, node.orelse, node.finalbody):
                yield from _import_time_imports(block)
            for handler in node.handlers:
                yield from _import_time_imports(handler.body)
        elif isinstance(node, (ast.With, ast.ClassDef)):
            yield from _import_time_imports(node.body)


def _ancestors(name: str) -> set[str]:
    parts = name.split(".")
    return {".".join(parts[:k]) for k in range(1, len(parts))}


def _imported(module: str, is_pkg: bool, node: ast.Import | ast.ImportFrom) -> set[str]:
    """The package's modules an import statement of `module` runs (with the packages
    whose `__init__` runs first), leaving out `module`'s own enclosing packages (being
    imported already when it runs)."""
    names = []
    if isinstance(node, ast.Import):
        names = [a.name for a in node.names]
    else:
        if node.level:
            base = (module if is_pkg else module.rpartition(".")[0]).split(".")
            base = base[: len(base) - (node.level - 1)]
            target = ".".join(base + ([node.module] if node.module else []))
        else:
            target = node.module or ""
        names = [target] + [f"{target}.{a.name}" for a in node.names]
    out = set()
    for name in names:
        if name.split(".")[0] != PKG:
            continue
        for m in _ancestors(name) | {name}:
            if m in MODULES and m != module and m not in _ancestors(module):
                out.add(m)
    return out


def _import_graph() -> dict[str, set[str]]:
    graph = {}
    for module, (path, is_pkg) in MODULES.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        edges: set[str] = set()
        for node in _import_time_imports(tree.body):
            edges |= _imported(module, is_pkg, node)
        graph[module] = edges
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            part = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                part.append(w)
                if w == v:
                    break
            if len(part) > 1:
                out.append(sorted(part))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def _run(code: str) -> str:
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=False
    )
    assert out.returncode == 0, out.stderr
    return out.stdout


# ---- the games do not import the layers above them --------------------------------------


@pytest.mark.parametrize(
    ("layer", "allowed"),
    [
        ("kanaloa_env.games", BELOW_GAMES),
        ("kanaloa_env.drawing", ("kanaloa_env.core", "kanaloa_env.drawing")),
    ],
)
def test_games_import_nothing_above_them_at_import_time(
    layer: str, allowed: tuple[str, ...]
) -> None:
    graph = _import_graph()
    wrong = {
        m: sorted(t for t in graph[m] if not t.startswith(allowed) and t not in PACKAGE_LEVEL)
        for m in graph
        if m.startswith(layer)
    }
    assert {m: t for m, t in wrong.items() if t} == {}


def test_importing_every_module_of_games_loads_no_upper_layer() -> None:
    games = sorted(m for m in MODULES if m.startswith("kanaloa_env.games"))
    code = (
        "import importlib, json, sys\n"
        f"for m in {games!r}:\n"
        "    importlib.import_module(m)\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.startswith('kanaloa_env'))))\n"
    )
    loaded = json.loads(_run(code))
    above = [m for m in loaded if not m.startswith(BELOW_GAMES) and m not in PACKAGE_LEVEL]
    assert above == []
    assert set(games) <= set(loaded)


# ---- no import cycles ---------------------------------------------------------------------


def test_no_import_cycles() -> None:
    assert _cycles(_import_graph()) == []


def _part(module: str) -> str:
    """The part of the package a module belongs to: `kanaloa_env.games.kahuna.search` is in
    `kanaloa_env.games`, `kanaloa_env.aec` is its own."""
    return ".".join(module.split(".")[:2])


def test_no_cycles_between_the_parts_of_the_package() -> None:
    """The engines, drawing, games, bots, rendering, envs, ... depend on each other one
    way only: e.g. games/ importing bots/ while bots/ imports games/ is a cycle here even
    when no single module closes it."""
    parts: dict[str, set[str]] = {}
    for module, targets in _import_graph().items():
        edges = parts.setdefault(_part(module), set())
        edges |= {_part(t) for t in targets if _part(t) != _part(module)}
    for edges in list(parts.values()):
        for t in edges:
            parts.setdefault(t, set())
    assert _cycles(parts) == []


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_every_module_imports_in_a_fresh_interpreter() -> None:
    code = (
        "import importlib, importlib.util, json\n"
        "failed = {}\n"
        f"optional = {OPTIONAL!r}\n"
        f"for m in {sorted(MODULES)!r}:\n"
        "    if m in optional and importlib.util.find_spec(optional[m]) is None:\n"
        "        continue\n"
        "    try:\n"
        "        importlib.import_module(m)\n"
        "    except Exception as exc:\n"
        "        failed[m] = repr(exc)\n"
        "print(json.dumps(failed))\n"
    )
    assert json.loads(_run(code)) == {}


# ---- no layer above the games branches on a game's name --------------------------------


def _is_name(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and node.value in BUILT_IN_GAMES


def _holds_names(node: ast.AST) -> bool:
    """A tuple, list or set literal with a game's name in it."""
    return isinstance(node, (ast.Tuple, ast.List, ast.Set)) and any(map(_is_name, node.elts))


def name_branches(source: str) -> list[tuple[int, str]]:
    """(line, text) of each place that branches on a game's name: a comparison with a
    name (or a literal holding one, or a module-level constant holding one), a
    `case "kanaloa":`, a module-level tuple/list/set of game names."""
    tree = ast.parse(source)
    named: set[str] = set()  # module-level names bound to literals holding game names
    found = []
    for node in tree.body:
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
            if _holds_names(node.value):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                named |= {t.id for t in targets if isinstance(t, ast.Name)}
                found.append((node.lineno, ast.unparse(node)))
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            if any(_is_name(s) or _holds_names(s) for s in sides) or any(
                isinstance(s, ast.Name) and s.id in named for s in sides
            ):
                found.append((node.lineno, ast.unparse(node)))
        elif isinstance(node, ast.MatchValue) and _is_name(node.value):
            found.append((node.value.lineno, ast.unparse(node)))
    return sorted(set(found))


def test_the_name_finder_finds_branches() -> None:
    source = (
        "GAMES_WITH_X = ('kanaloa', 'kahuna')\n"
        "def f(game, name):\n"
        "    if game.name == 'kanaloa': pass\n"
        "    if name in ('kahuna',): pass\n"
        "    if name not in GAMES_WITH_X: pass\n"
        "    match name:\n"
        "        case 'kahuna': pass\n"
        "    return 'kanaloa' if name else game.name != 'chess'\n"
    )
    assert [line for line, _ in name_branches(source)] == [1, 3, 4, 5, 7]
    assert name_branches("def f(game='kanaloa'):\n    return get_game('kahuna')\n") == []


@pytest.mark.parametrize(
    "module",
    sorted(m for m in MODULES if not m.startswith(BELOW_GAMES)),
)
def test_no_layer_above_the_games_compares_a_game_name(module: str) -> None:
    path, _ = MODULES[module]
    assert name_branches(path.read_text(encoding="utf-8")) == []
