"""The campaign file and recipe (`kanaloa_env.training.campaign_file`): a state written and
read back is the same; a file from elsewhere is untrusted input (pickles, foreign or
missing arrays, wrong shapes, NaN, bad counters and curves, another recipe: each refused
with a ValueError naming it); a failed save leaves the old file whole. No torch needed."""

from __future__ import annotations

import dataclasses
import io
import json
import zipfile
from pathlib import Path

import numpy as np
import pytest
from campaign_kit import ROOT, TINY, tiny_state

from kanaloa_env.training import campaign_file as cf
from kanaloa_env.training.campaign_file import load_campaign, load_recipe, save_campaign


def _rewrite(path: Path, change) -> None:  # type: ignore[no-untyped-def]
    with np.load(path, allow_pickle=False) as npz:
        members = {n: npz[n] for n in npz.files}
    change(members)
    with open(path, "wb") as f:
        np.savez(f, **members)


def test_a_state_written_and_read_back_is_the_same(tmp_path: Path) -> None:
    league = dataclasses.replace(TINY, opponents="league")
    for state in (
        tiny_state(),
        tiny_state(updates=0, league=0, best=False),
        tiny_state(league, league=3),
    ):
        path = tmp_path / "c.npz"
        save_campaign(path, state)
        back = load_campaign(path, state.recipe)
        assert back.recipe == state.recipe and back.progress == state.progress
        a, b = state.arrays(), back.arrays()
        assert sorted(a) == sorted(b)
        assert (back.start is not None) == (state.recipe.opponents == "league")
        assert all(np.array_equal(a[k], b[k]) for k in a)


def test_the_shipped_recipes_load_and_name_their_campaign() -> None:
    folders = sorted((ROOT / "data" / "campaigns").glob("*/recipe.json"))
    assert len(folders) >= 3
    for path in folders:
        r = load_recipe(path)
        assert path.parent.name.startswith(f"{r.game}_{r.num_players}p_")
    plan = json.loads((ROOT / "data" / "campaigns" / "plan.json").read_text())
    for name in plan["active"] + plan["queued"]:
        assert (ROOT / "data" / "campaigns" / name / "recipe.json").is_file(), name


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"game": "chess"}, "recipe game must be one of"),
        ({"num_players": 3}, "recipe num_players"),
        ({"hidden": (0,)}, "recipe hidden"),
        ({"init": "warm"}, "recipe init"),
        ({"opponents": "random"}, "recipe opponents"),
        ({"num_envs": 0}, "recipe num_envs"),
        ({"lr": float("nan")}, "recipe lr"),
        ({"gamma": 1.5}, "recipe gamma"),
        ({"seed": -1}, "recipe seed"),
        ({"league_mix": {"heuristic": 1.0}}, "recipe league_mix"),
        ({"league_mix": {"heuristic": 0, "net": 0, "self": 0}}, "recipe league_mix"),
        ({"critic_warmup": True}, "recipe critic_warmup"),
    ],
)
def test_a_bad_recipe_is_refused_by_field(change: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        dataclasses.replace(TINY, **change)


def test_a_recipe_file_with_unknown_fields_or_not_json_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "recipe.json"
    path.write_text(json.dumps({"game": "kahuna", "num_players": 2, "speed": 3}))
    with pytest.raises(ValueError, match=r"recipe\.json.*unknown recipe fields \['speed'\]"):
        load_recipe(path)
    path.write_text("{nope")
    with pytest.raises(ValueError, match="not UTF-8 JSON"):
        load_recipe(path)
    path.write_text('{"lr": NaN, "game": "kahuna", "num_players": 2}')
    with pytest.raises(ValueError, match="NaN is not a JSON number"):
        load_recipe(path)
    with pytest.raises(ValueError, match="no such file"):
        load_recipe(tmp_path / "missing.json")


def _pickled(members: dict) -> None:
    members["actor.0.weight"] = np.array([object()], dtype=object)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (_pickled, "pickled data"),
        (lambda m: m.update({"extra": np.zeros(2, np.float32)}), r"unexpected \['extra'\]"),
        (lambda m: m.pop("critic.0.bias"), r"missing \['critic.0.bias'\]"),
        (lambda m: m.update({"actor.0.weight": np.zeros((8, 3), np.float32)}), "must be float32"),
        (lambda m: m.update({"actor.0.bias": np.zeros(8, np.float64)}), "must be float32"),
        (lambda m: m["critic.0.weight"].__setitem__((0, 0), np.nan), "NaN or infinite"),
        (lambda m: m["adam.0.exp_avg_sq"].__setitem__((0, 0), -1), "negative second moments"),
        (lambda m: m.update({"adam.0.step": np.array(1.5, np.float32)}), "whole step count"),
        (lambda m: m.pop("progress"), "no 'progress' array"),
        (lambda m: m.update({"progress": np.zeros(3, np.int64)}), "must be 1-D uint8"),
    ],
)
def test_a_tampered_file_is_refused_by_name(tmp_path: Path, change, message: str) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "c.npz"
    save_campaign(path, tiny_state())
    _rewrite(path, change)
    with pytest.raises(ValueError, match=message):
        load_campaign(path)


