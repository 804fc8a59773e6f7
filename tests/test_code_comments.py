"""The package's code says why it does what it does; what was measured lives in
benchmarks/HISTORY.md and the commit messages, not in its comments and docstrings."""

from __future__ import annotations

import re
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
