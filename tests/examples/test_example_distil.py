"""The search-distillation recipe of the shipped policies: examples/label_with_search.py
(label chunks, replayed exactly and checked), examples/distil_search.py (a policy file
per table size) and train_ppo_bot.py --init-policy (PPO from such a file)."""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
sys.path.insert(0, str(EXAMPLES))

from interrupt_kit import run_example  # noqa: E402

from kanaloa_env.training.labels import read_chunk, replay_chunk  # noqa: E402


def run(script: str, *args: str) -> subprocess.CompletedProcess:
    proc = run_example(script, *args)
    assert proc.returncode == 0, f"{script} failed:\n{proc.stdout}\n{proc.stderr}"
    return proc


def label(out: Path, *extra: str) -> subprocess.CompletedProcess:
    return run(
        "label_with_search.py",
        *("--num-players", "3", "--rollouts", "8", "--games-per-chunk", "3", "--seed", "4"),
        *("--output-dir", str(out), *extra),
    )


@pytest.fixture(scope="module")
def labels(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("labels")
    label(out, "--chunks", "2", "--workers", "2")
    return out


def test_chunks_replay_to_the_labelled_decisions(labels: Path) -> None:
    from kanaloa_env.bots import make_bot
    from kanaloa_env.games import get_game

    files = sorted(labels.glob("chunk_*.npz"))
    assert [f.name for f in files] == ["chunk_00000.npz", "chunk_00001.npz"]
    meta, moves, search = read_chunk(str(files[1]))
    assert meta["first_game"] == 3 and meta["num_games"] == 3 and meta["rollouts"] == 8
    data = replay_chunk(str(files[1]))
    n = len(moves)
    assert data["obs"].shape == (n, 416) and data["masks"].shape == (n, 66)
    assert (data["heuristic"] == moves).all() and (data["labels"] == search).all()
    assert data["masks"][np.arange(n), search].all()
    assert (search != moves).any() and (search == moves).any()  # search is not the heuristic
    # The first decision of each game, by hand: the heuristic's move at a fresh deal.
    game = get_game("kanaloa")
    state = game.init_game(game.make_config(None, 3), 4, i=3)
    seat = state.current_player.astype(np.int64)
    first = make_bot("heuristic").act(
        None,
        state.legal.copy(),
        np.random.default_rng(0),
        view=game.public_view(state, seat),
        seats=seat,
    )
    assert moves[0] == first[0]
    np.testing.assert_array_equal(data["obs"][0], game.observe(state)[0])


def test_labels_do_not_depend_on_workers_and_a_rerun_skips_what_is_done(
    labels: Path, tmp_path: Path
) -> None:
    label(tmp_path, "--chunks", "2", "--workers", "1")
    for name in ("chunk_00000.npz", "chunk_00001.npz"):
        a, b = read_chunk(str(labels / name)), read_chunk(str(tmp_path / name))
        np.testing.assert_array_equal(a[1], b[1])
        np.testing.assert_array_equal(a[2], b[2])
    before = (tmp_path / "chunk_00000.npz").stat().st_mtime_ns
    out = label(tmp_path, "--chunks", "3", "--workers", "1").stdout
    assert "chunk 2:" in out and "chunk 0:" not in out
    assert (tmp_path / "chunk_00000.npz").stat().st_mtime_ns == before


def test_a_chunk_that_is_not_this_engines_games_is_refused(labels: Path, tmp_path: Path) -> None:
    meta, moves, search = read_chunk(str(labels / "chunk_00000.npz"))
    bad = moves.copy()
    bad[5] = (bad[5] + 1) % 66
    path = tmp_path / "chunk_00000.npz"
    np.savez(
        path,
        heuristic=bad.astype(np.int16),
        search=search.astype(np.int16),
        meta=np.array(json.dumps(meta)),
    )
    with pytest.raises(ValueError, match="not this engine's heuristic games"):
        replay_chunk(str(path))
    np.savez(path, heuristic=moves.astype(np.int16), meta=np.array(json.dumps(meta)))
    with pytest.raises(ValueError, match="not a label chunk"):
        replay_chunk(str(path))
    # Untrusted files fail with a ValueError naming the file, never deep inside numpy.
    cases = {
        "a search label is not an action": dict(search=np.where(search == search[0], 70, search)),
        "'search' must be a 1-D integer array": dict(search=search.astype(np.float32)),
        "bad metadata": dict(meta=np.array(json.dumps({**meta, "seed": "zero"}))),
        "the metadata is not JSON": dict(meta=np.array("{not json")),
    }
    for words, change in cases.items():
        arrays = {"heuristic": moves.astype(np.int16), "search": search.astype(np.int16)}
        arrays["meta"] = np.array(json.dumps(meta))
        np.savez(path, **{**arrays, **change})
        with pytest.raises(ValueError, match=words):
            replay_chunk(str(path))
    path.write_bytes(b"not a zip archive")
    with pytest.raises(ValueError, match="not a readable label chunk"):
        replay_chunk(str(path))


def test_guided_labels_come_from_the_search_the_network_guides(tmp_path: Path) -> None:
    """--guide: the labeller is the search guided by the files; with --guide-top 1 it
    plays the network's choice, so the labels are the network's moves."""
    pytest.importorskip("torch")
    from kanaloa_env.bots import make_bot

    shipped = ROOT / "kanaloa_env" / "bots" / "data" / "kanaloa_3p.npz"
    label(tmp_path, "--chunks", "1", "--guide", str(shipped), "--guide-top", "1")
    path = tmp_path / "chunk_00000.npz"
    meta, moves, labels = read_chunk(str(path))
    assert meta["guide"] == ["kanaloa_3p.npz"] and meta["guide_top"] == 1
    data = replay_chunk(str(path))
    net = make_bot(str(shipped))
    want = net.act(data["obs"], data["masks"], np.random.default_rng(0))
    np.testing.assert_array_equal(labels, want)
    # Guide metadata is checked like the rest.
    arrays = {"heuristic": moves.astype(np.int16), "search": labels.astype(np.int16)}
    for bad in ({"guide": "kanaloa_3p.npz"}, {"guide_top": 0}, {"guide_top": "1"}):
        np.savez(path, **arrays, meta=np.array(json.dumps({**meta, **bad})))
        with pytest.raises(ValueError, match="bad guide metadata"):
            read_chunk(str(path))
    proc = run_example(
        "label_with_search.py", "--guide", str(tmp_path / "none.npz"), "--output-dir", "x"
    )
    assert proc.returncode == 2 and "--guide:" in proc.stderr


def test_kahuna_chunks_label_and_replay(tmp_path: Path) -> None:
    run(
        "label_with_search.py",
        *("--game", "kahuna", "--rollouts", "4", "--games-per-chunk", "2", "--chunks", "1"),
        *("--output-dir", str(tmp_path)),
    )
    data = replay_chunk(str(tmp_path / "chunk_00000.npz"))
    assert data["obs"].shape[1] == 321 and data["masks"].shape[1] == 153
    assert data["masks"][np.arange(len(data["labels"])), data["labels"]].all()


@pytest.mark.skipif(
    subprocess.run([sys.executable, "-c", "import torch, sb3_contrib"]).returncode != 0,
    reason="needs the train extra",
)
def test_distil_then_ppo_from_the_policy_file(labels: Path, tmp_path: Path) -> None:
    from kanaloa_env.bots.policy_bot import PolicyBot
    from kanaloa_env.bots.policy_file import load_policy

    out = run(
        "distil_search.py",
        *("--labels", str(labels), "--output-dir", str(tmp_path / "d"), "--hidden", "16"),
        *("--epochs", "2", "--eval-games", "6", "--random-games", "6", "--curve-games", "4"),
        *("--num-players", "3", "4"),
    ).stdout
    assert "epoch 2/2" in out and "3 players, against heuristic bots" in out
    assert "4 players, against random bots" in out
    with open(tmp_path / "d" / "eval.csv") as f:
        rows = list(csv.DictReader(f))
    # After each of 2 epochs and at the end: both sizes; at the end also against random.
    assert [(r["epoch"], r["players"], r["opponents"]) for r in rows] == [
        ("1", "3", "heuristic"), ("1", "4", "heuristic"), ("2", "3", "heuristic"),
        ("2", "4", "heuristic"), ("final", "3", "heuristic"), ("final", "3", "random"),
        ("final", "4", "heuristic"), ("final", "4", "random"),
    ]  # fmt: skip
    assert all(0 <= float(r["win_rate"]) <= 1 for r in rows)
    cpu = [float(r["cpu_s"]) for r in rows]
    assert cpu == sorted(cpu) and cpu[0] > 0
    assert (tmp_path / "d" / "learning_curve.png").stat().st_size > 0
    assert (tmp_path / "d" / "arena_4p_random" / "results.json").exists()
    w3, w4 = (
        load_policy(tmp_path / "d" / "kanaloa_3p.npz"),
        load_policy(tmp_path / "d" / "kanaloa_4p.npz"),
    )
    assert (w3.num_players, w4.num_players, w3.hidden_sizes, w3.activation) == (3, 4, [16], "relu")
    for (a, b), (c, d) in zip(w3.layers, w4.layers, strict=True):
        assert (a == c).all() and (b == d).all()  # one network, a file per table size
    PolicyBot([w3, w4])
    # PPO from it: stage 1 fits only the value network, so with no PPO steps the
    # exported policy is the file's.
    run(
        "train_ppo_bot.py",
        *("--init-policy", str(tmp_path / "d" / "kanaloa_3p.npz"), "--num-players", "3"),
        *("--bc-chunks", "1", "--bc-games", "8", "--ppo-timesteps", "0", "--num-envs", "8"),
        *("--n-steps", "16", "--eval-games", "6", "--final-games", "6"),
        *("--output-dir", str(tmp_path / "p")),
    )
    p = load_policy(tmp_path / "p" / "policy.npz")
    assert p.hidden_sizes == [16] and p.activation == "relu"
    assert "from a policy file" in p.metadata["training"]["method"]
    for (a, b), (c, d) in zip(w3.layers, p.layers, strict=True):
        np.testing.assert_array_equal(a, c)
        np.testing.assert_array_equal(b, d)


def test_the_shipped_labels_replay_on_this_engine() -> None:
    """The main job's default data: every chunk's file is well formed, and the first and
    last chunk of each table size replay on this engine (a rules change that alters the
    heuristic's games fails here, not in a user's training run)."""
    import distil_search

    args = distil_search.parse_args([])
    assert args.labels == distil_search.DEFAULT_LABELS and len(args.files) == 290
    for folder in args.labels:
        files = sorted(Path(folder).glob("chunk_*.npz"))
        for path in files:
            meta, moves, search = read_chunk(str(path))
            assert meta["rollouts"] == 128 and len(moves) > 0
        for path in (files[0], files[-1]):
            data = replay_chunk(str(path))
            assert len(data["labels"]) == len(read_chunk(str(path))[1])
