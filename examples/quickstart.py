"""Quickstart for Kanaloa and Kahuna: the cells of `examples/quickstart.ipynb` as a script.

```
python examples/quickstart.py
```

This file is the source of the notebook: edit it, then run
`python examples/sync_notebook.py --execute` to regenerate `quickstart.ipynb` and store
its outputs (`tests/examples/test_notebook.py` checks that both agree and that both run).
Cells start with `# %%`; markdown cells with `# %% [markdown]`. It writes nothing
outside a temporary folder.
"""

# %% [markdown]
# # kanaloa_env quickstart
#
# **Kanaloa** is a trick-taking game with a boat race: whoever wins a trick sails their
# boat to the next free field of a ring of ocean cards, trump is the colour under the
# leading boat, and the first boat to lap the last one wins. **Kahuna** is a 2-player
# board game of bridges between twelve islands. `kanaloa_env` has a batched compiled rules
# engine for each, with PettingZoo, Gymnasium and stable-baselines3 faces.
#
# This notebook creates the PettingZoo environment, looks at an observation, draws the
# table, plays a game between bots, replays its record, steps the native vector env with
# its masks, trains MaskablePPO for a few seconds, runs a short tournament, and then
# does the same for Kahuna.

# %%
import tempfile
from pathlib import Path

import numpy as np
from PIL import Image
from sb3_contrib import MaskablePPO

import kanaloa_env
from kanaloa_env.arena import run_tournament
from kanaloa_env.bots import make_bot, sample_legal
from kanaloa_env.core.kanaloa import decode
from kanaloa_env.core.kanaloa.constants import action_name
from kanaloa_env.evaluation import evaluate
from kanaloa_env.records import Recorder, bot_action, describe_step, load_record, replay
from kanaloa_env.wrappers.sb3 import SB3VecEnv  # SB3 and MaskablePPO: the train extra

# %% [markdown]
# ## 1. Create the environment
#
# `kanaloa_env.env()` is a PettingZoo AEC environment: agents `player_0..player_3`,
# one `Discrete(66)` action space for every decision (play a card, remove an ocean
# card, announce, take a dolphin move) and a mask of the legal actions.

# %%
env = kanaloa_env.env(num_players=4, render_mode="rgb_array")
env.reset(seed=0)
agent = env.agent_selection
print("agents:", env.agents)
print("to act:", agent, "| action space:", env.action_space(agent))
print("observation:", env.observation_space(agent)["observation"].shape)

# %% [markdown]
# ## 2. An observation, decoded into named parts
#
# The observation is a flat float32 vector from the acting player's point of view
# (own hand, public information only). `kanaloa_env.core.kanaloa.decode` turns it back into
# readable parts.

# %%
obs = env.observe(agent)
parts = decode(obs["observation"])
print("hand:       ", parts["hand"])
print("trump:      ", parts["trump"])
print("phase:      ", parts["phase"])
print("trick:      ", parts["trick"])
print("route ahead:", [f["color"] + ("~" if f["dolphin"] else "") for f in parts["route"][:8]])
legal = np.flatnonzero(obs["action_mask"])
print("legal moves:", [action_name(a) for a in legal])

# %% [markdown]
# ## 3. A picture of the table
#
# `render_mode="rgb_array"` returns an `(H, W, 3)` uint8 image: the oval route with its
# coloured fields, dolphins and the start field, the boats, trump, the current trick
# and the hand of the player to act. (`render_mode="ansi"` returns the text table with
# ANSI colour codes, also when printed to a pipe or a file.)

# %%
frame = env.render()
print(frame.shape, frame.dtype)
Image.fromarray(frame).reduce(2)

# %% [markdown]
# ## 4. A game between bots
#
# Bots act on batches of `(observation, mask)`; the heuristic bot also reads the
# public game state. `bot_action` hands a bot what it needs for the env's game.
# Each agent's return is the sum of the rewards `env.last()` hands it (R10: +1 for
# the winner, -1/3 for each other player at 4 players).

# %%
bots = {
    a: make_bot(spec)
    for a, spec in zip(
        env.possible_agents, ["heuristic", "random", "random", "random"], strict=True
    )
}
rng = np.random.default_rng(0)
env.reset(seed=1)
decisions = 0
returns = dict.fromkeys(env.possible_agents, 0.0)
for agent in env.agent_iter():
    observation, reward, terminated, truncated, info = env.last()
    returns[agent] += float(reward)
    action = (
        None if terminated or truncated else bot_action(bots[agent], env.unwrapped.game_state, rng)
    )
    env.step(action)
    decisions += action is not None
final = env.unwrapped.game_state
print(f"{decisions} decisions, {int(final.round[0])} rounds; winner: player_{int(final.winner[0])}")
print("returns:", {a: round(r, 3) for a, r in returns.items()})
Image.fromarray(env.render()).reduce(2)

