"""The RLlib snippets of the docs run as written: every fenced Python block whose first
line is `# test: rllib` in docs/integrations-rllib.md (or docs/integrations.md, once the
section is merged there), each in a fresh interpreter.

Needs ray[rllib]: tests/integrations/test_rllib_venv.py runs this module in an environment
of its own (tests/conftest.py leaves it out where ray is not installed).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "docs" / "integrations-rllib.md", ROOT / "docs" / "integrations.md"]
MARKER = "# test: rllib"
_FENCE = re.compile(r"^```python\n(.*?)^```", re.MULTILINE | re.DOTALL)


def snippets() -> list[tuple[str, str]]:
    """(id, code) of every marked block in the docs that exist."""
    found = []
    for doc in DOCS:
        if doc.is_file():
            blocks = [b for b in _FENCE.findall(doc.read_text()) if b.startswith(MARKER)]
            found += [(f"{doc.name}#{i}", b) for i, b in enumerate(blocks)]
    return found


def test_the_docs_have_rllib_snippets() -> None:
    assert snippets(), f"no block starting with {MARKER!r} in {[d.name for d in DOCS]}"


@pytest.mark.parametrize(("name", "code"), snippets(), ids=[n for n, _ in snippets()])
def test_snippet_runs(name: str, code: str, tmp_path: Path) -> None:
    script = tmp_path / "snippet.py"
    script.write_text(code)
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run(
        [sys.executable, str(script)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=900,
        env=env,
    )
    assert proc.returncode == 0, f"{name} failed:\n{proc.stdout}\n{proc.stderr}"
