"""The README's promises: its Python blocks run and print what it shows, and its commands
and those of every page of the documentation site (docs/) exist, take the options they
are given and write only under `runs/` (git ignores it). The site's Python blocks run in
tests/test_docs_code.py, and the site builds in tests/test_docs_site.py.

Fast enough for CI: each block plays a few thousand games or steps on the batched
engines; the commands are checked against their `--help`, not run (the main job takes
minutes and terminal play waits for a human).
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
# Markdown pages whose indented commands are checked too (the spec copies are not ours).
DOCS = sorted(p for p in (ROOT / "docs").glob("*.md"))

_BLOCK = re.compile(r"^```python\n(.*?)^```\n(?:\nprints\n\n```\n(.*?)^```\n)?", re.M | re.S)
# Options whose value is a path the command writes.
_WRITES = ("--out", "--output-dir", "--record", "--gif", "--png-dir")
# Where a documented command may write: the ignored runs/ folder, or a scratch folder.
_ALLOWED = ("runs/", "/tmp/")


def python_blocks(text: str) -> list[tuple[str, str | None]]:
    """(code, expected output or None) of each ```python block, in page order; the output
    is the ``` block right after a line "prints" that follows the code block."""
    return [(m.group(1), m.group(2)) for m in _BLOCK.finditer(text)]


def commands(text: str) -> list[list[str]]:
    """The shell commands of a page: indented code lines and `backticked` commands that
    start with `python`, `pip`, `jupyter` or `mkdir` (after an optional `nice -n N`), split
    into words (comments off, backslash continuations joined, `&&` chains split)."""
    found = []
    text = re.sub(r"^```.*?^```", "", text, flags=re.M | re.S)  # fenced blocks are not commands
    code = "\n".join(ln[4:] for ln in text.splitlines() if ln.startswith("    ") and ln.strip())
    lines = code.replace("\\\n", " ").splitlines()  # a trailing backslash continues a line
    lines += re.findall(r"`((?:python|pip|jupyter) [^`]+)`", text.replace("\n", " "))
    for line in lines:
        words = shlex.split(line, comments=True)
        if words[:2] == ["nice", "-n"]:  # `nice -n 10 python ...` runs python
            words = words[3:]
        if not words or words[0] not in ("python", "pip", "jupyter", "mkdir"):
            continue
        cmd: list[str] = []
        for w in words + ["&&"]:
            if w == "&&":
                if cmd:
                    found.append(cmd)
                cmd = []
            else:
                cmd.append(w)
    return found


def _run(code: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    script = cwd / "readme_block.py"
    script.write_text(code, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "MPLBACKEND": "Agg"}
    return subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, cwd=cwd, env=env, timeout=300
    )


_README_BLOCKS = python_blocks(README.read_text(encoding="utf-8"))


def test_the_readme_has_its_blocks() -> None:
    assert len(_README_BLOCKS) >= 2  # the AEC env and the vector env; the engines: docs/engines.md
    joined = "\n".join(code for code, _ in _README_BLOCKS)
    for needle in ('game="kanaloa"', "kanaloa_env/Kahuna-v0", "kanaloa_env.env("):
        assert needle in joined  # the tour covers both games, the AEC and the vector env


@pytest.mark.parametrize("k", range(len(_README_BLOCKS)))
def test_readme_python_block_runs(k: int, tmp_path: Path) -> None:
    code, expected = _README_BLOCKS[k]
    proc = _run(code, tmp_path)
    assert proc.returncode == 0, f"block {k} failed:\n{code}\n{proc.stderr}"
    if expected is not None:  # the README shows what the block prints: exactly that
        assert proc.stdout == expected, f"block {k} printed:\n{proc.stdout}"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["readme_block.py"]  # writes nothing


def test_commands_are_found() -> None:
    cmds = commands(README.read_text(encoding="utf-8"))
    assert ["pip", "install", "torch==2.13.0"] in cmds
    assert ["python", "examples/distil_search.py"] in cmds  # the main job
    assert any(c[:3] == ["python", "-m", "kanaloa_env.arena"] and "kahuna" in c for c in cmds)
    assert any(c[:3] == ["python", "-m", "kanaloa_env.play"] and "kahuna" in c for c in cmds)
    parsed = commands("    mkdir -p runs   # a comment\n    python a.py --out x && pip list\n")
    assert parsed == [["mkdir", "-p", "runs"], ["python", "a.py", "--out", "x"], ["pip", "list"]]


def _writes(cmd: list[str]) -> list[str]:
    """The paths a command writes: values of the writing options, and nbconvert's output."""
    paths = []
    for i, w in enumerate(cmd):
        opt, _, value = w.partition("=")
        if opt in _WRITES:
            paths.append(value or (cmd[i + 1] if i + 1 < len(cmd) else ""))
    if cmd[:2] == ["jupyter", "nbconvert"] and "--inplace" not in cmd:
        assert "--output-dir" in cmd, f"{shlex.join(cmd)} writes next to the notebook"
    return paths