# %% [markdown]
# ## 5. Record a game and replay it
#
# Every game can be saved as JSON lines (seed + one line per decision) and replayed
# exactly; `python -m kanaloa_env.replay FILE` prints it step by step or renders a GIF.

# %%
recorder = Recorder(env.unwrapped.config, seed=7, meta={"players": ["heuristic"] * 4})
heuristic = make_bot("heuristic")
while not recorder.done:
    recorder.step(bot_action(heuristic, recorder.state, rng))
path = Path(tempfile.mkdtemp()) / "game.jsonl"
recorder.record.save(path)
record = load_record(path)
outcome = record.result
rewards = [round(r, 3) for r in outcome["rewards"]]  # stored as float32 values
print(f"{path.name}: {len(record.decisions)} decisions, winner player {outcome['winner']}")
print("rewards:", rewards)
for r in list(replay(record))[:6]:
    for line in describe_step(r.before, r.decision.action, r.after):
        print(f"step {r.decision.step}: {line}")

# %% [markdown]
# ## 6. The native vector env
#
# For training, `SB3VecEnv` (a stable-baselines3 `VecEnv`; the Gymnasium twin is
# `gymnasium.make_vec("kanaloa_env/Kanaloa-v0", vectorization_mode="vector_entry_point")`)
# steps N games at once in one process: one learner seat per game, the other seats
# played inside `step` by batched bots, finished games restarted at once. The masks
# come from `action_masks()`, one row per game.

# %%
venv = SB3VecEnv(256, num_players=4, opponents="random", seed=0)
obs = venv.reset()
print("observations:", obs.shape, obs.dtype)
wins = games = 0
for _ in range(100):
    masks = venv.action_masks()  # (256, 66) bool
    obs, rewards, dones, infos = venv.step(sample_legal(masks, rng))  # random legal moves
    games += int(dones.sum())
    wins += sum(bool(infos[i]["is_success"]) for i in np.flatnonzero(dones))
print("masks:", masks.shape, masks.dtype, f"| {masks.sum(1).mean():.1f} legal moves per game")
print(f"100 steps of 256 games: {games} games finished, the random learner won {wins / games:.1%}")

# %% [markdown]
# ## 7. A short training run
#
# sb3-contrib's `MaskablePPO` trains on the vector env unchanged (it reads the masks
# through `action_masks()`). A few thousand steps only show the API:
# `python examples/train_maskable_ppo.py` trains 1.8M steps (see the README for its
# results). `kanaloa_env.evaluation.evaluate` gives a win rate with a 95% Wilson interval.

# %%
train_env = SB3VecEnv(64, num_players=4, opponents="random", seed=0)
model = MaskablePPO("MlpPolicy", train_env, n_steps=32, batch_size=512, seed=0, device="cpu")
model.learn(total_timesteps=4096)
print("after", model.num_timesteps, "steps:", evaluate(model, "random", num_games=400, seed=1))

# %% [markdown]
# ## 8. A short tournament
#
# `run_tournament` seats the bots in every seat equally often on shared deals and
# rates them (win rate with a confidence interval, mean rank, openskill rating).
# `"net"` is the shipped trained network (weights only, docs/models.md).

# %%
result = run_tournament(
    ["net", "heuristic", "random", "random"], num_players=4, num_games=400, seed=0
)
print(result.table())

# %% [markdown]
# ## 9. Kahuna
#
# The same interfaces take `game="kahuna"`: two players, `Discrete(153)` (place or
# remove a bridge, discard, end the play, take, draw, skip), a 321-float observation.
# Rules as implemented: docs/kahuna.md. Here the heuristic bot plays a random one,
# and the picture shows the final board.

# %%
kenv = kanaloa_env.env(game="kahuna", render_mode="rgb_array")
kbots = {"player_0": make_bot("heuristic", "kahuna"), "player_1": make_bot("random", "kahuna")}
kenv.reset(seed=0)
kreturns = dict.fromkeys(kenv.possible_agents, 0.0)
for agent in kenv.agent_iter():
    observation, reward, terminated, truncated, info = kenv.last()
    kreturns[agent] += float(reward)
    action = (
        None
        if terminated or truncated
        else bot_action(kbots[agent], kenv.unwrapped.game_state, rng)
    )
    kenv.step(action)
kfinal = kenv.unwrapped.game_state
print(f"{int(kfinal.turn[0])} turns; returns:", {a: round(r, 3) for a, r in kreturns.items()})
Image.fromarray(kenv.render()).reduce(2)

# %%
kresult = run_tournament(["heuristic", "random"], num_games=400, seed=0, game="kahuna")
print(kresult.table())
