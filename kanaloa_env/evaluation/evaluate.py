"""Batched evaluation: a policy's win rate against bots, with a Wilson 95% interval.

```python
from kanaloa_env.evaluation import evaluate
res = evaluate(model, opponents="random", num_games=2000, num_players=4, seed=1)
res = evaluate(model, opponents="heuristic", game="kahuna", num_games=2000)
print(res)   # win rate 47.3% (95% CI 45.1-49.5%) over 2000 games ...
```

All games run side by side in the vector driver: `batch_size` slots, each
counting a fixed number of its games in order (as SB3's `evaluate_policy` splits
episodes), so short games are not over-represented; the learner seat rotates
over the seats.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..bots.call import bot_actions
from ..bots.registry import make_bot
from ..core.batch import check_positive_int
from ..drawing.terminal import plural
from ..games.protocol import Game
from ..wrappers.vector import OpponentSpec, VectorDriver
from .stats import wilson_interval


@dataclass(frozen=True)
class EvalResult:
    """The outcome of `evaluate`.

    Attributes:
        games: games played to the end.
        wins: games the evaluated policy won.
        truncated: games cut short by the rules' limit (Kanaloa `max_rounds`, R9.4;
            nobody won).
        win_rate: wins / games.
        ci_low, ci_high: Wilson 95% interval of the win rate.
        mean_return: mean learner return per game.
        mean_length: mean learner decisions per game.
        chance: 1 / num_players, the win rate of a random seat among equals.
    """

    games: int
    wins: int
    truncated: int
    win_rate: float
    ci_low: float
    ci_high: float
    mean_return: float
    mean_length: float
    chance: float

    def __str__(self) -> str:
        return (
            f"win rate {100 * self.win_rate:.1f}% (95% CI {100 * self.ci_low:.1f}-"
            f"{100 * self.ci_high:.1f}%) over {plural(self.games, 'game')}; "
            f"chance {100 * self.chance:.0f}%, "
            f"mean return {self.mean_return:+.3f}, {self.mean_length:.1f} decisions/game"
        )


def evaluate(
    policy: Any,
    opponents: OpponentSpec | Sequence[OpponentSpec] = "random",
    num_games: int = 1000,
    num_players: int | None = None,
    config: Any = None,
    seed: int = 0,
    batch_size: int | None = None,
    deterministic: bool = True,
    opponent_sampling: str = "seat",
    game: str | Game | None = None,
    **options: Any,
) -> EvalResult:
    """Play `num_games` games of `policy` (one seat) against `opponents`, in batches.

    Args:
        policy: anything `kanaloa_env.bots.make_bot` takes: a bot, a bot name, a
            model path, a callable `act(obs, masks, rng)`, or an SB3 model/policy
            (played greedily unless `deterministic=False`).
        opponents: the other seats (see `VectorDriver`).
        num_games: games to play (>= 1).
        num_players, config, game, **options: the table (see `VectorDriver`).
        seed: seeds the deals, seats and every bot's sampling.
        batch_size: games played at once (default: all, at most 1024). Large
            batches are fastest even though finished slots keep playing uncounted
            games until the slowest slot is done: the cost of a step hardly grows
            with the batch.
        deterministic: for SB3 models, greedy (True) or sampled play.
        opponent_sampling: "seat" or "random" (a pool of opponents).

    Returns:
        An `EvalResult`.
    """
    num_games = check_positive_int(num_games, "num_games")
    batch_size = min(1024, num_games) if batch_size is None else batch_size
    batch_size = check_positive_int(batch_size, "batch_size")
    rng = np.random.default_rng([int(seed), 1])  # the policy's own sampling stream
    n = min(num_games, batch_size)
    # Slot i counts its first quota[i] games (SB3's evaluate_policy split): every game
    # started in a slot is counted whatever its length, so short games are not favoured.
    quota = (num_games + np.arange(n)) // n
    driver = VectorDriver(
        n,
        config,
        game=game,
        num_players=num_players,
        opponents=opponents,
        opponent_sampling=opponent_sampling,
        seed=seed,
        autoreset=True,
        illegal_action="raise",
        **options,
    )
    bot = make_bot(policy, driver.game, deterministic=deterministic)
    done = np.zeros(n, dtype=np.int64)
    wins = truncated = 0
    returns: list[np.ndarray] = []
    lengths: list[np.ndarray] = []
    obs = driver.reset()
    while (done < quota).any():
        # Every game waits for its learner: the players to act are the learners.
        actions = bot_actions(bot, driver.game, driver.live_state, rng, observations=obs)
        r = driver.step(actions)
        obs = r.obs
        keep = done[r.ended] < quota[r.ended]
        done[r.ended] += 1
        wins += int(r.won[keep].sum())
        truncated += int(r.truncated[r.ended][keep].sum())
        returns.append(r.episode_return[keep])
        lengths.append(r.episode_length[keep])
    lo, hi = wilson_interval(wins, num_games)
    return EvalResult(
        games=num_games,
        wins=wins,
        truncated=truncated,
        win_rate=wins / num_games,
        ci_low=lo,
        ci_high=hi,
        mean_return=float(np.concatenate(returns).mean()),
        mean_length=float(np.concatenate(lengths).mean()),
        chance=1.0 / driver.num_players,
    )