@pytest.mark.parametrize("page", [README, *DOCS], ids=lambda p: p.name)
def test_commands_write_only_under_runs(page: Path) -> None:
    for cmd in commands(page.read_text(encoding="utf-8")):
        for path in _writes(cmd):
            assert path.startswith(_ALLOWED) or path.isupper(), (
                f"{page.name}: `{shlex.join(cmd)}` writes {path!r} outside runs/"
            )
        if cmd[0] == "mkdir":
            assert all((w + "/").startswith(("-", *_ALLOWED)) for w in cmd[1:]), shlex.join(cmd)


def test_runs_is_ignored_by_git() -> None:
    ignored = (ROOT / ".gitignore").read_text(encoding="utf-8").split()
    assert "runs/" in ignored


@cache
def _help(target: tuple[str, ...]) -> str:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run(
        [sys.executable, *target, "--help"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=120,
    )
    assert proc.returncode == 0, f"{' '.join(target)} --help failed:\n{proc.stderr}"
    return proc.stdout


def test_python_commands_take_their_options() -> None:
    """Every `python -m kanaloa_env.X` / `python examples/X.py` of the README and of the
    site's pages exists and knows each option it is given (per its --help)."""
    checked = set()
    every = [c for page in (README, *DOCS) for c in commands(page.read_text(encoding="utf-8"))]
    for cmd in every:
        if cmd[0] != "python" or cmd[1:3] == ["-m", "pytest"]:
            continue
        if cmd[1] == "-m":
            target, args = tuple(cmd[1:3]), cmd[3:]
        else:
            # Only the package's commands and the example and benchmark scripts take
            # --help; another script (tests/golden/golden.py records files) is not run.
            if not cmd[1].startswith(("examples/", "benchmarks/")):
                continue
            assert (ROOT / cmd[1]).is_file(), f"{cmd[1]} does not exist"
            target, args = (cmd[1],), cmd[2:]
        text = _help(target)
        # A command with subcommands ({train,status,...}) lists each one's options apart.
        if args and re.search(rf"[{{,]{re.escape(args[0])}[,}}]", text):
            target, args = (*target, args[0]), args[1:]
            text = _help(target)
        for w in args:
            if w.startswith("--"):
                assert re.search(rf"{re.escape(w.split('=')[0])}\b", text), (
                    f"{' '.join(target)} has no option {w}"
                )
        checked.add(target)
    assert ("-m", "kanaloa_env.arena") in checked and ("-m", "kanaloa_env.replay") in checked
    assert ("-m", "kanaloa_env.training.campaign", "export") in checked


def test_the_model_file_warning_is_where_bots_are_named() -> None:
    """SB3 `.zip` models unpickle (run code) on load: the README, the site's pages on
    training and bots, and the --help of the commands that take bots say so; policy files
    `.npz` hold weights only."""
    for page in (README, ROOT / "docs" / "training.md"):
        text = " ".join(page.read_text(encoding="utf-8").split())
        assert "only `.zip` files you made yourself or trust" in text, page.name
        assert "(`.npz`" in text and "hold weights only" in text, page.name
    bots = " ".join((ROOT / "docs" / "bots.md").read_text(encoding="utf-8").split())
    assert "[model files](training.md#model-files)" in bots
    for module in ("kanaloa_env.arena", "kanaloa_env.play"):
        assert "pass only model files you trust" in " ".join(_help(("-m", module)).split())


def test_the_torch_advice_names_the_cpu_build() -> None:
    text = README.read_text(encoding="utf-8")
    two = text.index("## The two commands")
    advice = text.index("--index-url https://download.pytorch.org/whl/cpu")
    assert two < advice < text.index("## A tour of the API")
    text = (ROOT / "docs" / "getting-started.md").read_text(encoding="utf-8")
    two = text.index("## The two commands")
    assert two < text.index("--index-url https://download.pytorch.org/whl/cpu")


def test_the_readme_is_short_and_its_commands_match_ci() -> None:
    """A newcomer's five minutes: at most 200 lines. Its test command is the one .ci/run
    runs, installing the extras the README installs."""
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 200
    ci = [shlex.split(ln, comments=True) for ln in (ROOT / ".ci" / "run").read_text().splitlines()]
    test_cmd = next(c for c in commands(text) if c[:3] == ["python", "-m", "pytest"])
    assert test_cmd in ci
    install = next(c for c in commands(text) if c[:3] == ["pip", "install", "-e"] and "dev" in c[3])
    assert any(c[:3] == ["python", "-m", "pip"] and install[3] in c for c in ci), install
