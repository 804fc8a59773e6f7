"""docs/integrations.md: every snippet runs, each in the environment its library needs.

TorchRL, Tianshou and SuperSuit resolve with this package's pins and are in the `dev`
extra, so their snippets (and the CleanRL-style one, which needs only torch, and
PettingZoo's SB3 self-play tutorial, which needs the `train` extra) run in the test
environment itself. AgileRL pins `pettingzoo<1.27` and `tensordict==0.13.0` (TorchRL
0.14 wants `tensordict>=0.14.3`), so its snippet runs in a virtual environment of its own,
built on first use from AgileRL and this package's declared dependencies, resolved
together, and cached (integrations_snippets.cached_venv).
"""

from __future__ import annotations

import re
from importlib.metadata import version
from pathlib import Path

import pytest
from integrations_snippets import (
    DOC,
    cached_venv,
    project_dependencies,
    run_snippet,
    snippets,
)

IN_TEST_ENV = [
    "torchrl",
    "tianshou",
    "supersuit",
    "cleanrl",
    "sb3_selfplay",
    "openspiel",
    "openspiel_ismcts",
]
# AgileRL's own environment. `agilerl.algorithms` imports `peft`, which AgileRL 2.58 declares
# only in its `llm` extras; 0.21.0 is the version those extras pin.
AGILERL = ["agilerl==2.58.0", "peft==0.21.0"]


def test_the_page_has_one_snippet_per_library() -> None:
    assert sorted(snippets()) == sorted([*IN_TEST_ENV, "agilerl"])


def test_snippets_are_found_by_their_marker(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        "text\n```python\n# test: one\nx = 1\n```\n```python\nno marker\n```\n"
        "```bash\n# test: shell\n```\n```python\n# test: two\ny = 2\n\nz = 3\n```\n"
    )
    assert snippets(page) == {"one": "# test: one\nx = 1\n", "two": "# test: two\ny = 2\n\nz = 3\n"}
    page.write_text("```python\n# test: one\n```\n```python\n# test: one\n```\n")
    with pytest.raises(ValueError, match="two snippets are marked '# test: one'"):
        snippets(page)


def test_the_page_names_the_versions_the_tests_run() -> None:
    text = DOC.read_text(encoding="utf-8").lower()
    for dist in ("torchrl", "tianshou", "supersuit"):
        minor = ".".join(version(dist).split(".")[:2])  # a new minor version: re-read the page
        assert re.search(rf"{dist} {re.escape(minor)}\.\d", text), f"{dist} {minor}.x not named"
    assert AGILERL[0].replace("==", " ") in text


# Tianshou's buffers and returns are numba functions compiled in every new process (Tianshou
# does not cache them); its snippet ran in 8 s of CPU with the JIT off and 19 s with it on
# (NUMBA_DISABLE_JIT=1 vs 0, one run each, this project's shared 2-core machine at load 13-23).
EXTRA_ENV = {"tianshou": {"NUMBA_DISABLE_JIT": "1"}}


@pytest.mark.parametrize("name", IN_TEST_ENV)
def test_snippet_runs(name: str, tmp_path: Path) -> None:
    run_snippet(snippets()[name], name, tmp_path, extra_env=EXTRA_ENV.get(name))


def test_agilerl_snippet_runs_in_its_own_environment(tmp_path: Path) -> None:
    torch_pin = "torch==" + version("torch").split("+")[0]  # the CPU build this env has
    python = cached_venv("agilerl", [[torch_pin], [*AGILERL, *project_dependencies()]])
    run_snippet(snippets()["agilerl"], "agilerl", tmp_path, python=python, timeout=900)
