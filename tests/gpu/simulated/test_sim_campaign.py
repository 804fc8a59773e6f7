"""Training campaigns (`kanaloa_env.training.campaign`) under numba-cuda's simulator: a
campaign stopped after any chunk and resumed from its file trains exactly the weights
of one that never stopped (heuristic opponents, and a league with past selves), and
each save adds its evaluation to the curve."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from sim_kit import TINY_CAMPAIGN as TINY

from kanaloa_env.training.campaign import Campaign
from kanaloa_env.training.campaign_file import load_campaign

torch = pytest.importorskip("torch")
CPU = torch.device("cpu")
LEAGUE = dict(
    TINY,
    hidden=[512, 256],
    init="net",
    opponents="league",
    league_every=1,
    league_size=2,
    league_mix={"heuristic": 1.0, "net": 1.0, "self": 1.0},
    num_envs=4,
)


def _folder(tmp: Path, name: str, recipe: dict[str, Any]) -> Path:
    folder = tmp / name
    folder.mkdir()
    (folder / "recipe.json").write_text(json.dumps(recipe))
    return folder


def _train(folder: Path, chunks: int, checkpoint_seconds: float = 1e9) -> None:
    camp = Campaign(folder, CPU, log=lambda _: None)
    camp.train(1e9, folder / "campaign.npz", checkpoint_seconds, max_chunks=chunks)


def _arrays(folder: Path) -> dict[str, np.ndarray]:
    state = load_campaign(folder / "campaign.npz")
    return {k: v for k, v in state.arrays().items() if k not in ("recipe", "progress")}


@pytest.mark.parametrize("recipe", [TINY, LEAGUE], ids=["heuristic", "league"])
def test_a_campaign_stopped_and_resumed_trains_the_weights_of_one_that_never_stopped(
    tmp_path: Path, recipe: dict[str, Any]
) -> None:
    stopped, straight = _folder(tmp_path, "a", recipe), _folder(tmp_path, "b", recipe)
    _train(stopped, 1)
    first = _arrays(stopped)
    _train(stopped, 2)  # two calls: 1 chunk, then 2 more
    _train(straight, 3)
    a, b = _arrays(stopped), _arrays(straight)
    assert sorted(a) == sorted(b)
    for name in a:
        if not name.startswith("best."):  # (the best evaluation is taken at the saves)
            assert np.array_equal(a[name], b[name]), name
    assert any(not np.array_equal(first[k], a[k]) for k in first if k.startswith("actor."))
    pa, pb = (
        load_campaign(stopped / "campaign.npz").progress,
        load_campaign(straight / "campaign.npz").progress,
    )
    for key in ("decisions", "updates", "chunks", "league"):
        assert pa[key] == pb[key], key
    assert pa["chunks"] == 3 and pa["decisions"] == 3 * 2 * recipe["num_envs"] * 4
    assert pa["windows"] == 2 and len(pa["curve"]) == 2 and len(pb["curve"]) == 1
    if recipe.get("opponents") == "league":  # a past self after every chunk, two kept
        per_chunk = 2 * recipe["num_envs"] * 4
        assert pa["league"] == [2 * per_chunk, 3 * per_chunk]
        assert any(k.startswith("league.1.") for k in a)
        # The shipped network it started from is kept: a later shipped file changes nothing.
        from kanaloa_env.bots.policy_bot import shipped_paths
        from kanaloa_env.bots.policy_file import load_policy
        from kanaloa_env.training.campaign_file import file_sha256

        shipped = shipped_paths("kahuna")[2]
        assert np.array_equal(a["start.0.weight"], load_policy(shipped).layers[0][0])
        assert pa["init_sha256"] == file_sha256(shipped)


def test_a_save_every_chunk_puts_each_evaluation_on_the_curve(tmp_path: Path) -> None:
    folder = _folder(tmp_path, "c", TINY)
    _train(folder, 2, checkpoint_seconds=0)
    p = load_campaign(folder / "campaign.npz").progress
    assert [pt["decisions"] for pt in p["curve"]] == [24, 48]
    assert all(pt["device"].startswith("numba-cuda simulator") for pt in p["curve"])
    assert p["best"]["win_rate"] == max(pt["win_rate"] for pt in p["curve"])


def test_a_time_budget_stops_after_the_chunk_that_spends_it(tmp_path: Path) -> None:
    folder = _folder(tmp_path, "d", TINY)
    camp = Campaign(folder, CPU, log=lambda _: None)
    got = camp.train(1e-6, folder / "campaign.npz")
    assert got["chunks"] == 1
    assert load_campaign(folder / "campaign.npz").progress["chunks"] == 1


def test_resuming_reads_the_furthest_file(tmp_path: Path) -> None:
    folder = _folder(tmp_path, "e", TINY)
    out = tmp_path / "out" / "campaign.npz"
    Campaign(folder, CPU, log=lambda _: None).train(1e9, out, max_chunks=1)
    camp = Campaign(folder, CPU, resume_from=[out], log=lambda _: None)
    assert camp.progress["chunks"] == 1
