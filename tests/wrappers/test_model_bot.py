"""Bots from MaskablePPO models and callables; batched evaluation with Wilson intervals."""

from __future__ import annotations

import numpy as np
import pytest

from kanaloa_env.bots import RandomBot, sample_legal
from kanaloa_env.bots.model import CallableBot, choose_actions
from kanaloa_env.core.kanaloa import Config, init, observe, step
from kanaloa_env.evaluation import evaluate, wilson_interval
from kanaloa_env.wrappers import VectorDriver


def batch(n: int = 64, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Observations and masks of `n` positions reached by random play."""
    s = init(Config(num_players=4), n, seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(rng.integers(0, 20)):
        s = step(s, sample_legal(np.where(s.done[:, None], True, s.legal), rng))
    keep = ~s.done
    return observe(s)[keep], s.legal[keep]


@pytest.fixture(scope="module")
def model():
    pytest.importorskip("sb3_contrib")
    from sb3_contrib import MaskablePPO

    from kanaloa_env.wrappers.sb3 import SB3VecEnv

    env = SB3VecEnv(4, seed=0)
    return MaskablePPO("MlpPolicy", env, n_steps=8, batch_size=32, seed=0, device="cpu")


def test_model_bot_plays_legal_actions_greedy_and_sampled(model) -> None:
    from kanaloa_env.bots.model import MaskablePPOBot

    obs, masks = batch()
    greedy = MaskablePPOBot(model, deterministic=True)
    a = greedy.act(obs, masks, np.random.default_rng(0))
    assert a.shape == (len(obs),) and a.dtype == np.int64
    assert masks[np.arange(len(a)), a].all()
    logits = greedy.logits(obs)
    logits[~masks] = -np.inf
    np.testing.assert_array_equal(a, logits.argmax(axis=1))
    sampled = MaskablePPOBot(model, deterministic=False)
    s1 = sampled.act(obs, masks, np.random.default_rng(1))
    s2 = sampled.act(obs, masks, np.random.default_rng(1))
    np.testing.assert_array_equal(s1, s2)  # all randomness from the rng
    assert masks[np.arange(len(s1)), s1].all()
    with pytest.raises(ValueError, match="masks"):
        greedy.act(obs, masks[:, :10], np.random.default_rng(0))


def test_model_bot_sampling_follows_the_policy(model) -> None:
    from kanaloa_env.bots.model import MaskablePPOBot

    obs, masks = batch(1, seed=3)
    obs, masks = np.repeat(obs, 4000, axis=0), np.repeat(masks, 4000, axis=0)
    bot = MaskablePPOBot(model, deterministic=False)
    a = bot.act(obs, masks, np.random.default_rng(0))
    logits = bot.logits(obs[:1])[0]
    p = np.exp(logits[masks[0]] - logits[masks[0]].max())
    p /= p.sum()
    freq = np.bincount(a, minlength=66)[masks[0]] / len(a)
    np.testing.assert_allclose(freq, p, atol=0.03)


def test_saved_model_loads_as_a_bot_and_plays_in_the_driver(model, tmp_path) -> None:
    from kanaloa_env.bots import make_bot
    from kanaloa_env.bots.model import MaskablePPOBot

    path = tmp_path / "m.zip"
    model.save(path)
    bot = MaskablePPOBot.load(path)
    assert bot.name == "m.zip"
    obs, masks = batch()
    np.testing.assert_array_equal(
        bot.act(obs, masks, np.random.default_rng(0)),
        MaskablePPOBot(model).act(obs, masks, np.random.default_rng(0)),
    )
    assert isinstance(make_bot(str(path)), MaskablePPOBot)
    d = VectorDriver(16, opponents=bot, seed=0)  # as an opponent
    d.reset()
    for _ in range(20):
        d.step(sample_legal(d.action_masks(), np.random.default_rng(0)))
    res = evaluate(str(path), "random", num_games=20, seed=0)  # as the evaluated player
    assert res.games == 20


def test_frozen_copy_ignores_later_training(model) -> None:
    import torch

    from kanaloa_env.bots.model import MaskablePPOBot

    model.learn(64)  # a policy that has just trained holds autograd tensors
    frozen = MaskablePPOBot.frozen_copy(model)
    obs, _ = batch()
    before = frozen.logits(obs)
    with torch.no_grad():
        for p in model.policy.parameters():
            p.add_(1.0)
    np.testing.assert_array_equal(frozen.logits(obs), before)
    assert not np.allclose(MaskablePPOBot(model).logits(obs), before)


def test_model_bot_rejects_wrong_policies() -> None:
    from kanaloa_env.bots.model import MaskablePPOBot

    with pytest.raises(TypeError):
        MaskablePPOBot(object())
    with pytest.raises(ValueError, match="algo"):
        MaskablePPOBot("x.zip", algo="dqn")


def test_callable_bot_checks_its_output() -> None:
    obs, masks = batch()
    bot = CallableBot(lambda o, m, r: m.argmax(axis=1), name="first")
    assert bot.name == "first"
    np.testing.assert_array_equal(bot.act(obs, masks, np.random.default_rng(0)), masks.argmax(1))
    with pytest.raises(ValueError, match="bad"):
        CallableBot(lambda o, m, r: m.argmax(axis=1)[:1], name="bad").act(obs, masks, None)
    with pytest.raises(ValueError, match="float"):
        CallableBot(lambda o, m, r: np.zeros(len(m))).act(obs, masks, None)
    with pytest.raises(TypeError):
        CallableBot(3)


def _logits_and_masks(seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    logits = rng.normal(0, 2, size=(500, 12)).astype(np.float32)
    masks = rng.random((500, 12)) < 0.4
    masks[np.arange(500), rng.integers(0, 12, 500)] = True  # a legal action in every row
    return logits, masks


def test_choose_actions_greedy_is_the_best_legal_action() -> None:
    logits, masks = _logits_and_masks()
    got = choose_actions(logits, masks)
    assert got.dtype == np.int64 and masks[np.arange(500), got].all()
    best = np.where(masks, logits, logits.min() - 1).argmax(axis=1)
    np.testing.assert_array_equal(got, best)
    assert not np.array_equal(got, logits.argmax(axis=1))  # the mask mattered
    np.testing.assert_array_equal(logits, _logits_and_masks()[0])  # the input is left alone


@pytest.mark.parametrize("noise", ["uniform", "gumbel"])
def test_choose_actions_samples_the_masked_softmax(noise: str) -> None:
    """Each noise samples softmax(logits) over the legal actions: the frequencies of one
    row over many draws are its probabilities (tolerance: 5 standard deviations)."""
    logits = np.array([[1.0, 0.0, 2.0, -1.0, 0.5]], dtype=np.float32)
    masks = np.array([[True, True, True, False, True]])
    rng = np.random.default_rng(1)
    n = 20_000
    counts = np.bincount(
        choose_actions(np.repeat(logits, n, 0), np.repeat(masks, n, 0), rng, noise=noise),
        minlength=5,
    )
    p = np.where(masks[0], np.exp(logits[0]), 0.0)
    p /= p.sum()
    assert counts[3] == 0
    assert np.all(np.abs(counts / n - p) <= 5 * np.sqrt(p * (1 - p) / n) + 1e-12)


def test_choose_actions_keeps_each_noise_s_random_stream() -> None:
    """The two noises are the draws the policy bots ("uniform") and RLlibModuleBot
    ("gumbel") have always made, so seeded play is unchanged."""
    logits, masks = _logits_and_masks(2)
    rng = np.random.default_rng(3)
    u = rng.random(logits.shape, dtype=np.float32)
    scores = logits - np.log(-np.log(np.clip(u, 1e-12, 1.0 - 1e-7)))
    uniform = np.where(masks, scores, -np.inf).argmax(axis=1)
    gumbel = np.where(masks, logits, -np.inf) + rng.gumbel(size=logits.shape).astype(np.float32)
    rng = np.random.default_rng(3)
    np.testing.assert_array_equal(choose_actions(logits, masks, rng), uniform)
    np.testing.assert_array_equal(
        choose_actions(logits, masks, rng, noise="gumbel"), gumbel.argmax(1)
    )


def test_choose_actions_rejects_bad_arguments() -> None:
    logits, masks = _logits_and_masks()
    with pytest.raises(ValueError, match="noise must be one of"):
        choose_actions(logits, masks, np.random.default_rng(0), noise="normal")
    with pytest.raises(ValueError, match=r"shape \(b, A\)"):
        choose_actions(logits[:, :5], masks)
    with pytest.raises(ValueError, match=r"shape \(b, A\)"):
        choose_actions(logits[0], masks[0])


def test_wilson_interval_known_values() -> None:
    lo, hi = wilson_interval(50, 100)
    assert lo == pytest.approx(0.4038, abs=1e-4) and hi == pytest.approx(0.5962, abs=1e-4)
    assert wilson_interval(0, 10)[0] == 0.0 and wilson_interval(10, 10)[1] == 1.0
    assert wilson_interval(0, 0) == (0.0, 1.0)
    with pytest.raises(ValueError):
        wilson_interval(5, 3)


def test_evaluate_counts_exactly_the_requested_games_and_is_seeded() -> None:
    res = evaluate(RandomBot(), "random", num_games=150, num_players=3, seed=4, batch_size=64)
    assert res.games == 150 and 0 <= res.wins <= 150 and res.chance == pytest.approx(1 / 3)
    assert res.ci_low <= res.win_rate <= res.ci_high
    again = evaluate(RandomBot(), "random", num_games=150, num_players=3, seed=4, batch_size=64)
    assert again == res
    assert "win rate" in str(res)


def test_evaluate_finds_a_better_player() -> None:
    """A player that always plays its highest legal card against random bots wins more."""

    def highest(obs: np.ndarray, masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        # Kanaloa first, then Tiki cards by value; other phases take any legal action
        # (the dolphin move when offered).
        score = np.where(masks, 0.0, -np.inf)
        score[:, :48] += (np.arange(48) % 12)[None, :]
        score[:, 48] += 20.0
        score[:, 64] += 1.0  # take the dolphin move
        return np.argmax(score, axis=1)

    strong = evaluate(highest, "random", num_games=600, seed=0)
    assert strong.ci_low > 0.25


def test_the_wrappers_serve_no_name_of_the_layers_above() -> None:
    """`evaluate` is `kanaloa_env.evaluation`'s, which imports the wrappers: the wrappers
    do not hand it out (imports point down, DESIGN.md)."""
    from kanaloa_env import wrappers

    for name in ("evaluate", "EvalResult"):
        with pytest.raises(AttributeError, match=f"no attribute '{name}'"):
            getattr(wrappers, name)
