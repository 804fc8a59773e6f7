"""examples/plot_baselines.py: the curves of docs/baselines.md from the runs' evaluation files."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "examples"))

from plot_baselines import CURVES, DATA, Curve, main, read_points  # noqa: E402


def test_every_curve_has_its_file_in_the_repo() -> None:
    for curve in CURVES:
        x, y, lo, hi = read_points(curve)
        assert len(x) >= 2, curve.file
        assert x == sorted(x) and x[0] >= curve.offset_s / 3600
        assert all(0 <= a <= b <= c <= 1 for a, b, c in zip(lo, y, hi, strict=True))


def test_the_picture_is_drawn_from_the_files(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    out = tmp_path / "b.png"
    main(["--out", str(out), "--data", DATA])
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_missing_file_is_an_error_not_a_missing_line(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    with pytest.raises(FileNotFoundError):
        main(["--out", str(tmp_path / "b.png"), "--data", str(tmp_path)])
    assert not (tmp_path / "b.png").exists()


def test_distillation_rows_keep_one_table_size_against_heuristic_bots(tmp_path: Path) -> None:
    (tmp_path / "d.csv").write_text(
        "epoch,players,opponents,games,win_rate,ci_low,ci_high,agreement,cpu_s\n"
        "1,3,heuristic,500,0.4,0.35,0.45,0.7,360\n"
        "1,4,heuristic,500,0.3,0.26,0.34,0.7,370\n"
        "1,4,random,500,0.6,0.55,0.65,0.7,380\n"
        "2,4,heuristic,500,0.32,0.28,0.36,0.7,720\n"
        "final,4,heuristic,4000,0.33,0.32,0.34,,900\n"
    )
    curve = Curve("p", "l", "d.csv", offset_s=3600.0, players=4)
    x, y, lo, hi = read_points(curve, str(tmp_path))
    assert x == [1 + 370 / 3600, 1 + 720 / 3600]
    assert y == [0.3, 0.32] and lo == [0.26, 0.28] and hi == [0.34, 0.36]
