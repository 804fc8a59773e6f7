"""Weights-only policy files: round trip, validation of untrusted files, no code on load,
the exporter from MaskablePPO, the shipped "net" bot, and the error without torch."""

from __future__ import annotations

import io
import json
import os
import pickle
import re
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest

from kanaloa_env.arena import main as arena_main
from kanaloa_env.arena import run_tournament
from kanaloa_env.bots import make_bot, sample_legal
from kanaloa_env.bots import policy_bot as pb
from kanaloa_env.bots import policy_file as pf
from kanaloa_env.bots.policy_bot import PolicyBot
from kanaloa_env.bots.policy_file import PolicyWeights, load_policy, make_metadata, save_policy
from kanaloa_env.bots.sb3_export import export_maskable_ppo
from kanaloa_env.core.kanaloa import Config, init, observe, step
from kanaloa_env.core.kanaloa.observation import OFFSETS
from kanaloa_env.games import get_game

try:
    import torch  # noqa: F401
except ImportError:
    HAVE_TORCH = False
else:
    HAVE_TORCH = True
# Reading and validating files needs numpy only; playing needs the `train` extra.
needs_torch = pytest.mark.skipif(not HAVE_TORCH, reason="needs torch (the train extra)")
ROOT = Path(__file__).resolve().parents[2]


def random_weights(
    num_players: int = 4,
    hidden: tuple[int, ...] = (32, 16),
    activation: str = "tanh",
    seed: int = 0,
    game: str = "kanaloa",
) -> PolicyWeights:
    """A small network with random weights (scaled so that actions differ by position)."""
    rng = np.random.default_rng(seed)
    g = get_game(game)
    sizes = [g.obs_dim, *hidden, g.num_actions]
    layers = tuple(
        (
            rng.normal(0, 1.5 / np.sqrt(i), size=(o, i)).astype(np.float32),
            rng.normal(0, 0.1, size=o).astype(np.float32),
        )
        for i, o in zip(sizes[:-1], sizes[1:], strict=True)
    )
    meta = make_metadata(
        num_players, list(hidden), activation, {"recipe": "test", "seed": seed}, game
    )
    return PolicyWeights(metadata=meta, layers=layers)


