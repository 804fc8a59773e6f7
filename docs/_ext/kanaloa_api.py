"""The API reference of the documentation site, generated from the package itself.

Two pieces:

- `public_modules(package_dir)`: every public module of `kanaloa_env`, found by walking
  its files (no import), so a module that is added, moved or removed changes the
  reference with no list to edit. A module is public when no part of its dotted name
  starts with `_` (`__main__.py` files are scripts and are left out). The docstring test
  (`tests/test_docstrings.py`) checks the same modules.
- A Sphinx extension (`setup`): when a build starts, it writes one page per public module
  under `docs/api/` (ignored by git) with autodoc directives for the module's own public
  functions and classes, and it parses every docstring as Markdown (MyST), the way the
  package writes them (`backticks`, fenced code, `Args:`/`Raises:` sections).

Which names a page documents: the names in the module's `__all__`, or, without one, the
functions and classes the module defines whose names do not start with `_`. A name that
another public module defines (a re-export such as `kanaloa_env.core.kanaloa.Config`) is
listed with a link to the page that documents it, so every object is described once.
"""

from __future__ import annotations

import importlib
import inspect
import re
from pathlib import Path
from typing import Any

PACKAGE = "kanaloa_env"


def public_modules(package_dir: Path) -> list[str]:
    """The dotted names of the public modules under `package_dir` (the `kanaloa_env`
    folder), sorted: packages by their `__init__.py`, modules by their file; a name with a
    part starting with `_` is private, and `__main__.py` is a script."""
    found = []
    for path in sorted(package_dir.rglob("*.py")):
        parts = list(path.relative_to(package_dir.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        if any(part.startswith("_") for part in parts):
            continue
        found.append(".".join(parts))
    return sorted(found)


def _home(obj: Any) -> str | None:
    """The module an object is defined in (numba dispatchers: their Python function's)."""
    obj = getattr(obj, "py_func", obj)
    return getattr(obj, "__module__", None)


def _is_routine_or_class(obj: Any) -> bool:
    obj = getattr(obj, "py_func", obj)
    return inspect.isclass(obj) or inspect.isroutine(obj)


def _members(module: Any) -> list[str]:
    names = getattr(module, "__all__", None)
    if names is not None:
        return [n for n in names if n != "__version__"]
    return [
        name
        for name, obj in vars(module).items()
        if not name.startswith("_") and _is_routine_or_class(obj) and _home(obj) == module.__name__
    ]


def module_page(name: str, documented: set[str]) -> str:
    """The reST source of the page of module `name`. `documented` is the set of all public
    module names: a member defined in one of the others is linked, not described again."""
    module = importlib.import_module(name)
    title = f"``{name}``"
    lines = [title, "=" * len(title), "", f".. automodule:: {name}", "   :no-members:", ""]
    links = []
    for member in _members(module):
        obj = getattr(module, member, None)
        home = _home(obj)
        if inspect.ismodule(obj):
            continue  # a submodule has its own page
        if not _is_routine_or_class(obj):
            lines += [f".. autodata:: {name}.{member}", "   :no-value:", ""]
            continue
        qualname = getattr(getattr(obj, "py_func", obj), "__qualname__", member)
        if home != name and home in documented:
            links.append(f":py:obj:`{member} <{home}.{qualname}>`")
            continue
        if inspect.isclass(obj):
            lines += [f".. autoclass:: {name}.{member}", "   :members:", ""]
        else:
            lines += [f".. autofunction:: {name}.{member}", ""]
    if links:
        lines[6:6] = ["Also here, documented where they are defined: " + ", ".join(links) + ".", ""]
    return "\n".join(lines) + "\n"


def write_pages(package_dir: Path, out_dir: Path, mocked: list[str]) -> list[str]:
    """Write `out_dir/<module>.rst` for every public module (a file whose text is
    unchanged is left alone, so Sphinx does not read it again) and remove the pages of
    modules that are gone; the modules are imported with the optional dependencies of
    `mocked` mocked (conf.py's `autodoc_mock_imports`). Returns the module names."""
    from sphinx.ext.autodoc.mock import mock

    names = public_modules(package_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    wanted = set()
    with mock(mocked):
        for name in names:
            path = out_dir / f"{name}.rst"
            wanted.add(path.name)
            text = module_page(name, set(names))
            if not path.is_file() or path.read_text(encoding="utf-8") != text:
                path.write_text(text, encoding="utf-8")
    for stale in out_dir.glob("*.rst"):
        if stale.name not in wanted:
            stale.unlink()
    return names


# ---- docstrings as Markdown -------------------------------------------------------------

_HEADING = re.compile(r"^#{1,6}\s+(.*)$")
_SECTION = re.compile(r"^(Args|Arguments|Parameters|Returns|Yields|Raises|Attributes):\s*$")
_ENTRY = re.compile(r"^([\w.*][\w.*\[\], |]*?)(\s*\([^)]*\))?:(\s+|$)")


def markdown_docstring(lines: list[str]) -> str:
    """A docstring's lines (dedented) as MyST Markdown: Google-style sections (`Args:`,
    `Raises:`, ...) become a bold heading line and a bullet per entry; the rest is
    Markdown already."""
    out: list[str] = []
    i, fence = 0, False
    while i < len(lines):
        line = lines[i]
        if line.lstrip().startswith("```"):
            fence = not fence
        if not fence and _HEADING.match(line):  # a page's headings are its own, not a docstring's
            out.append(f"**{_HEADING.match(line).group(1)}**")
            i += 1
            continue
        if not fence and _SECTION.match(line):
            out += [f"**{line.strip()[:-1]}**", ""]
            i += 1
            entries: list[str] = []
            base = None
            while i < len(lines) and (not lines[i].strip() or lines[i].startswith(" ")):
                text = lines[i]
                if not text.strip():
                    i += 1
                    continue
                indent = len(text) - len(text.lstrip())
                base = indent if base is None else base
                body = text.strip()
                m = _ENTRY.match(body)
                if indent == base and m:
                    rest = body[m.end() :]
                    entries.append(f"- `{m.group(1)}`{m.group(2) or ''}: {rest}".rstrip())
                elif indent == base or not entries:
                    entries.append(f"- {body}")
                else:
                    entries[-1] += " " + body
                i += 1
            out += entries + [""]
            continue
        out.append(line)
        i += 1
    return "\n".join(out)


def _own_class_doc(cls: type) -> list[str]:
    """A class's docstring and its `__init__`'s, only where this package wrote them (a
    docstring inherited from numpy, numba or gymnasium is reST, and describes their class)."""
    parts = []
    doc = cls.__dict__.get("__doc__")
    if isinstance(doc, str):
        parts.append(inspect.cleandoc(doc))
    init = cls.__dict__.get("__init__")
    if init is not None and isinstance(getattr(init, "__doc__", None), str):
        parts.append(inspect.cleandoc(init.__doc__))
    return "\n\n".join(parts).splitlines()


def _process_docstring(
    app: Any, what: str, name: str, obj: Any, options: Any, lines: list[str]
) -> None:
    if what == "class" and inspect.isclass(obj):
        lines[:] = _own_class_doc(obj)
    if not lines:
        return
    text = markdown_docstring(lines)
    lines[:] = [".. kanaloa-markdown::", ""] + [
        "   " + ln if ln else "" for ln in text.splitlines()
    ]
    lines.append("")


def setup(app: Any) -> dict[str, Any]:
    """Register the page generator, the Markdown docstrings and their directive."""
    import sphinx.domains.python
    from docutils import nodes
    from docutils.utils import new_document
    from myst_parser.parsers.sphinx_ import MystParser
    from sphinx.util.docutils import SphinxDirective

    class MarkdownDocstring(SphinxDirective):
        """The directive's content, parsed as MyST Markdown in place."""

        has_content = True

        def run(self) -> list[nodes.Node]:
            source, line = self.get_source_info()
            document = new_document(source or "<docstring>", self.state.document.settings)
            document.reporter = self.state.document.reporter
            document["source"] = source
            MystParser().parse("\n".join(self.content) + "\n", document)
            return list(document.children)

    def generate(app: Any) -> None:
        srcdir = Path(app.srcdir)
        write_pages(srcdir.parent / PACKAGE, srcdir / "api", app.config.autodoc_mock_imports)

    class PythonDomain(sphinx.domains.python.PythonDomain):
        """Python cross-references that prefer, among several objects of one name, the
        one nearest the referring module: an annotation `Config` in
        `kanaloa_env.core.kanaloa.state` is Kanaloa's `Config`, not Kahuna's."""

        def find_obj(
            self,
            env: Any,
            modname: str,
            classname: str,
            name: str,
            type: str | None,
            searchmode: int = 0,
        ) -> list[Any]:  # noqa: A002
            matches = super().find_obj(env, modname, classname, name, type, searchmode)
            if len(matches) > 1 and modname:
                here = modname.split(".")

                def shared(match: Any) -> int:
                    n = 0
                    for a, b in zip(match[0].split("."), here, strict=False):
                        if a != b:
                            break
                        n += 1
                    return n

                best = max(shared(m) for m in matches)
                nearest = [m for m in matches if shared(m) == best]
                if len(nearest) == 1:
                    return nearest
            return matches

    app.add_domain(PythonDomain, override=True)
    app.add_directive("kanaloa-markdown", MarkdownDocstring)
    app.connect("builder-inited", generate)
    app.connect("autodoc-process-docstring", _process_docstring)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
