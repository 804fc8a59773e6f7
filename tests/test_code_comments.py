"""The package's code says why it does what it does; what was measured lives in
benchmarks/HISTORY.md and the commit messages, not in its comments and docstrings."""

from __future__ import annotations

import ast
import io
import re
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# A benchmark's log: its command line, a measured speed ratio ("ran at 0.89x"), a
# rate of decisions or steps a second, the machine's load at the time.
HISTORY = re.compile(
    r"benchmarks/bench_\w+\.py"
    r"|\b\d+\.\d+x\b"
    r"|\b\d[\d,]* (?:decisions|steps|games|learner steps)/s\b"
    r"|\bload average\b|\bat load \d"
)


def history_lines(text: str) -> list[str]:
    """The lines of `text` that quote a benchmark run."""
    return [line.strip() for line in text.splitlines() if HISTORY.search(line)]


def test_no_benchmark_history_in_the_package() -> None:
    found = {
        str(path.relative_to(ROOT)): lines
        for path in sorted((ROOT / "kanaloa_env").rglob("*.py"))
        if (lines := history_lines(path.read_text(encoding="utf-8")))
    }
    assert not found, f"benchmark history in code (move it to benchmarks/HISTORY.md): {found}"


def test_the_pattern_finds_a_benchmark_log() -> None:
    assert history_lines("# ran at 0.89x (`python benchmarks/bench_aec_ab.py`)")
    assert history_lines("# 3.7x the learner steps/s")
    assert history_lines('"""5,941 learner steps/s at load 9"""')
    assert not history_lines("# 8x the bound leaves room; see benchmarks/HISTORY.md")
    assert not history_lines("# Fitted by `python benchmarks/fit_search_value.py`")


# The history of the code told in a comment or docstring: where a name lived or what it
# was called, what it replaced, what stays for old callers. (Plain "before", "now" and
# "no longer" also describe the games' rules, so only phrases about code count.)
CODE_HISTORY = re.compile(
    r"\b(?:as it always was|as before|used to (?:be|live|sit|hold)|lived (?:here|in|there)"
    r"|where it lived|formerly|former name|old names?\b|its name before|which took it before"
    r"|before it was (?:known|named|called)|after (?:games|callers) were written"
    r"|(?:was|were) (?:renamed|moved|rewritten|replaced)|moved (?:here|to|from) "
    r"|for one release|next release|for old (?:imports|callers|code)|deprecat\w*"
    r"|the numpy (?:bot|version)|(?:previous|earlier) (?:version|code|implementation)s?\b)",
    re.IGNORECASE,
)


def comments_and_docstrings(source: str) -> list[str]:
    """The comments and the docstrings (module, class, function) of Python `source`."""
    out = [
        tok.string
        for tok in tokenize.generate_tokens(io.StringIO(source).readline)
        if tok.type == tokenize.COMMENT
    ]
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            doc = ast.get_docstring(node, clean=False)
            if doc:
                out.append(doc)
    return out


def code_history(source: str) -> list[str]:
    """The phrases of `source`'s comments and docstrings that tell the code's history."""
    return [
        m.group(0)
        for text in comments_and_docstrings(source)
        for m in CODE_HISTORY.finditer(" ".join(text.split()))
    ]


def test_no_code_history_in_the_package() -> None:
    found = {
        str(path.relative_to(ROOT)): phrases
        for path in sorted((ROOT / "kanaloa_env").rglob("*.py"))
        if (phrases := code_history(path.read_text(encoding="utf-8")))
    }
    assert not found, f"comments telling the code's history (say why instead): {found}"


def test_the_pattern_finds_code_history() -> None:
    assert code_history("x = 1  # the keys lived here before the protocol had them\n")
    assert code_history('def f():\n    """Computed with numpy as it always was."""\n')
    assert code_history("# Old names kept for one release\n")
    assert code_history('"""Its figures are those of the numpy bot it\nreplaced."""\n')
    assert code_history("# `evaluate` was moved to evaluation/\n")
    # The games' own words, and strings that are not comments, are no history.
    assert not code_history("# q no longer holds the island: its stone goes back (K5.4)\n")
    assert not code_history("# the state is left as it was; its winner leads now\n")
    assert not code_history('msg = "this game is no longer on the server, as before"\n')
    assert not code_history('"""The class used to load a path."""\n')
