"""Every public function and class has a docstring that names its arguments.

Public: the modules the API reference documents (docs/_ext/kanaloa_api.py
`public_modules`: no part of the dotted name starts with `_`); in each, the names of its
`__all__` (followed to the module they are imported from, inside the package), or,
without a literal `__all__`, its functions and classes not starting with `_`; and of a
public class, its methods not starting with `_`, `__call__`, and its constructor.

"Names its arguments": every parameter but `self`, `cls` and `_`-prefixed ones appears
as a word in the docstring (a constructor's in the class docstring or in `__init__`'s).
The check reads the source (no import), so a module whose optional dependency is missing
is checked too.
"""

from __future__ import annotations

import ast
import re
import sys
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "kanaloa_env"
sys.path.insert(0, str(ROOT / "docs" / "_ext"))
from kanaloa_api import public_modules  # noqa: E402

Def = ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef


def module_path(name: str) -> Path:
    """The file of the module `name` (a dotted name inside the package)."""
    base = ROOT.joinpath(*name.split("."))
    return base / "__init__.py" if base.is_dir() else base.with_suffix(".py")


@cache
def _tree(name: str) -> ast.Module:
    return ast.parse(module_path(name).read_text(encoding="utf-8"))


def _literal_all(tree: ast.Module) -> list[str] | None:
    for node in tree.body:
        target = node.targets[0] if isinstance(node, ast.Assign) else getattr(node, "target", None)
        if isinstance(target, ast.Name) and target.id == "__all__":
            try:
                return list(ast.literal_eval(node.value))  # type: ignore[union-attr]
            except ValueError:
                return None
    return None


def _resolve(module: str, level: int, source: str | None) -> str:
    parts = module.split(".")
    if not module_path(module).name == "__init__.py":
        parts = parts[:-1]
    parts = parts[: len(parts) - (level - 1)] if level else []
    return ".".join(parts + ([source] if source else []))


def public_defs(module: str) -> list[tuple[str, Def]]:
    """(module where defined, definition) of each public function and class of `module`."""
    tree = _tree(module)
    defs = {n.name: n for n in tree.body if isinstance(n, Def)}
    names = _literal_all(tree)
    if names is None:
        return [(module, d) for k, d in defs.items() if not k.startswith("_")]
    found = []
    imports = {}
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.level:
            for alias in node.names:
                imports[alias.asname or alias.name] = (
                    _resolve(module, node.level, node.module),
                    alias.name,
                )
    for name in names:
        if name in defs:
            found.append((module, defs[name]))
        elif name in imports:
            source, original = imports[name]
            if module_path(source).is_file():
                found += [(m, d) for m, d in public_defs_all(source) if d.name == original]
    return found


def public_defs_all(module: str) -> list[tuple[str, Def]]:
    """Every top-level function and class of `module`, by its own name."""
    return [(module, n) for n in _tree(module).body if isinstance(n, Def)]


def _decorators(fn: ast.AST) -> set[str]:
    names = set()
    for d in getattr(fn, "decorator_list", []):
        d = d.func if isinstance(d, ast.Call) else d
        names.add(d.attr if isinstance(d, ast.Attribute) else getattr(d, "id", ""))
    return names


def parameters(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> list[str]:
    """The parameters a docstring must name: all but self, cls and `_`-prefixed ones."""
    a = fn.args
    names = [x.arg for x in a.posonlyargs + a.args + a.kwonlyargs]
    names += [x.arg for x in (a.vararg, a.kwarg) if x is not None]
    return [n for n in names if n not in ("self", "cls") and not n.startswith("_")]


def mentions(doc: str, name: str) -> bool:
    """Whether `name` appears in `doc` as a word of its own (the `s` of a possessive "'s"
    is not a parameter `s`)."""
    return re.search(rf"(?<![\w'’]){re.escape(name)}(?!\w)", doc) is not None


def problems_of(module: str, node: Def) -> list[str]:
    """What is missing from the docstrings of one public function or class (and of the
    class's public methods), as 'module:qualified.name: what' lines."""
    out = []

    def check(qual: str, fn: ast.FunctionDef | ast.AsyncFunctionDef, extra: str = "") -> None:
        if _decorators(fn) & {"overload", "setter", "deleter"}:
            return
        doc = (ast.get_docstring(fn) or "") + "\n" + extra
        if not doc.strip():
            out.append(f"{module}:{qual}: no docstring")
            return
        missing = [p for p in parameters(fn) if not mentions(doc, p)]
        if missing:
            out.append(f"{module}:{qual}: does not name {', '.join(missing)}")

    if not isinstance(node, ast.ClassDef):
        check(node.name, node)
        return out
    class_doc = ast.get_docstring(node) or ""
    if not class_doc:
        out.append(f"{module}:{node.name}: no docstring")
    for item in node.body:
        if not isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        if item.name == "__init__":
            doc = class_doc + "\n" + (ast.get_docstring(item) or "")
            missing = [p for p in parameters(item) if not mentions(doc, p)]
            if missing:
                out.append(f"{module}:{node.name}.__init__: does not name {', '.join(missing)}")
        elif not item.name.startswith("_") or item.name == "__call__":
            check(f"{node.name}.{item.name}", item)
    return out


def all_problems() -> list[str]:
    """The problems of every public module, each definition checked once."""
    seen, out = set(), []
    for module in public_modules(PACKAGE):
        for home, node in public_defs(module):
            if (home, node.name) not in seen:
                seen.add((home, node.name))
                out += problems_of(home, node)
    return sorted(out)


def _key(problem: str) -> str:
    return problem.split(": ", 1)[0]


# Docstrings not yet fixed, by 'module:qualified.name'. The list may only shrink: an entry
# whose docstring passes fails test_pending_entries_still_fail until it is removed.
PENDING: frozenset[str] = frozenset()


def test_public_docstrings_name_their_arguments() -> None:
    problems = [p for p in all_problems() if _key(p) not in PENDING]
    assert not problems, f"{len(problems)} docstrings to fix:\n" + "\n".join(problems)


def test_pending_entries_still_fail() -> None:
    failing = {_key(p) for p in all_problems()}
    fixed = sorted(PENDING - failing)
    assert not fixed, "fixed or gone, remove from PENDING:\n" + "\n".join(fixed)


def test_the_check_sees_a_missing_argument(tmp_path: Path) -> None:
    src = (
        'def f(a, b, *, c=1, _d=2):\n    """Uses `a` and b."""\n\n'
        'class K:\n    """A K of `x`."""\n    def __init__(self, x, y): ...\n'
        "    def m(self): ...\n    def _p(self): ...\n"
    )
    tree = ast.parse(src)
    f, k = tree.body
    assert problems_of("m", f) == ["m:f: does not name c"]
    assert problems_of("m", k) == ["m:K.__init__: does not name y", "m:K.m: no docstring"]
    assert mentions("the `s` arrays", "s") and not mentions("the player's arrays", "s")
