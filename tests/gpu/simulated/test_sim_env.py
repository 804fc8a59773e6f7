"""`GpuVectorEnv` against a reference written on the CPU engine, game by game: the same
learner actions and the same opponents give the same observations, rewards, ends and
episode records, and finished games restart as the slot's next game of the stream."""

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
        if self.opponents == "heuristic":  # the CPU bot, through the public view
            bot = make_bot("heuristic", game=self.game)
            return int(bot_actions(bot, self.game, self.state, np.random.default_rng(0))[0])
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
    cfg = env.config
    refs = [Reference(game, cfg, i, n, seed, opponents) for i in range(n)]
    for r in refs:
        assert r.advance() is None
    obs = env.reset()
    want = np.stack([game.observe(r.state, seat=np.array([r.learner]))[0] for r in refs])
    np.testing.assert_array_equal(obs.cpu().numpy(), want)
    np.testing.assert_array_equal(env.learner_seats.cpu().numpy(), [r.learner for r in refs])
    ends = 0
    for t in range(70):
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
