"""benchmarks/bench_kahuna_image.py: its measurement runs and its command line prints the figures."""

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import bench_kahuna_image  # noqa: E402

from kanaloa_env.core.kahuna import Config  # noqa: E402


def test_frames_per_second_is_positive() -> None:
    states = bench_kahuna_image.game_states(Config(), 1)[:3]
    (rate,) = bench_kahuna_image.frames_per_second(states)(0.05)
    assert rate > 0


def test_main_prints_both_games_and_the_gif(capsys: pytest.CaptureFixture[str]) -> None:
    bench_kahuna_image.main(["--seconds", "0.2", "--rounds", "1", "--every", "40"])
    out = capsys.readouterr().out
    assert "Kahuna:" in out and "Kanaloa:" in out and "ms per frame" in out
    assert "GIF of the Kahuna game: 4 frames" in out
