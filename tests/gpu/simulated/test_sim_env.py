"""`GpuVectorEnv` against a reference written on the CPU engine, game by game: the same
learner actions and the same opponents give the same observations, rewards, ends and
episode records, and finished games restart as the slot's next game of the stream. With
a mixture of opponents, each slot plays as the reference with that slot's member."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from kanaloa_env.bots import make_bot
from kanaloa_env.bots.call import bot_actions
from kanaloa_env.core.rng import game_keys, mix64
from kanaloa_env.games import get_game
from kanaloa_env.wrappers.gpu_vector import GpuVectorEnv

torch = pytest.importorskip("torch")
_SALT = np.uint64(0x632BE59BD9B4E019)  # gpu_kernels.DRAW_SALT


def _first_legal(mask: Any) -> Any:
    return mask.to(torch.int64).argmax(1)


class Reference:
    """One env slot played on the CPU engine as `GpuVectorEnv` documents it."""

    def __init__(self, game: Any, cfg: Any, slot: int, n: int, seed: int, opponents: str) -> None:
        self.game, self.cfg, self.n, self.seed, self.opponents = game, cfg, n, seed, opponents
        self.P = game.num_players_of(cfg)
        self.bot = None if opponents in ("first", "random") else make_bot(opponents, game=game)
        self.next_id = slot
        self.start()
        self.acc = 0.0
        self.ret = 0.0
        self.length = 0

    def start(self) -> None:
        gid = self.next_id
        self.next_id += self.n
        self.state = self.game.init_from_keys(self.cfg, game_keys(self.seed, np.array([gid])))
        self.learner = gid % self.P
        self.draws = 0

    def opponent(self) -> int:
        legal = self.state.legal[0]
        if self.opponents == "first":
            return int(legal.argmax())
        if self.bot is not None:  # the CPU bot ("heuristic", "net"), through the public view
            return int(bot_actions(self.bot, self.game, self.state, np.random.default_rng(0))[0])
        h = mix64(self.state.key[:1] ^ mix64(np.array([self.draws], dtype=np.uint64) ^ _SALT))[0]
        self.draws += 1
        k = int(h >> np.uint64(33)) % max(int(legal.sum()), 1)
        return int(np.flatnonzero(legal)[k])

    def advance(self) -> dict[str, float] | None:
        ended = None
        while True:
            s = self.state
            if s.done[0]:
                ended = {
                    "reward": self.acc,
                    "terminated": bool(s.terminated[0]),
                    "truncated": bool(s.truncated[0]),
                    "won": bool(s.winner[0] == self.learner),
                    "episode_return": self.ret + self.acc,
                    "episode_length": self.length,
                }
                self.acc = self.ret = 0.0
                self.length = 0
                self.start()
                continue
            if s.current_player[0] == self.learner:
                return ended
            self.game.step_inplace(s, np.array([self.opponent()]))
            self.acc += float(s.rewards[0, self.learner])

    def step(self, action: int) -> tuple[np.ndarray, float, bool, dict[str, float] | None]:
        self.game.step_inplace(self.state, np.array([action]))
        self.acc += float(self.state.rewards[0, self.learner])
        self.length += 1
        ended = self.advance()
        if ended is None:
            reward = self.acc
            self.ret += self.acc
            self.acc = 0.0
        else:
            reward = ended["reward"]
        obs = self.game.observe(self.state, seat=np.array([self.learner]))[0]
        return obs, reward, ended is not None, ended


@pytest.mark.parametrize(
    ("name", "options", "opponents"),
    [
        ("kanaloa", {"num_players": 3, "max_rounds": 2}, "random"),
        ("kahuna", {"max_turns": 30}, "random"),
        ("kanaloa", {"num_players": 4, "max_rounds": 2}, "first"),
        ("kahuna", {"max_turns": 30}, "first"),
        ("kahuna", {"max_turns": 30}, "heuristic"),
        ("kanaloa", {"num_players": 4, "max_rounds": 2}, "heuristic"),
    ],
)
def test_the_env_plays_what_the_reference_plays(name: str, options: dict, opponents: str) -> None:
    game = get_game(name)
    n, seed = 5, 21
    policy = opponents if opponents != "first" else (lambda obs, mask: _first_legal(mask))
    env = GpuVectorEnv(n, game=name, opponents=policy, seed=seed, **options)
    refs = [Reference(game, env.config, i, n, seed, opponents) for i in range(n)]
    _play_along(env, refs, steps=70)


def _play_along(env: GpuVectorEnv, refs: list[Reference], steps: int) -> None:
    """Step `env` and the slots' references with the same learner actions (alternately the
    first and the second legal one), checking observations, rewards and game ends."""
    game, n = env.game, env.num_envs
    for r in refs:
        assert r.advance() is None
    obs = env.reset()
    want = np.stack([game.observe(r.state, seat=np.array([r.learner]))[0] for r in refs])
    np.testing.assert_array_equal(obs.cpu().numpy(), want)
    np.testing.assert_array_equal(env.learner_seats.cpu().numpy(), [r.learner for r in refs])
    ends = 0
    for t in range(steps):
        mask = env.action_masks().clone()
        actions = (
            _first_legal(mask)
            if t % 2
            else (mask.to(torch.int64).cumsum(1) == 2).to(torch.int64).argmax(1)
        )
        actions = torch.where(
            mask[torch.arange(n, device=mask.device), actions], actions, _first_legal(mask)
        )
        obs, reward, done, info = env.step(actions)
        for i, r in enumerate(refs):
            o, rew, d, ended = r.step(int(actions[i]))
            np.testing.assert_array_equal(obs[i].cpu().numpy(), o, err_msg=f"step {t} game {i}")
            assert float(reward[i]) == pytest.approx(rew, abs=1e-6), (t, i)
            assert bool(done[i]) == d, (t, i)
            if d:
                ends += 1
                for key, value in ended.items():
                    if key == "reward":
                        continue
                    assert float(info[key][i]) == pytest.approx(float(value), abs=1e-5), (key, t, i)
    assert ends >= 2


def test_the_env_checks_its_arguments_and_actions() -> None:
    with pytest.raises(ValueError, match="learner_seat"):
        GpuVectorEnv(2, game="kahuna", learner_seat=2)
    with pytest.raises(ValueError, match="num_envs"):
        GpuVectorEnv(0, game="kahuna")
    env = GpuVectorEnv(2, game="kahuna", learner_seat=1, seed=4)
    with pytest.raises(RuntimeError, match="reset"):
        env.step(torch.zeros(2, dtype=torch.int64))
    env.reset()
    assert env.learner_seats.tolist() == [1, 1]
    bad = (~env.action_masks()).to(torch.int64).argmax(1)
    with pytest.raises(ValueError, match="illegal actions"):
        env.step(bad)
    with pytest.raises(ValueError, match="shape"):
        env.step(torch.zeros(3, dtype=torch.int64))
    liar = GpuVectorEnv(
        2, game="kahuna", seed=4, opponents=lambda o, m: (~m).to(torch.int64).argmax(1)
    )
    with pytest.raises(ValueError, match="opponent policy chose [12] illegal"):
        liar.reset()
        for _ in range(60):
            liar.step(_first_legal(liar.action_masks()))


@pytest.mark.parametrize(
    ("name", "options"),
    [
        ("kahuna", {}),
        ("kanaloa", {"num_players": 3}),
        ("kanaloa", {"num_players": 5, "nil_announcement": True}),
    ],
)
def test_the_heuristic_decides_on_the_device_as_on_the_cpu(name: str, options: dict) -> None:
    import importlib

    from kanaloa_env.core import gpu
    from kanaloa_env.core.gpu_bot import GpuBot

    game = get_game(name)
    assert game.gpu_bot(make_bot("random", game=game)) is None
    device_bot = game.gpu_bot(make_bot("heuristic", game=game))
    assert isinstance(device_bot, GpuBot) and device_bot.game == name
    rng = np.random.default_rng(5)
    cfg = game.make_config(None, options.pop("num_players", None), **options)
    state = game.engine.init(cfg, 16, seed=5)
    checked = 0
    for t in range(400):
        live = ~state.done
        if not live.any():
            break
        cpu = np.zeros(state.batch_size, np.int64)
        cpu[live] = bot_actions(device_bot.bot, game, state, rng, rows=np.flatnonzero(live))
        dev = gpu.cuda_module().to_device(np.full(state.batch_size, -1, np.int64))
        on_device = game.gpu_engine().to_device(state)
        device_bot.actions(on_device, gpu.to_device_array(live), dev)
        got = dev.copy_to_host()
        np.testing.assert_array_equal(got[live], cpu[live], err_msg=f"step {t}")
        assert (got[~live] == -1).all()
        assert on_device.to_host() == state  # (the dolphin decision takes its try back)
        checked += int(live.sum())
        # on with the heuristic in even games and random legal moves in odd ones
        actions = np.array([rng.choice(np.flatnonzero(r)) if r.any() else 0 for r in state.legal])
        actions = np.where(np.arange(state.batch_size) % 2 == 0, cpu, actions)
        game.step_inplace(state, np.where(live, actions, 0))
    assert checked > 400
    module = importlib.import_module(f"kanaloa_env.games.{name}.gpu_heuristic")
    with pytest.raises(TypeError, match="HeuristicBot"):
        module.gpu_heuristic(make_bot("random", game=game))
    other = "kanaloa" if name == "kahuna" else "kahuna"
    with pytest.raises(ValueError, match=f"plays {name}, got a {other} state"):
        other_game = get_game(other)
        device_bot.actions(
            other_game.gpu_engine().init(other_game.make_config(None, None), 2), None, None
        )


def test_a_cpu_bot_plays_the_opponents_through_the_host() -> None:
    env = GpuVectorEnv(3, game="kanaloa", num_players=3, max_rounds=1, opponents="net", seed=2)
    env.reset()
    assert type(env._bot_player).__name__ == "_HostBotPlayer"
    done_any = False
    for _ in range(40):
        obs, reward, done, info = env.step(_first_legal(env.action_masks()))
        done_any |= bool(done.any())
    assert done_any
    assert obs.shape == (3, env.engine.obs_dim)


class _Recorder:
    """A torch policy (the first legal action) that records the shapes it is asked on."""

    def __init__(self) -> None:
        self.shapes: set[tuple[int, ...]] = set()

    def __call__(self, obs: Any, mask: Any) -> Any:
        assert obs.shape[0] == mask.shape[0]
        self.shapes.add(tuple(obs.shape))
        return _first_legal(mask)


@pytest.mark.parametrize(
    ("name", "options", "kinds", "slots"),
    [
        ("kahuna", {"max_turns": 30}, ["first", "heuristic"], [1, 0, 0, 1]),
        ("kanaloa", {"num_players": 3, "max_rounds": 2}, ["heuristic", "first"], None),
        ("kanaloa", {"num_players": 3, "max_rounds": 1}, ["first", "net"], [1, 1, 0]),
    ],
)
def test_a_mixture_plays_each_slot_as_the_reference_with_its_member(
    name: str, options: dict, kinds: list[str], slots: list[int] | None
) -> None:
    game = get_game(name)
    n, seed = len(slots) if slots is not None else 3, 8
    policy = _Recorder()
    members = [policy if kind == "first" else kind for kind in kinds]
    env = GpuVectorEnv(n, game=name, opponents=members, opponent_slots=slots, seed=seed, **options)
    want_slots = np.arange(n) % len(kinds) if slots is None else np.array(slots)
    np.testing.assert_array_equal(env.opponent_slots, want_slots)
    refs = [Reference(game, env.config, i, n, seed, kinds[want_slots[i]]) for i in range(n)]
    _play_along(env, refs, steps=50)
    # asked on the rows of its own slots only
    assert policy.shapes == {(int((want_slots == kinds.index("first")).sum()), env.engine.obs_dim)}
    if "net" in kinds:
        assert [type(p).__name__ for p, _ in env._players] == ["_HostBotPlayer"]


@pytest.mark.parametrize("member", ["first", "heuristic"])
def test_a_mixture_of_one_member_plays_as_that_member_alone(member: str) -> None:
    n, options = 3, {"max_turns": 30}
    alone_policy, mixed_policy = _Recorder(), _Recorder()
    alone = GpuVectorEnv(
        n, game="kahuna", opponents=alone_policy if member == "first" else member, seed=6, **options
    )
    mixed = GpuVectorEnv(
        n,
        game="kahuna",
        opponents=[mixed_policy if member == "first" else member],
        seed=6,
        **options,
    )
    np.testing.assert_array_equal(mixed.opponent_slots, [0, 0, 0])
    assert alone.opponent_slots is None
    np.testing.assert_array_equal(alone.reset().numpy(), mixed.reset().numpy())
    ends = 0
    for t in range(40):
        actions = (
            _first_legal(alone.action_masks())
            if t % 3
            else alone.action_masks().to(torch.int64).cumsum(1).argmax(1)  # the last legal one
        )
        (o1, r1, d1, i1), (o2, r2, d2, i2) = alone.step(actions), mixed.step(actions)
        np.testing.assert_array_equal(o1.numpy(), o2.numpy(), err_msg=f"step {t}")
        np.testing.assert_array_equal(r1.numpy(), r2.numpy())
        np.testing.assert_array_equal(d1.numpy(), d2.numpy())
        for key in i1:
            np.testing.assert_array_equal(i1[key].numpy(), i2[key].numpy(), err_msg=key)
        ends += int(d1.sum())
    assert ends >= 1
    assert alone_policy.shapes == mixed_policy.shapes


def test_a_mixture_checks_its_members_and_slots() -> None:
    def policy(o: Any, m: Any) -> Any:
        return _first_legal(m)

    with pytest.raises(ValueError, match="opponents is an empty list"):
        GpuVectorEnv(2, game="kahuna", opponents=[])
    with pytest.raises(
        ValueError, match=r"opponents\[1\] is \"random\": random opponents play inside"
    ):
        GpuVectorEnv(2, game="kahuna", opponents=[policy, "random"])
    with pytest.raises(TypeError, match=r"opponents\[0\] must be a torch policy .* got list"):
        GpuVectorEnv(2, game="kahuna", opponents=[[policy], "heuristic"])
    with pytest.raises(TypeError, match=r"opponents\[1\]: "):
        GpuVectorEnv(2, game="kahuna", opponents=["heuristic", 5])
    with pytest.raises(ValueError, match=r"opponents\[0\]: .*nonsense"):
        GpuVectorEnv(2, game="kahuna", opponents=("nonsense", policy))
    for slots, error, words in [
        ([0, 1, 0], ValueError, r"opponent_slots must have shape \(2,\)"),
        (np.zeros((2, 1), np.int64), ValueError, r"opponent_slots must have shape \(2,\)"),
        ([0.0, 1.0], TypeError, r"opponent_slots must be \(2,\) integers in 0..1"),
        (np.array([True, False]), TypeError, r"opponent_slots must be \(2,\) integers"),
        ([[0], 1], TypeError, r"opponent_slots must be \(2,\) integers"),
        ([0, 2], ValueError, r"opponent_slots must be in 0..1 .* got 2 at slot 1"),
        (torch.tensor([-1, 0]), ValueError, r"opponent_slots must be in 0..1 .* got -1 at slot 0"),
    ]:
        with pytest.raises(error, match=words):
            GpuVectorEnv(2, game="kahuna", opponents=[policy, "heuristic"], opponent_slots=slots)
    with pytest.raises(ValueError, match="opponent_slots is for a mixture"):
        GpuVectorEnv(2, game="kahuna", opponents="heuristic", opponent_slots=[0, 0])
    env = GpuVectorEnv(
        3, game="kahuna", opponents=[policy, "heuristic"], opponent_slots=torch.tensor([1, 1, 0])
    )
    assert env.opponent_slots.dtype == np.int64 and env.opponent_slots.tolist() == [1, 1, 0]
    with pytest.raises(ValueError, match="read-only"):
        env.opponent_slots[0] = 0
    with pytest.raises(AttributeError):
        env.opponent_slots = np.zeros(3, np.int64)  # type: ignore[misc]
    assert GpuVectorEnv(
        5, game="kahuna", opponents=(policy, "heuristic")
    ).opponent_slots.tolist() == [0, 1, 0, 1, 0]


def test_a_mixture_checks_what_its_policies_answer() -> None:
    def liar(o: Any, m: Any) -> Any:
        return (~m).to(torch.int64).argmax(1)

    honest = _Recorder()
    env = GpuVectorEnv(
        4,
        game="kahuna",
        seed=4,
        opponents=["heuristic", liar, honest],
        opponent_slots=[1, 2, 1, 0],
    )
    # the liar alone is named, with all the illegal actions of the round
    with pytest.raises(
        ValueError, match=r"policies chose ([12]) illegal actions? \(opponents\[1\] chose \1\)$"
    ):
        env.reset()
        for _ in range(60):
            env.step(_first_legal(env.action_masks()))
    wrong = GpuVectorEnv(
        3,
        game="kahuna",
        seed=4,
        opponents=[lambda o, m: _first_legal(torch.ones(3, 2)), "heuristic"],
        opponent_slots=[0, 1, 0],
    )
    with pytest.raises(ValueError, match=r"opponents\[0\] must return \(2,\) integer actions"):
        wrong.reset()
        for _ in range(60):
            wrong.step(_first_legal(wrong.action_masks()))
