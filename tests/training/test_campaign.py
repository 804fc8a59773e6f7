"""The campaigns' CPU side (`kanaloa_env.training.campaign`): the docs section matches the
campaign files, a curve renders, a campaign's actor exports as a policy file that plays,
the CPU arena splits its games between processes and keeps its history, and the command
line says what is wrong (training without a GPU included). Training itself runs under
the simulator: tests/gpu/simulated/test_sim_campaign.py."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest
from campaign_kit import TINY, tiny_state

from kanaloa_env.bots.policy_file import load_policy
from kanaloa_env.training import campaign
from kanaloa_env.training.campaign_file import save_campaign

pytest.importorskip("torch")


def _folder(tmp_path: Path, with_file: bool = True) -> Path:
    folder = tmp_path / "kahuna_tiny"
    folder.mkdir(parents=True)
    (folder / "recipe.json").write_text(TINY.to_json())
    if with_file:
        save_campaign(folder / "campaign.npz", tiny_state())
    return folder


def test_the_docs_section_is_generated_from_the_campaign_files() -> None:
    assert campaign.update_docs(check=True), "run: python -m kanaloa_env.training.campaign docs"


def test_a_curve_renders_its_points_and_arenas(tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    (folder / "arena.json").write_text(
        json.dumps([{"decisions": 48, "which": "best", "wins": 30, "games": 40, "seeds": [1]}])
    )
    text = campaign.curve_markdown(folder)
    assert "### `kahuna_tiny`" in text and "48 learner decisions in 1 chunks" in text
    assert "| 1 | d | 48 | 0.1 | 50.0% (" in text
    assert "| 48 (best) | 75.0% (" in text
    assert "Not started" in campaign.curve_markdown(_folder(tmp_path / "x", with_file=False))


def test_a_stale_docs_section_is_found_and_rewritten(tmp_path: Path) -> None:
    camps = tmp_path / "campaigns"
    camps.mkdir()
    _folder(camps)
    doc = tmp_path / "doc.md"
    doc.write_text(f"# T\n\n{campaign.DOCS_BEGIN}\nold\n{campaign.DOCS_END}\nafter\n")
    assert not campaign.update_docs(camps, doc, check=True)
    assert "old" in doc.read_text()
    assert not campaign.update_docs(camps, doc)
    assert campaign.update_docs(camps, doc, check=True)
    assert "### `kahuna_tiny`" in doc.read_text() and doc.read_text().endswith("after\n")
    doc.write_text("no markers")
    with pytest.raises(ValueError, match="has no"):
        campaign.update_docs(camps, doc)


def test_an_exported_actor_is_the_campaigns(tmp_path: Path) -> None:
    state = tiny_state()
    for which, params, decisions in (("best", state.best, 48), ("latest", state.actor, 48)):
        path = campaign.export_policy(state, tmp_path / f"{which}.npz", which, "tiny")
        w = load_policy(path)
        assert w.num_players == 2 and w.hidden_sizes == [8]
        assert np.array_equal(w.layers[0][0], params["0.weight"])
        assert np.array_equal(w.layers[1][1], params["2.bias"])
        assert w.metadata["training"]["timesteps"] == decisions
    with pytest.raises(ValueError, match="no evaluated actor yet"):
        campaign.export_policy(tiny_state(best=False), tmp_path / "x.npz")


def test_the_arena_splits_its_games_and_keeps_its_history(tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    one = campaign.arena(folder, games=4, workers=1, seed=5)
    assert one["games"] == 4 and one["seeds"] == [5] and 0 <= one["wins"] <= 4
    two = campaign.arena(folder, games=4, workers=2, seed=5)
    assert two["games"] == 4 and two["seeds"] == [5, 6] and two["games_per_seed"] == 2
    history = json.loads((folder / "arena.json").read_text())
    assert [h["workers"] for h in history] == [1, 2]
    assert not list(folder.glob(".arena-*"))
    (folder / "arena.json").write_text('[{"wins": 5, "games": 2, "decisions": 1}]')
    with pytest.raises(ValueError, match="not a list of arena results"):
        campaign.arena(folder, games=2)


def test_the_command_line_says_what_is_wrong(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    folder = _folder(tmp_path)
    assert campaign.main(["status", str(folder)]) == 0
    assert "48 decisions, 1 chunks" in capsys.readouterr().out
    out = tmp_path / "p.npz"
    assert campaign.main(["export", str(folder), "--out", str(out), "--which", "latest"]) == 0
    assert load_policy(out).metadata["training"]["which"] == "latest"
    assert campaign.main(["status", str(tmp_path / "nowhere")]) == 2
    assert "recipe.json" in capsys.readouterr().err
    assert campaign.main(["train", str(folder), "--seconds", "0"]) == 2
    assert "--seconds and --checkpoint-seconds must be above 0" in capsys.readouterr().err


def test_training_without_a_gpu_says_so(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    from numba import cuda

    from kanaloa_env.core import gpu

    if cuda.is_available() or gpu.simulator():
        pytest.skip("this process has a GPU or the simulator")
    pytest.importorskip("numba_cuda")
    with pytest.raises(SystemExit) as stop:
        campaign.main(["train", str(_folder(tmp_path)), "--seconds", "5"])
    assert stop.value.code == 2
    assert "campaign training needs a CUDA GPU" in capsys.readouterr().err


def _strong_campaign(tmp_path: Path) -> Path:
    """A Kahuna campaign whose best actor is the shipped Kahuna network."""
    from kanaloa_env.bots.policy_bot import shipped_paths

    recipe = dataclasses.replace(TINY, hidden=(512, 256))
    folder = tmp_path / "strong"
    folder.mkdir(parents=True)
    (folder / "recipe.json").write_text(recipe.to_json())
    state = tiny_state(recipe)
    layers = load_policy(shipped_paths("kahuna")[2]).layers
    state.best = {
        f"{2 * i}.{k}": a
        for i, (w, b) in enumerate(layers)
        for k, a in (("weight", w), ("bias", b))
    }
    save_campaign(folder / "campaign.npz", state)
    return folder


def test_a_network_that_beats_the_shipped_one_is_shipped_and_one_that_does_not_is_not(
    tmp_path: Path,
) -> None:
    weak = tmp_path / "weak.npz"
    campaign.export_policy(tiny_state(), weak, "best", "weak")
    to = tmp_path / "shipped.npz"
    got = campaign.ship(_strong_campaign(tmp_path), 40, 40, against=weak, to=to, seed=3)
    assert got["ships"] and got["written"] == str(to)
    assert got["head_to_head"]["campaign_wins"] > got["head_to_head"]["shipped_wins"]
    assert load_policy(to).hidden_sizes == [512, 256] and len(got["sha256"]) == 64
    dry = campaign.ship(
        _strong_campaign(tmp_path / "d"), 40, 40, against=weak, to=tmp_path / "x.npz", dry_run=True
    )
    assert dry["ships"] and dry["written"] is None and not (tmp_path / "x.npz").exists()
    folder = _folder(tmp_path / "w")  # a random 8-unit network against the strong one
    lost = campaign.ship(folder, 40, 40, against=to, to=tmp_path / "y.npz", seed=3)
    assert not lost["ships"] and not (tmp_path / "y.npz").exists()


def test_no_evaluation_plays_a_training_deal() -> None:
    # Deals are the games of a seed's stream: training chunks' seeds have bit 63 set,
    # every evaluation's (device and CPU arena) is below 2**32.
    for seed in (0, 1, 2**32 - 1):
        train = {campaign.chunk_seed(seed, campaign.TRAIN, c) for c in range(500)}
        assert len(train) == 500 and min(train) >= 2**63
        assert campaign.eval_seed(seed) < 2**32
        for stream in (campaign.SAMPLE, campaign.SHUFFLE, campaign.OPPONENT, campaign.SLOTS):
            assert campaign.chunk_seed(seed, stream, 7) < 2**63