def _progress(path: Path, **change: object) -> None:
    def edit(members: dict) -> None:
        p = json.loads(members["progress"].tobytes())
        p.update(change)
        members["progress"] = np.frombuffer(json.dumps(p).encode(), np.uint8)

    _rewrite(path, edit)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"decisions": -1}, "progress decisions"),
        ({"speed": 1}, r"unknown \['speed'\]"),
        ({"version": 2}, "not a kanaloa-campaign file of version 1"),
        ({"best": {"win_rate": 2.0, "decisions": 1}}, "progress best"),
        ({"curve": [{"decisions": 1}]}, "a curve point must have exactly the keys"),
        ({"league": [10**9]}, "progress league"),
        ({"init_sha256": "xyz"}, "init_sha256"),
        ({"updates": 0}, r"unexpected \['adam"),
    ],
)
def test_bad_counters_and_curves_are_refused(tmp_path: Path, change: dict, message: str) -> None:
    path = tmp_path / "c.npz"
    save_campaign(path, tiny_state())
    _progress(path, **change)
    with pytest.raises(ValueError, match=message):
        load_campaign(path)


def test_not_a_zip_a_too_large_file_and_another_recipe_are_refused(
    tmp_path: Path, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "c.npz"
    path.write_bytes(b"\x80\x04not a zip")
    with pytest.raises(ValueError, match="not an .npz archive"):
        load_campaign(path)
    save_campaign(path, tiny_state())
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(ValueError, match="unreadable archive|bad campaign file"):
        load_campaign(path)
    save_campaign(path, tiny_state())
    with pytest.raises(ValueError, match=r"follows another recipe.*'seed': \(3, 4\)"):
        load_campaign(path, dataclasses.replace(TINY, seed=4))
    monkeypatch.setattr(cf, "MAX_FILE_BYTES", 1000)
    with pytest.raises(ValueError, match="a campaign file has at most 1000"):
        load_campaign(path)


def test_a_bomb_of_members_is_refused_before_it_is_read(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "c.npz"
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("actor.0.weight.npy", b"\0" * 5_000_000)
    path.write_bytes(buf.getvalue())
    monkeypatch.setattr(cf, "MAX_FILE_BYTES", 1_000_000)
    with pytest.raises(ValueError, match="bytes uncompressed; a campaign file has at most"):
        load_campaign(path)


def test_a_failed_save_leaves_the_old_file_whole(tmp_path: Path) -> None:
    path = tmp_path / "c.npz"
    save_campaign(path, tiny_state())
    before = path.read_bytes()
    bad = tiny_state()
    bad.actor["0.weight"] = bad.actor["0.weight"][:, :3]
    with pytest.raises(ValueError, match="must be float32"):
        save_campaign(path, bad)
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["c.npz"]
