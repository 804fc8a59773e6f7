"""Kanaloa quickstart: the cells of `examples/quickstart.ipynb` as a script.

```
python examples/quickstart.py
```

This file is the source of the notebook: edit it, then run
`python examples/sync_notebook.py` to regenerate `quickstart.ipynb`
(`tests/test_notebook.py` checks that both agree and that both run).
Cells start with `# %%`; markdown cells with `# %% [markdown]`.
"""

# %% [markdown]
# # Kanaloa quickstart
#
# Kanaloa is a trick-taking game with a boat race: whoever wins a trick sails their
# boat to the next free field of a ring of ocean cards, trump is the colour under the
# leading boat, and the first boat to lap the last one wins. `kanaloa_env` is a
# batched numpy rules engine with PettingZoo, Gymnasium and stable-baselines3 faces.
#
# This notebook creates the PettingZoo environment, looks at an observation, draws the
# table, plays a game between bots, replays its record and runs a short tournament.

# %%
import tempfile
from pathlib import Path

import numpy as np
from PIL import Image

import kanaloa_env
from kanaloa_env.arena import run_tournament
from kanaloa_env.bots import make_bot
from kanaloa_env.core import decode
from kanaloa_env.core.kanaloa.constants import action_name
from kanaloa_env.records import Recorder, bot_action, describe_step, load_record, replay

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
# (own hand, public information only). `kanaloa_env.core.decode` turns it back into
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
# and the hand of the player to act.

# %%
frame = env.render()
print(frame.shape, frame.dtype)
Image.fromarray(frame).reduce(2)

# %% [markdown]
# ## 4. A game between bots
#
# Bots act on batches of `(observation, mask)`; the heuristic bot also reads the
# public game state. `bot_action` hands a bot what it needs for the env's game.

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
for agent in env.agent_iter():
    observation, reward, terminated, truncated, info = env.last()
    action = (
        None if terminated or truncated else bot_action(bots[agent], env.unwrapped.game_state, rng)
    )
    env.step(action)
    decisions += action is not None
final = env.unwrapped.game_state
print(f"{decisions} decisions, {int(final.round[0])} rounds; winner: player_{int(final.winner[0])}")
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
print(f"{path.name}: {len(record.decisions)} decisions, result {record.result}")
for r in list(replay(record))[:6]:
    for line in describe_step(r.before, r.decision.action, r.after):
        print(f"step {r.decision.step}: {line}")

# %% [markdown]
# ## 6. A short tournament
#
# `run_tournament` seats the bots in every seat equally often on shared deals and
# rates them (win rate with a confidence interval, mean rank, openskill rating).

# %%
result = run_tournament(
    ["heuristic", "random", "random", "random"], num_players=4, num_games=40, seed=0
)
print(result.table())
