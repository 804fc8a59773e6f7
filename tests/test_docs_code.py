"""The documentation site's Python blocks run, and print what the pages show.

Each page of `docs/` (the specification copies in `docs/spec/` are not ours, and
`docs/api/` is generated) has its ```python blocks run in page order in one process, so a
later block sees what an earlier one defined, from a scratch folder that must stay
empty. A block followed by a line `prints` and a plain fenced block must print exactly
that. Not run here, as docs/testing.md "The documentation" says:

- a block whose first line is `# test: NAME`: a complete script that tests/integrations/
  runs in the environment its library needs;
- a block right after a line `<!-- not run: REASON -->`: an excerpt, with its reason.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
# Pages whose `# test: NAME` blocks tests/integrations/ runs (integrations_snippets.snippets).
SNIPPET_PAGES = {"integrations.md", "integrations-rllib.md"}
# Pages whose blocks another test already runs in page order in one namespace, with the
# checks of its own: not run twice (CI's time).
RUN_ELSEWHERE = {"belief.md": ROOT / "tests" / "core" / "kanaloa" / "test_belief.py"}

_BLOCK = re.compile(
    r"^(?:<!-- not run: (?P<reason>.*?) -->\n)?```python\n(?P<code>.*?)^```\n"
    r"(?:\nprints\n\n```\n(?P<out>.*?)^```\n)?",
    re.M | re.S,
)
_MARKER = re.compile(r"^<!-- not run:(?P<rest>.*?)-->\n(?P<next>.*)$", re.M)


@dataclass(frozen=True)
class Block:
    """One ```python block of a page: its code, what it must print (None: not shown),
    and why it is not run (None: it runs; "snippet": tests/integrations/ runs it)."""

    code: str
    expected: str | None
    skip: str | None


def blocks(text: str) -> list[Block]:
    """The ```python blocks of a page's text, in order."""
    found = []
    for m in _BLOCK.finditer(text):
        code = m.group("code")
        skip = m.group("reason")
        if skip is None and code.startswith("# test: "):
            skip = "snippet"
        found.append(Block(code, m.group("out"), skip))
    return found


def pages() -> list[Path]:
    """The site's own Markdown pages."""
    return sorted(p for p in DOCS.rglob("*.md") if p.parent.name not in ("spec", "api"))


def _runnable(page: Path) -> list[Block]:
    return [b for b in blocks(page.read_text(encoding="utf-8")) if b.skip is None]


RUNNER = """
import contextlib, io, json, sys
blocks = json.loads(open(sys.argv[1], encoding="utf-8").read())
namespace = {"__name__": "__main__"}
printed = []
for k, code in enumerate(blocks):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        try:
            exec(compile(code, f"block {k}", "exec"), namespace)
        except BaseException:
            sys.stdout = sys.__stdout__
            print(f"block {k} failed; it printed:\\n{out.getvalue()}", file=sys.stderr)
            raise
    printed.append(out.getvalue())
open(sys.argv[2], "w", encoding="utf-8").write(json.dumps(printed))
"""


def run_blocks(codes: list[str], workdir: Path, scratch: Path) -> list[str]:
    """Run `codes` in order in one fresh interpreter with `workdir` as its folder; return
    what each printed. Fails the test with the error if one raises."""
    (scratch / "blocks.json").write_text(json.dumps(codes), encoding="utf-8")
    (scratch / "runner.py").write_text(RUNNER, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "MPLBACKEND": "Agg"}
    proc = subprocess.run(
        [
            sys.executable,
            str(scratch / "runner.py"),
            str(scratch / "blocks.json"),
            str(scratch / "printed.json"),
        ],
        capture_output=True,
        text=True,
        cwd=workdir,
        env=env,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-6000:]
    return json.loads((scratch / "printed.json").read_text(encoding="utf-8"))


RUN_PAGES = [p for p in pages() if _runnable(p) and p.name not in RUN_ELSEWHERE]


def test_the_pages_have_runnable_blocks() -> None:
    names = {p.name for p in RUN_PAGES}
    assert {"engines.md", "environments.md", "kahuna.md"} <= names
    for page, test in RUN_ELSEWHERE.items():
        assert _runnable(DOCS / page), page
        assert f'"{page}"' in test.read_text(encoding="utf-8"), f"{test.name} does not run {page}"
    engines = "\n".join(b.code for b in _runnable(DOCS / "engines.md"))
    for needle in ("kanaloa_env.core.kanaloa", "kanaloa_env.core.kahuna"):
        assert needle in engines  # the tour of both engines


@pytest.mark.parametrize("page", RUN_PAGES, ids=lambda p: p.name)
def test_page_blocks_run(page: Path, tmp_path: Path) -> None:
    todo = _runnable(page)
    work, scratch = tmp_path / "work", tmp_path / "scratch"
    work.mkdir()
    scratch.mkdir()
    printed = run_blocks([b.code for b in todo], work, scratch)
    for k, (block, out) in enumerate(zip(todo, printed, strict=True)):
        if block.expected is not None:
            assert out == block.expected, f"{page.name} block {k} printed:\n{out}"
    assert list(work.iterdir()) == [], f"{page.name}'s blocks wrote files"


def test_not_run_markers_are_well_formed() -> None:
    """A `<!-- not run: ... -->` line gives a reason and stands right before a block; the
    `# test:` snippets are on the pages tests/integrations/ reads."""
    for page in pages():
        text = page.read_text(encoding="utf-8")
        for m in _MARKER.finditer(text):
            assert m.group("rest").strip(), f"{page.name}: a not-run marker without a reason"
            assert m.group("next") == "```python", f"{page.name}: a not-run marker before no block"
        if any(b.skip == "snippet" for b in blocks(text)):
            assert page.name in SNIPPET_PAGES, f"{page.name}: `# test:` blocks nobody runs"


def test_block_parsing() -> None:
    text = (
        "```python\nx = 1\nprint(x)\n```\n\nprints\n\n```\n1\n```\n"
        "<!-- not run: an excerpt -->\n```python\ny = z\n```\n"
        "```python\n# test: lib\nimport lib\n```\n"
    )
    assert blocks(text) == [
        Block("x = 1\nprint(x)\n", "1\n", None),
        Block("y = z\n", None, "an excerpt"),
        Block("# test: lib\nimport lib\n", None, "snippet"),
    ]


def test_a_failing_block_fails(tmp_path: Path) -> None:
    with pytest.raises(AssertionError, match="block 1 failed"):
        run_blocks(["x = 1", "print(x); y = undefined_name"], tmp_path, tmp_path)
