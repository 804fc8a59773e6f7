"""The bot playing policy files (`kanaloa_env.bots.policy_file`), and their networks in torch.

```python
from kanaloa_env.bots.policy_bot import PolicyBot, sequential_layers, to_torch
from kanaloa_env.bots.policy_file import load_policy

bot = PolicyBot.load("policy.npz")               # (b, obs_dim), (b, A) -> (b,) actions
bot = PolicyBot.shipped("kanaloa")               # the "net" bot: make_bot("net", game=...)
net = to_torch(load_policy("policy.npz"))        # a torch.nn.Sequential: observations -> logits
layers = sequential_layers(net)                  # its Linear layers back as PolicyWeights layers
```

`PolicyBot` rebuilds each network as a torch module (the `train` extra), masks the
logits with the legal actions and plays the arg-max, or samples the masked softmax
with the caller's generator (Gumbel-max; `model.choose_actions`). One bot may hold
networks for several table sizes of one game; each decision is routed by the table
size its observation was encoded for (`Game.observed_table_sizes`: Kanaloa's
`table_size`, docs/observation.md), and a table size without a network raises
`ValueError`. `make_bot("net", game=...)` is `PolicyBot.shipped(game)`: the files
`{game}_{P}p.npz` in `kanaloa_env/bots/data/` (docs/models.md).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..games import get_game
from ..games.protocol import Game
from .model import NetworkBot
from .policy_file import SUFFIX, PolicyWeights, load_policy

SHIPPED_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
TRAIN_EXTRA_HINT = (
    "pip install kanaloa_env[train] (for the CPU-only build of torch first: "
    "pip install torch --index-url https://download.pytorch.org/whl/cpu)"
)


def import_torch() -> Any:
    """The `torch` module, or an ImportError saying how to install it (the `train` extra)."""
    try:
        import torch
    except ImportError as exc:
        raise ImportError(
            f"policy networks (the 'net' bot, .npz policy files) need torch: {TRAIN_EXTRA_HINT}"
        ) from exc
    return torch


def linear_arrays(module: Any) -> tuple[np.ndarray, np.ndarray]:
    """(weight (out, in), bias (out,)) float32 copies of the torch `Linear` layer `module`
    (zeros for a layer without a bias)."""
    w = module.weight.detach().cpu().numpy().astype(np.float32, copy=True)
    if module.bias is None:
        b = np.zeros(w.shape[0], dtype=np.float32)
    else:
        b = module.bias.detach().cpu().numpy().astype(np.float32, copy=True)
    return w, b


def sequential_layers(net: Any) -> tuple[tuple[np.ndarray, np.ndarray], ...]:
    """The (weight (out, in), bias (out,)) float32 copies of the `Linear` layers of the
    torch `Sequential` `net` (such as `to_torch` builds), in order: the `layers` of a
    `PolicyWeights` for a network a script trained."""
    return tuple(linear_arrays(m) for m in net if hasattr(m, "weight"))


def to_torch(weights: PolicyWeights) -> Any:
    """The network of `weights` as a `torch.nn.Sequential` (float32, CPU, eval mode),
    mapping (b, obs_dim) observations to (b, num_actions) logits."""
    torch = import_torch()
    act = torch.nn.Tanh if weights.activation == "tanh" else torch.nn.ReLU
    modules: list[Any] = []
    for k, (w, b) in enumerate(weights.layers):
        lin = torch.nn.Linear(w.shape[1], w.shape[0])
        with torch.no_grad():
            lin.weight.copy_(torch.from_numpy(w))
            lin.bias.copy_(torch.from_numpy(b))
        modules.append(lin)
        if k < len(weights.layers) - 1:
            modules.append(act())
    net = torch.nn.Sequential(*modules)
    net.eval()
    net.requires_grad_(False)
    return net


def shipped_paths(game: str | Game[Any, Any] = "kanaloa") -> dict[int, str]:
    """The shipped policy files of `game` by table size: `kanaloa_env/bots/data/{game}_{P}p.npz`."""
    g = get_game(game)
    out = {}
    for p in g.player_counts:
        path = os.path.join(SHIPPED_DIR, f"{g.name}_{p}p{SUFFIX}")
        if os.path.isfile(path):
            out[p] = path
    return out


class PolicyBot(NetworkBot):
    """A bot playing policy networks from weights-only files (`load_policy`).

    Args:
        policies: one `PolicyWeights` or several of one game for different table sizes
            (at most one per size); each decision is played by the network for the
            table size its observation was encoded for.
        deterministic: play the most likely legal action (default) or sample the
            masked softmax with the `rng` given to `act`.
        name: the bot's name (default "policy").

    Raises:
        ValueError: no policy, policies of different games, or two for one table size.
        ImportError: torch is not installed (the message says how to install it).

    Attributes:
        game: the name of the game its policies play (callers refuse it at another
            game's table).
    """

    def __init__(
        self,
        policies: PolicyWeights | Sequence[PolicyWeights],
        deterministic: bool = True,
        name: str = "policy",
    ) -> None:
        items = [policies] if isinstance(policies, PolicyWeights) else list(policies)
        if not items or not all(isinstance(p, PolicyWeights) for p in items):
            raise ValueError("PolicyBot needs one or more PolicyWeights (see load_policy)")
        games = sorted({p.metadata["game"] for p in items})
        if len(games) != 1:
            raise ValueError(f"PolicyBot plays one game; these policies are for {games}")
        self.game: str = games[0]
        self._game = get_game(self.game)
        self.obs_dim, self.num_actions = self._game.obs_dim, self._game.num_actions
        by_size: dict[int, PolicyWeights] = {}
        for p in items:
            if p.num_players in by_size:
                raise ValueError(f"two policies for {p.num_players} players")
            by_size[p.num_players] = p
        self.weights = dict(sorted(by_size.items()))
        self.nets = {n: to_torch(p) for n, p in self.weights.items()}
        self.deterministic = bool(deterministic)
        self.name = name

    @classmethod
    def load(
        cls,
        paths: str | os.PathLike[str] | Sequence[str | os.PathLike[str]],
        deterministic: bool = True,
        name: str | None = None,
    ) -> PolicyBot:
        """A bot playing the policy file(s) at `paths`; `deterministic` as for the class,
        `name` by default the first file's name without its suffix."""
        items = [paths] if isinstance(paths, (str, os.PathLike)) else list(paths)
        if not items:
            raise ValueError("PolicyBot.load needs at least one path")
        if name is None:
            base = os.path.basename(os.fspath(items[0]))
            name = base[: -len(SUFFIX)] if base.endswith(SUFFIX) else base
        return cls([load_policy(p) for p in items], deterministic=deterministic, name=name)

    @classmethod
    def shipped(
        cls, game: str | Game[Any, Any] = "kanaloa", deterministic: bool = True
    ) -> PolicyBot:
        """The "net" bot of `game`: every shipped policy file of it (docs/models.md);
        `deterministic` as for the class."""
        g = get_game(game)
        paths = shipped_paths(g)
        if not paths:
            raise ValueError(
                f"no shipped policy files {g.name}_*p{SUFFIX} in {SHIPPED_DIR}: "
                f"{g.title} has no 'net' bot in this install"
            )
        return cls([load_policy(p) for p in paths.values()], deterministic, name="net")

    @property
    def num_players(self) -> tuple[int, ...]:
        """The table sizes this bot has a network for."""
        return tuple(self.weights)

    def logits(self, observations: np.ndarray) -> np.ndarray:
        """(b, num_actions) float32 unmasked logits of (b, obs_dim) `observations`, each
        row from its table size's network; a ValueError for a table size this bot has no
        network for."""
        torch = import_torch()
        obs = np.ascontiguousarray(observations, dtype=np.float32)
        sizes = self._game.observed_table_sizes(obs)
        out = np.empty((len(obs), self._game.num_actions), dtype=np.float32)
        for n in np.unique(sizes).tolist():
            if n not in self.nets:
                raise ValueError(
                    f"bot {self.name!r} has policies for {list(self.nets)} players, not for a "
                    f"table of {n}"
                )
            rows = np.flatnonzero(sizes == n)
            x = obs if len(rows) == len(obs) else obs[rows]
            with torch.no_grad():
                out[rows] = self.nets[n](torch.from_numpy(x)).numpy()
        return out

    def __repr__(self) -> str:
        return (
            f"PolicyBot({self.name!r}, game={self.game!r}, players={list(self.weights)}, "
            f"deterministic={self.deterministic})"
        )