def positions(n: int = 2000, num_players: int = 4, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Observations and masks of `n` live positions of random play, from whole games (every
    phase and round)."""
    rng = np.random.default_rng(seed)
    s = init(Config(num_players=num_players), max(32, n // 16), seed=seed)
    obs, masks = [], []
    while not s.done.all():
        live = ~s.done
        obs.append(observe(s)[live])
        masks.append(s.legal[live])
        s = step(s, sample_legal(np.where(s.done[:, None], True, s.legal), rng))
    o, m = np.concatenate(obs), np.concatenate(masks)
    pick = rng.choice(len(o), size=min(n, len(o)), replace=False)
    return o[pick], m[pick]


def write_npz(path: Path, arrays: dict[str, np.ndarray]) -> Path:
    with open(path, "wb") as f:
        np.savez(f, **arrays)
    return path


def file_arrays(weights: PolicyWeights) -> dict[str, np.ndarray]:
    """The arrays a policy file holds, metadata included, for tampering with."""
    text = json.dumps(weights.metadata).encode()
    return {"metadata": np.frombuffer(text, dtype=np.uint8), **weights.arrays()}


def with_metadata(weights: PolicyWeights, **changes: object) -> dict[str, np.ndarray]:
    meta = dict(weights.metadata, **changes)
    arrays = file_arrays(weights)
    arrays["metadata"] = np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8)
    return arrays


# ---- round trip, playing -------------------------------------------------------------


@needs_torch
def test_round_trip_gives_identical_arrays_and_actions(tmp_path: Path) -> None:
    w = random_weights()
    path = tmp_path / "p.npz"
    save_policy(path, w)
    assert path.stat().st_mode & 0o777 == 0o644  # readable by others, unlike a temp file
    back = load_policy(path)
    assert back.metadata == w.metadata
    for (w1, b1), (w2, b2) in zip(w.layers, back.layers, strict=True):
        np.testing.assert_array_equal(w1, w2)
        np.testing.assert_array_equal(b1, b2)
    obs, masks = positions()
    rng = np.random.default_rng(0)
    a1 = PolicyBot(w).act(obs, masks, rng)
    a2 = PolicyBot.load(path).act(obs, masks, rng)
    np.testing.assert_array_equal(a1, a2)
    assert masks[np.arange(len(a1)), a1].all()
    assert len(np.unique(a1)) > 10  # the positions are varied, not one repeated choice


@needs_torch
def test_greedy_actions_are_the_masked_argmax_of_the_numpy_reference() -> None:
    w = random_weights(activation="relu", hidden=(24,))
    obs, masks = positions(500)
    ref = w.logits(obs)
    bot = PolicyBot(w)
    np.testing.assert_allclose(bot.logits(obs), ref, rtol=1e-4, atol=1e-4)
    ref[~masks] = -np.inf
    np.testing.assert_array_equal(bot.act(obs, masks, np.random.default_rng(0)), ref.argmax(1))


@needs_torch
def test_sampling_is_legal_reproducible_and_follows_the_softmax() -> None:
    bot = PolicyBot(random_weights(), deterministic=False)
    obs, masks = positions(300)
    a1 = bot.act(obs, masks, np.random.default_rng(5))
    a2 = bot.act(obs, masks, np.random.default_rng(5))
    np.testing.assert_array_equal(a1, a2)
    assert masks[np.arange(len(a1)), a1].all()
    one_obs, one_mask = np.repeat(obs[:1], 4000, axis=0), np.repeat(masks[:1], 4000, axis=0)
    a = bot.act(one_obs, one_mask, np.random.default_rng(0))
    logits = bot.logits(obs[:1])[0][masks[0]]
    p = np.exp(logits - logits.max())
    np.testing.assert_allclose(
        np.bincount(a, minlength=66)[masks[0]] / len(a), p / p.sum(), atol=0.03
    )


@needs_torch
def test_decisions_are_routed_by_the_table_size_in_the_observation() -> None:
    w3, w5 = random_weights(3, seed=1), random_weights(5, seed=2)
    both = PolicyBot([w3, w5])
    assert both.num_players == (3, 5)
    o3, m3 = positions(200, num_players=3)
    o5, m5 = positions(200, num_players=5)
    obs, masks = np.concatenate([o3, o5]), np.concatenate([m3, m5])
    order = np.random.default_rng(0).permutation(len(obs))
    rng = np.random.default_rng(0)
    mixed = both.act(obs[order], masks[order], rng)
    alone = np.concatenate([PolicyBot(w3).act(o3, m3, rng), PolicyBot(w5).act(o5, m5, rng)])
    np.testing.assert_array_equal(mixed, alone[order])
    with pytest.raises(ValueError, match=r"policies for \[3, 5\] players, not for a table of 4"):
        both.act(*positions(10, num_players=4), rng)
    with pytest.raises(ValueError, match="two policies for 3 players"):
        PolicyBot([w3, random_weights(3, seed=4)])
    bad = o3[:4].copy()
    lo, hi = OFFSETS["table_size"]
    bad[:, lo:hi] = 0  # no table size at all
    with pytest.raises(ValueError, match="no valid table size"):
        both.act(bad, m3[:4], rng)


@needs_torch
def test_bad_batches_are_refused() -> None:
    bot = PolicyBot(random_weights())
    obs, masks = positions(20)
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="masks must have shape"):
        bot.act(obs, masks[:, :10], rng)
    with pytest.raises(ValueError, match="observations must have shape"):
        bot.act(obs[:, :100], masks, rng)
    empty = masks.copy()
    empty[3] = False
    with pytest.raises(ValueError, match="at least one legal action"):
        bot.act(obs, empty, rng)
    assert bot.act(obs[:0], masks[:0], rng).shape == (0,)


@needs_torch
def test_policy_file_plays_in_the_arena_cli_and_make_bot(tmp_path: Path, capsys) -> None:
    path = tmp_path / "mine.npz"
    save_policy(path, random_weights())
    bot = make_bot(str(path))
    assert isinstance(bot, PolicyBot) and bot.name == "mine"
    code = arena_main(
        ["--bots", str(path), "random", "random", "random", "--games", "8", "--no-progress"]
        + ["--out", str(tmp_path / "arena")]
    )
    assert code == 0
    table = capsys.readouterr().out
    assert "mine" in table and "8 games" in table


@needs_torch
def test_a_kahuna_policy_file_plays_kahuna_only(tmp_path: Path) -> None:
    path = tmp_path / "k.npz"
    save_policy(path, random_weights(2, game="kahuna"))
    w = load_policy(path)
    assert w.metadata["game"] == "kahuna" and w.metadata["obs_dim"] == get_game("kahuna").obs_dim
    bot = make_bot(str(path), game="kahuna")
    assert isinstance(bot, PolicyBot) and bot.game == "kahuna" and bot.num_players == (2,)
    result = run_tournament([bot, "heuristic"], num_players=2, num_games=4, game="kahuna")
    assert next(s for s in result.stats if s.name == "k").games == 4
    with pytest.raises(ValueError, match="plays kahuna, not kanaloa"):
        make_bot(str(path))
    with pytest.raises(ValueError, match="one game"):
        PolicyBot([w, random_weights(4)])


# ---- the shipped model -----------------------------------------------------------------


@needs_torch
def test_shipped_model_loads_and_plays_whole_games() -> None:
    paths = pb.shipped_paths()
    assert 4 in paths, "the 4-player model must ship in kanaloa_env/bots/data/"
    for p, path in paths.items():
        w = load_policy(path)
        assert w.num_players == p
        assert os.path.getsize(path) < 4 * 2**20  # weights only: a few MB at most
        scripts = re.findall(r"examples/\w+\.py", w.metadata["training"]["recipe"])
        assert scripts and all(os.path.exists(ROOT / s) for s in scripts)  # its recipe ships
    bot = make_bot("net")
    assert isinstance(bot, PolicyBot) and bot.name == "net" and 4 in bot.num_players
    result = run_tournament([bot, "heuristic", "random", "random"], num_players=4, num_games=8)
    row = next(s for s in result.stats if s.name == "net")
    assert row.games == 8
    assert result.decisions.min() > 50  # whole games, not a stub


@needs_torch
def test_shipped_kahuna_model_loads_and_plays_whole_games() -> None:
    paths = pb.shipped_paths("kahuna")
    assert list(paths) == [2], "the Kahuna model must ship in kanaloa_env/bots/data/"
    w = load_policy(paths[2])
    assert w.metadata["game"] == "kahuna" and w.num_players == 2
    assert os.path.getsize(paths[2]) < 4 * 2**20
    scripts = re.findall(r"examples/\w+\.py", w.metadata["training"]["recipe"])
    assert scripts and all(os.path.exists(ROOT / s) for s in scripts)
    bot = make_bot("net", game="kahuna")
    assert isinstance(bot, PolicyBot) and bot.game == "kahuna" and bot.num_players == (2,)
    result = run_tournament([bot, "heuristic"], num_players=2, num_games=6, game="kahuna")
    assert next(s for s in result.stats if s.name == "net").games == 6
    assert result.decisions.min() > 40  # whole games, not a stub


def test_net_is_a_bot_of_the_games_that_ship_policy_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ "net" (and "guided") are offered for a game exactly when its files are in the data
    folder; a game without them refuses the name, saying why."""
    from kanaloa_env.bots import bot_names

    monkeypatch.setattr(pb, "SHIPPED_DIR", str(tmp_path))
    for game in ("kahuna", "kanaloa"):
        assert not {"net", "guided"} & set(bot_names(game))
    for name in ("net", "guided"):
        with pytest.raises(ValueError, match=r"Kahuna ships no policy files kahuna_\*p.npz in"):
            make_bot(name, game="kahuna")
    g = get_game("kahuna")
    meta = pf.make_metadata(2, [8], "relu", {"recipe": "test"}, game="kahuna")
    rng = np.random.default_rng(0)
    layers = (
        (rng.normal(size=(8, g.obs_dim)).astype(np.float32), np.zeros(8, np.float32)),
        (
            rng.normal(size=(g.num_actions, 8)).astype(np.float32),
            np.zeros(g.num_actions, np.float32),
        ),
    )
    pf.save_policy(tmp_path / "kahuna_2p.npz", PolicyWeights(meta, layers))
    assert {"net", "guided"} <= set(bot_names("kahuna")) and "net" not in bot_names("kanaloa")
    if HAVE_TORCH:
        bot = make_bot("net", game="kahuna")
        assert isinstance(bot, PolicyBot) and bot.game == "kahuna" and bot.num_players == (2,)


# ---- untrusted files ---------------------------------------------------------------------


def tampered_cases(w: PolicyWeights) -> dict[str, tuple[dict[str, np.ndarray], str]]:
    """Archives that break the format, with the words the error must contain."""
    a = file_arrays(w)
    nan = dict(a, hidden_0_weight=a["hidden_0_weight"].copy())
    nan["hidden_0_weight"][3, 7] = np.nan
    inf = dict(a, output_bias=a["output_bias"].copy())
    inf["output_bias"][0] = np.inf
    missing = {k: v for k, v in a.items() if k != "output_bias"}
    no_meta = {k: v for k, v in a.items() if k != "metadata"}
    return {
        "nan": (nan, "NaN or infinite"),
        "inf": (inf, "NaN or infinite"),
        "missing array": (missing, r"missing \['output_bias'\]"),
        "extra array": (dict(a, extra=np.zeros(3, np.float32)), r"unexpected arrays \['extra'\]"),
        "no metadata": (no_meta, "no 'metadata' array"),
        "wrong shape": (
            dict(a, hidden_1_weight=np.zeros((16, 31), np.float32)),
            r"'hidden_1_weight' must have shape \(16, 32\)",
        ),
        "wrong dtype": (
            dict(a, output_weight=a["output_weight"].astype(np.float64)),
            "'output_weight' must be float32",
        ),
        "metadata not bytes": (
            dict(a, metadata=np.zeros(4, np.float32)),
            "'metadata' must be 1-D uint8",
        ),
        "metadata not json": (
            dict(a, metadata=np.frombuffer(b"{not json", np.uint8)),
            "not UTF-8 JSON",
        ),
        "metadata NaN": (
            dict(a, metadata=np.frombuffer(b'{"format": NaN}', np.uint8)),
            "NaN",
        ),
        "metadata list": (dict(a, metadata=np.frombuffer(b"[1, 2]", np.uint8)), "JSON object"),
        "unknown version": (with_metadata(w, version=2), "version 2 is not supported"),
        "other format": (with_metadata(w, format="something"), "format is 'something'"),
        "unknown game": (with_metadata(w, game="chess"), "game 'chess'; the games are"),
        "other game's table": (with_metadata(w, game="kahuna"), r"num_players must be an int in 2"),
        "wrong obs_dim": (with_metadata(w, obs_dim=415), "obs_dim is 415"),
        "wrong num_actions": (with_metadata(w, num_actions=65), "num_actions is 65"),
        "bad table": (with_metadata(w, num_players=6), r"num_players must be an int in 3..5"),
        "bool table": (with_metadata(w, num_players=True), "num_players"),
        "absurd width": (with_metadata(w, hidden_sizes=[10**9, 16]), "hidden_sizes"),
        "too deep": (with_metadata(w, hidden_sizes=[8] * 9), "hidden_sizes"),
        "no layers": (with_metadata(w, hidden_sizes=[]), "hidden_sizes"),
        "activation": (with_metadata(w, activation="gelu"), "activation must be one of"),
        "training": (with_metadata(w, training="a string"), "training must be a JSON object"),
        "extra key": (with_metadata(w, author="me"), r"unexpected \['author'\]"),
    }


@pytest.mark.parametrize("case", list(tampered_cases(random_weights())))
def test_every_malformed_file_is_rejected_with_a_clear_error(tmp_path: Path, case: str) -> None:
    arrays, words = tampered_cases(random_weights())[case]
    path = write_npz(tmp_path / "bad.npz", arrays)
    with pytest.raises(ValueError, match=words) as info:
        load_policy(path)
    assert "bad.npz" in str(info.value)  # the message names the file
    with pytest.raises(ValueError, match=words):
        make_bot(str(path))


def test_missing_truncated_and_non_archive_files_are_rejected(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="no such file"):
        load_policy(tmp_path / "missing.npz")
    good = tmp_path / "good.npz"
    save_policy(good, random_weights())
    data = good.read_bytes()
    for cut in (10, len(data) // 2, len(data) - 30):
        short = tmp_path / f"short{cut}.npz"
        short.write_bytes(data[:cut])
        with pytest.raises(ValueError, match="bad policy file"):
            load_policy(short)
    flipped = bytearray(data)
    flipped[len(data) // 2] ^= 0xFF  # a corrupted weight: the zip CRC no longer matches
    bad = tmp_path / "flipped.npz"
    bad.write_bytes(bytes(flipped))
    with pytest.raises(ValueError, match="bad policy file"):
        load_policy(bad)
    npy = tmp_path / "plain.npz"
    np.save(npy.open("wb"), np.zeros(3, np.float32))  # a bare .npy, not an archive
    with pytest.raises(ValueError, match="not an .npz archive"):
        load_policy(npy)
    (tmp_path / "empty.npz").write_bytes(b"")
    with pytest.raises(ValueError, match="not an .npz archive"):
        load_policy(tmp_path / "empty.npz")


def test_oversized_files_are_rejected_before_reading(tmp_path: Path, monkeypatch) -> None:
    path = tmp_path / "p.npz"
    save_policy(path, random_weights())
    monkeypatch.setattr(pf, "MAX_FILE_BYTES", os.path.getsize(path) - 1)
    with pytest.raises(ValueError, match="bytes; a policy file has at most"):
        load_policy(path)
    # A small archive that inflates past the limit (a zip bomb) is refused from its index.
    monkeypatch.setattr(pf, "MAX_FILE_BYTES", 10_000_000)
    bomb = tmp_path / "bomb.npz"
    with zipfile.ZipFile(bomb, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("metadata.npy", b"\0" * 20_000_000)
    assert os.path.getsize(bomb) < 100_000
    with pytest.raises(ValueError, match="uncompressed"):
        load_policy(bomb)


class Payload:
    """Unpickling this object creates the file `marker`: proof that code ran."""

    def __init__(self, marker: str) -> None:
        self.marker = marker

    def __reduce__(self):
        return (open, (self.marker, "w"))


def test_no_code_runs_on_load(tmp_path: Path) -> None:
    marker = tmp_path / "payload_ran"
    # The payload does run when unpickled: the test would notice if it did on load.
    pickle.loads(pickle.dumps(Payload(str(marker)))).close()
    assert marker.exists()
    marker.unlink()

    member = np.empty(1, dtype=object)
    member[0] = Payload(str(marker))
    arrays = file_arrays(random_weights())
    inside = tmp_path / "inside.npz"  # a valid archive whose member needs pickle
    with open(inside, "wb") as f:
        np.savez(f, **dict(arrays, output_bias=member))
    meta_inside = tmp_path / "meta_inside.npz"
    with open(meta_inside, "wb") as f:
        np.savez(f, **dict(arrays, metadata=member))
    raw = tmp_path / "raw.npz"  # a bare pickle under a policy file's name
    raw.write_bytes(pickle.dumps(Payload(str(marker))))
    buf = io.BytesIO()  # a zip holding a pickle renamed .npy
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("metadata.npy", pickle.dumps(Payload(str(marker))))
    renamed = tmp_path / "renamed.npz"
    renamed.write_bytes(buf.getvalue())

    for path, words in (
        (inside, "pickled data"),
        (meta_inside, "pickled data"),
        (raw, "not an .npz archive"),
        (renamed, "bad policy file"),
    ):
        with pytest.raises(ValueError, match=words):
            load_policy(path)
        with pytest.raises(ValueError):
            make_bot(str(path))
        with pytest.raises(ValueError):
            run_tournament([str(path), "random", "random", "random"], num_games=4)
        assert not marker.exists(), f"loading {path.name} ran its payload"


def test_bad_weights_cannot_be_built_or_saved(tmp_path: Path) -> None:
    w = random_weights()
    layers = list(w.layers)
    layers[0] = (layers[0][0].copy(), layers[0][1].copy())
    layers[0][0][0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        PolicyWeights(metadata=w.metadata, layers=tuple(layers))
    with pytest.raises(ValueError, match="need 3 layers"):
        PolicyWeights(metadata=w.metadata, layers=w.layers[:2])
    with pytest.raises(ValueError, match="training must be plain JSON"):
        make_metadata(4, [8], "tanh", {"x": object()})
    with pytest.raises(TypeError, match="PolicyWeights"):
        save_policy(tmp_path / "x.npz", {"not": "weights"})  # type: ignore[arg-type]
    assert not (tmp_path / "x.npz").exists()


# ---- the exporter ----------------------------------------------------------------------


@needs_torch
@pytest.mark.parametrize("activation", ["tanh", "relu"])
def test_exported_network_plays_exactly_the_sb3_models_actions(
    tmp_path: Path, activation: str
) -> None:
    pytest.importorskip("sb3_contrib")
    import torch
    from sb3_contrib import MaskablePPO

    from kanaloa_env.wrappers.sb3 import SB3VecEnv

    env = SB3VecEnv(4, seed=0)
    act_fn = {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}[activation]
    model = MaskablePPO(
        "MlpPolicy",
        env,
        n_steps=8,
        batch_size=32,
        seed=0,
        device="cpu",
        policy_kwargs={"net_arch": [64, 48], "activation_fn": act_fn},
    )
    with torch.no_grad():  # sharper logits than the initial ones: fewer near-ties
        for p in model.policy.mlp_extractor.policy_net.parameters():
            p.mul_(3.0)
        model.policy.action_net.weight.mul_(30.0)
    path = tmp_path / "exported.npz"
    w = export_maskable_ppo(model, path, num_players=4, training={"recipe": "test"})
    assert w.hidden_sizes == [64, 48] and w.activation == activation
    obs, masks = positions(5000)
    sb3, _ = model.predict(obs, action_masks=masks, deterministic=True)
    ours = PolicyBot.load(path).act(obs, masks, np.random.default_rng(0))
    np.testing.assert_array_equal(ours, sb3)
    assert len(np.unique(ours)) > 10


@needs_torch
def test_a_policy_file_loads_into_a_maskable_ppo_model(tmp_path: Path) -> None:
    """load_into_maskable_ppo is export's inverse: the model then plays as the file, and
    a model of another shape is refused, unchanged."""
    pytest.importorskip("sb3_contrib")
    import torch
    from sb3_contrib import MaskablePPO

    from kanaloa_env.bots.sb3_export import load_into_maskable_ppo
    from kanaloa_env.wrappers.sb3 import SB3VecEnv

    def model(sizes: list[int], seed: int) -> MaskablePPO:
        kwargs = {"net_arch": sizes, "activation_fn": torch.nn.ReLU}
        return MaskablePPO(
            "MlpPolicy",
            SB3VecEnv(4, seed=0),
            n_steps=8,
            batch_size=32,
            seed=seed,
            device="cpu",
            policy_kwargs=kwargs,
        )

    source, target = model([32, 24], 1), model([32, 24], 2)
    with torch.no_grad():
        source.policy.action_net.weight.mul_(30.0)
    weights = export_maskable_ppo(source, tmp_path / "a.npz", num_players=4)
    value_before = [p.clone() for p in target.policy.value_net.parameters()]
    load_into_maskable_ppo(weights, target)
    obs, masks = positions(2000)
    a, _ = source.predict(obs, action_masks=masks, deterministic=True)
    b, _ = target.predict(obs, action_masks=masks, deterministic=True)
    np.testing.assert_array_equal(a, b)
    for p, q in zip(target.policy.value_net.parameters(), value_before, strict=True):
        assert torch.equal(p, q)  # the value network is not the file's
    other = model([32], 3)
    before = [p.clone() for p in other.policy.parameters()]
    with pytest.raises(ValueError, match=r"hidden sizes \[32\] and relu; the file has \[32, 24\]"):
        load_into_maskable_ppo(weights, other)
    assert all(torch.equal(p, q) for p, q in zip(other.policy.parameters(), before, strict=True))


@needs_torch
def test_exporter_refuses_what_it_cannot_express(tmp_path: Path) -> None:
    pytest.importorskip("sb3_contrib")
    import torch
    from sb3_contrib import MaskablePPO

    from kanaloa_env.wrappers.sb3 import SB3VecEnv

    env = SB3VecEnv(4, seed=0)
    model = MaskablePPO(
        "MlpPolicy",
        env,
        n_steps=8,
        batch_size=32,
        device="cpu",
        policy_kwargs={"net_arch": [16], "activation_fn": torch.nn.ELU},
    )
    with pytest.raises(ValueError, match="cannot export a policy_net layer ELU"):
        export_maskable_ppo(model, tmp_path / "x.npz", num_players=4)
    with pytest.raises(ValueError, match="export needs a MaskablePPO model"):
        export_maskable_ppo(object(), tmp_path / "x.npz", num_players=4)
    assert not (tmp_path / "x.npz").exists()


# ---- without torch -----------------------------------------------------------------------


def test_without_torch_the_error_says_to_install_the_train_extra(
    tmp_path: Path, monkeypatch
) -> None:
    path = tmp_path / "p.npz"
    save_policy(path, random_weights())
    monkeypatch.setitem(sys.modules, "torch", None)  # `import torch` now raises ImportError
    assert load_policy(path).num_players == 4  # reading a file needs numpy only
    with pytest.raises(ImportError, match=r"pip install kanaloa_env\[train\]") as info:
        PolicyBot.load(path)
    assert "download.pytorch.org/whl/cpu" in str(info.value)
    for spec in ("net", "guided", str(path)):
        with pytest.raises(ValueError, match=r"pip install kanaloa_env\[train\]"):
            make_bot(spec)


@needs_torch
def test_sequential_layers_are_the_inverse_of_to_torch() -> None:
    import torch

    w = random_weights(4)
    layers = pb.sequential_layers(pb.to_torch(w))
    assert len(layers) == len(w.layers)
    for (a, b), (wa, wb) in zip(layers, w.layers, strict=True):
        assert a.dtype == np.float32 and b.dtype == np.float32
        np.testing.assert_array_equal(a, wa)
        np.testing.assert_array_equal(b, wb)
    # Copies: the file's arrays do not share memory with the network.
    net = pb.to_torch(w)
    first = pb.sequential_layers(net)[0][0]
    with torch.no_grad():
        net[0].weight.add_(1.0)
    np.testing.assert_array_equal(first, w.layers[0][0])
