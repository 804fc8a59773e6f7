"""examples/expert_iteration.py: a generation labelled by the search its predecessor guides,
distilled, measured against its predecessor, with the figures in its file; resumes."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
from interrupt_kit import run_example

pytest.importorskip("torch")

TINY = (
    *("--generations", "1", "--num-players", "3", "--chunks", "1", "--games-per-chunk", "2"),
    *("--rollouts", "8", "--base-labels", "--epochs", "1", "--arena-games", "6"),
    *("--workers", "1", "--torch-threads", "1"),
)


def test_a_generation_end_to_end_and_a_rerun_skips_it(tmp_path: Path) -> None:
    from kanaloa_env.bots import make_bot
    from kanaloa_env.bots.policy_file import load_policy
    from kanaloa_env.training.labels import read_chunk

    out = tmp_path / "exit"
    proc = run_example("expert_iteration.py", *TINY, "--output-dir", str(out))
    assert proc.returncode == 0, proc.stderr
    meta, _, _ = read_chunk(str(out / "gen1" / "labels" / "kanaloa_3p" / "chunk_00000.npz"))
    assert meta["guide"] == ["kanaloa_3p.npz"] and meta["guide_top"] == 3
    w = load_policy(out / "gen1" / "kanaloa_3p.npz")
    training = w.metadata["training"]
    assert training["generation"] == 1 and training["guide"] == "kanaloa_3p.npz"
    assert training["labels"]["guides"] == ["kanaloa_3p.npz"]
    assert training["method"].startswith("supervised learning of the guided search")
    assert [a["opponent"] for a in training["arena"]] == ["gen0", "heuristic"]
    assert training["arena"][0]["seat_share"] == pytest.approx(2 / 3, abs=1e-3)
    with open(out / "generations.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert [(r["generation"], r["opponent"], r["games"]) for r in rows] == [
        ("1", "gen0", "6"),
        ("1", "heuristic", "6"),
    ]
    assert all(0 <= float(r["win_rate"]) <= 1 for r in rows)
    assert make_bot(str(out / "gen1" / "kanaloa_3p.npz")).name == "kanaloa_3p"
    proc = run_example("expert_iteration.py", *TINY, "--output-dir", str(out))
    assert proc.returncode == 0 and "generation 1: done before, skipped" in proc.stdout


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (("--num-players", "6"), "--num-players: the start has no network for [6] players"),
        (("--start", "/nonexistent.npz"), "--start:"),
        (("--game", "kahuna", "--num-players", "3"), "no network for [3] players"),
        (("--chunks", "0"), "--chunks must be >= 1"),
    ],
)
def test_bad_arguments_are_named(flags: tuple[str, ...], message: str) -> None:
    proc = run_example("expert_iteration.py", *flags, "--output-dir", "/nonexistent/never")
    assert proc.returncode == 2
    assert message in proc.stderr, proc.stderr
