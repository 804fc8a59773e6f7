"""The documentation site (docs/) builds with Sphinx without a single warning, and its API
reference has a page for every public module.

The build is the one docs/getting-started.md gives, into a scratch folder: `-W` makes
every warning an error, among them a link to a missing page, file or heading anchor (MyST
with `myst_heading_anchors`), a docstring that does not parse, and an object described
twice. External links are not fetched. Needs the `docs` extra.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"

pytest.importorskip("sphinx", reason="the docs extra: pip install -e '.[docs]'")
sys.path.insert(0, str(DOCS / "_ext"))
from kanaloa_api import markdown_docstring, public_modules  # noqa: E402


def _build(src: Path, out: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "MPLBACKEND": "Agg"}
    cmd = [sys.executable, "-m", "sphinx", "-W", "-q", "-b", "html"]
    cmd += ["-d", str(out / ".doctrees"), *extra, str(src), str(out)]
    return subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, env=env, timeout=900)


def test_the_site_builds_without_warnings(tmp_path: Path) -> None:
    proc = _build(DOCS, tmp_path / "html")
    assert proc.returncode == 0, f"sphinx-build failed:\n{proc.stderr[-8000:]}"
    flagged = [ln for ln in proc.stderr.splitlines() if "WARNING" in ln or "ERROR" in ln]
    assert not flagged, "\n".join(flagged)
    html = tmp_path / "html"
    for name in public_modules(ROOT / "kanaloa_env"):
        assert (html / "api" / f"{name}.html").is_file(), f"no API page for {name}"
    for page in DOCS.glob("*.md"):
        assert (html / f"{page.stem}.html").is_file(), f"{page.name} was not built"


def test_a_broken_link_fails_the_build(tmp_path: Path) -> None:
    """The MyST settings of docs/conf.py make a link to a missing anchor or page an error."""
    conf = (DOCS / "conf.py").read_text(encoding="utf-8")
    assert "myst_heading_anchors = 3" in conf
    src = tmp_path / "src"
    src.mkdir()
    (src / "conf.py").write_text(
        'extensions = ["myst_parser"]\nmyst_heading_anchors = 3\n', encoding="utf-8"
    )
    (src / "other.md").write_text("# Other\n\n## A heading\n", encoding="utf-8")
    good = "# Index\n\n[x](other.md#a-heading)\n\n```{toctree}\nother\n```\n"
    (src / "index.md").write_text(good, encoding="utf-8")
    assert _build(src, tmp_path / "ok").returncode == 0
    for bad in ("[x](other.md#no-such-heading)", "[x](missing.md)", "[x](#nowhere)"):
        (src / "index.md").write_text(good + bad + "\n", encoding="utf-8")
        proc = _build(src, tmp_path / "bad", "-E")
        assert proc.returncode != 0, f"{bad} passed the build"


def test_public_modules_are_found_by_their_files(tmp_path: Path) -> None:
    pkg = tmp_path / "kanaloa_env"
    for rel in (
        "__init__.py",
        "__main__.py",
        "a.py",
        "_b.py",
        "sub/__init__.py",
        "sub/c.py",
        "_priv/__init__.py",
        "_priv/d.py",
    ):
        (pkg / rel).parent.mkdir(parents=True, exist_ok=True)
        (pkg / rel).write_text("")
    assert public_modules(pkg) == [
        "kanaloa_env",
        "kanaloa_env.a",
        "kanaloa_env.sub",
        "kanaloa_env.sub.c",
    ]


def test_google_sections_become_markdown_lists() -> None:
    doc = [
        "Do it.",
        "",
        "Args:",
        "    x: the input,",
        "        continued.",
        "    y (int): more.",
        "",
        "Raises:",
        "    ValueError: bad x.",
        "",
        "```python",
        "Args:",
        "```",
    ]
    assert markdown_docstring(doc).splitlines() == [
        "Do it.",
        "",
        "**Args**",
        "",
        "- `x`: the input, continued.",
        "- `y` (int): more.",
        "",
        "**Raises**",
        "",
        "- `ValueError`: bad x.",
        "",
        "```python",
        "Args:",
        "```",
    ]
