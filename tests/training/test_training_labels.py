"""kanaloa_env.training.labels and .distil: label chunk files (made, written whole, read
back as untrusted input, replayed) and the search distilled into policy files."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
import pytest

from kanaloa_env.training import GracefulStop
from kanaloa_env.training.labels import (
    LabelJob,
    chunk_files,
    chunk_path,
    label_chunk,
    label_chunks,
    read_chunk,
    replay_chunk,
    self_play,
    write_chunk,
)

JOB = LabelJob(game="kanaloa", num_players=3, rollouts=2, seed=4, games_per_chunk=1)


@pytest.fixture(scope="module")
def chunk(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Chunk 1 of `JOB`: one 3-player game labelled by a 2-rollout search."""
    folder = tmp_path_factory.mktemp("labels")
    c, n, cpu = label_chunk(JOB, str(folder), 1)
    assert c == 1 and n > 0 and cpu >= 0
    return Path(chunk_path(str(folder), 1))


def test_a_chunk_holds_the_heuristics_moves_and_replays(chunk: Path) -> None:
    meta, moves, labels = read_chunk(str(chunk))
    assert meta["game"] == "kanaloa" and meta["first_game"] == 1 and meta["rollouts"] == 2
    assert moves.dtype == labels.dtype == np.int64 and moves.shape == labels.shape
    played = self_play("kanaloa", 3, 4, first_game=1, num_games=1)
    np.testing.assert_array_equal(moves, played["heuristic"])
    data = replay_chunk(str(chunk))
    np.testing.assert_array_equal(data["labels"], labels)
    assert data["masks"][np.arange(len(labels)), labels].all()
    assert data["obs"].shape == (len(labels), played["obs"].shape[1])


def test_a_chunk_file_is_checked_before_use(chunk: Path, tmp_path: Path) -> None:
    meta, moves, labels = read_chunk(str(chunk))
    with pytest.raises(ValueError, match="not a readable label chunk"):
        read_chunk(str(tmp_path / "missing.npz"))
    other = tmp_path / "other.npz"
    np.savez(other, x=np.zeros(3))
    with pytest.raises(ValueError, match="not a label chunk"):
        read_chunk(str(other))
    bad = dict(meta, num_games=0)
    write_chunk(str(tmp_path / "bad.npz"), bad, moves, labels)
    with pytest.raises(ValueError, match="bad metadata"):
        read_chunk(str(tmp_path / "bad.npz"))
    write_chunk(str(tmp_path / "short.npz"), meta, moves, labels[:-1])
    with pytest.raises(ValueError, match="differ"):
        read_chunk(str(tmp_path / "short.npz"))
    wrong = moves.copy()
    wrong[0] = (wrong[0] + 1) % 66
    write_chunk(str(tmp_path / "wrong.npz"), meta, wrong, labels)
    with pytest.raises(ValueError, match="not this engine's heuristic games"):
        replay_chunk(str(tmp_path / "wrong.npz"))
    illegal = labels.copy()
    illegal[0] = 999
    write_chunk(str(tmp_path / "illegal.npz"), meta, moves, illegal)
    with pytest.raises(ValueError, match="not an action"):
        replay_chunk(str(tmp_path / "illegal.npz"))


def test_labelling_skips_the_chunks_on_disk(
    chunk: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = str(chunk.parent)
    before = chunk.read_bytes()
    assert chunk_files([folder]) == [str(chunk)]
    summary = label_chunks(JOB, folder, chunks=2, workers=1)  # chunk 0 is new, 1 is kept
    assert summary["chunks"] == 1 and summary["decisions"] > 0
    assert chunk.read_bytes() == before
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("chunk 0:") and json.loads(out[-1]) == summary
    assert chunk_files([folder]) == [chunk_path(folder, 0), str(chunk)]


def test_the_job_of_a_command_line() -> None:
    args = argparse.Namespace(
        game="kahuna", num_players=2, rollouts=8, seed=1, games_per_chunk=3, guide=None
    )
    args.guide_top, args.output_dir = 2, "x"
    job = LabelJob.from_args(args)
    assert job == LabelJob("kahuna", 2, 8, 1, 3, None, 2)


def test_distillation_is_deterministic_and_exports_every_table_size(
    chunk: Path, tmp_path: Path
) -> None:
    pytest.importorskip("torch")
    from kanaloa_env.bots.policy_file import load_policy
    from kanaloa_env.training.distil import (
        DistilSettings,
        add_settings_options,
        distil,
        load_decisions,
        train,
    )

    p = argparse.ArgumentParser()
    add_settings_options(p)
    args = p.parse_args(["--epochs", "2", "--hidden", "8"])
    args.hidden = [8]
    settings = DistilSettings.from_args(args)
    assert settings == DistilSettings(hidden=[8], epochs=2)
    lines: list[str] = []
    data = load_decisions([str(chunk)], lines.append)
    assert data["game"] == "kanaloa" and data["sources"]["chunks"] == 1
    nets = [train(settings, data, lines.append, GracefulStop()) for _ in range(2)]
    for a, b in zip(nets[0].parameters(), nets[1].parameters(), strict=True):
        assert bool((a == b).all())
    training = {"recipe": "test", "command": "python test"}
    summary = distil(
        [str(chunk)], str(tmp_path), settings, log=lines.append, training=training,
        num_players=[3, 4],
    )  # fmt: skip
    assert [Path(p).name for p in summary["policies"]] == ["kanaloa_3p.npz", "kanaloa_4p.npz"]
    w = load_policy(summary["policies"][1])
    assert w.num_players == 4 and w.hidden_sizes == [8]
    assert w.metadata["training"]["recipe"] == "test"
    assert w.metadata["training"]["labels"]["decisions"] == len(data["labels"])
    assert (tmp_path / "eval.csv").read_text().startswith("epoch,players,opponents")
