"""Policy files to and from sb3-contrib `MaskablePPO` models (the `train` extra).

```python
from kanaloa_env.bots.policy_file import load_policy
from kanaloa_env.bots.sb3_export import export_maskable_ppo, load_into_maskable_ppo

export_maskable_ppo(model, "policy.npz", num_players=4)   # a trained MaskablePPO
load_into_maskable_ppo(load_policy("policy.npz"), model)  # a file back into a model
```

The exported network is the policy's `mlp_extractor.policy_net` (Linear layers and one
activation) then its `action_net`; the value network is not part of a policy file.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

import numpy as np

from ..games import get_game
from ..games.protocol import Game
from .model import check_policy_spaces
from .policy_bot import import_torch, linear_arrays
from .policy_file import PolicyWeights, make_metadata, save_policy


def export_maskable_ppo(
    model: Any,
    path: str | os.PathLike[str] | None,
    num_players: int,
    training: Mapping[str, Any] | None = None,
    game: str | Game[Any, Any] = "kanaloa",
) -> PolicyWeights:
    """Export the policy network of an sb3-contrib `MaskablePPO` model as a policy file.

    The network is `mlp_extractor.policy_net` (Linear and activation layers) then
    `action_net`; the value network is not exported (a bot does not need it).

    Args:
        model: a `MaskablePPO` model or its `MaskableActorCriticPolicy`, with the
            game's observations and actions and the default flatten features extractor.
        path: where to write the `.npz` (atomically), or None to only convert.
        num_players: the table size it was trained for (Kanaloa 3..5, Kahuna 2).
        training: how it was trained (recipe, command, seed, ...), plain JSON data.
        game: the game it plays (default Kanaloa).

    Returns:
        The exported `PolicyWeights`.

    Raises:
        ValueError: the policy is not an MLP of Linear layers with one activation
            (tanh or ReLU), or its spaces are not the game's.
        ImportError: torch is not installed (the `train` extra).
    """
    torch = import_torch()
    policy = getattr(model, "policy", model)
    for attr in ("mlp_extractor", "action_net", "features_extractor", "observation_space"):
        if not hasattr(policy, attr):
            raise ValueError(
                f"export needs a MaskablePPO model or policy, got {type(model).__name__} "
                f"(no {attr})"
            )
    g = get_game(game)
    check_policy_spaces(policy, g)
    from stable_baselines3.common.torch_layers import FlattenExtractor

    if type(policy.features_extractor) is not FlattenExtractor:
        raise ValueError(
            "export supports the default FlattenExtractor only, got "
            f"{type(policy.features_extractor).__name__}"
        )
    kinds = {torch.nn.Tanh: "tanh", torch.nn.ReLU: "relu"}
    layers: list[tuple[np.ndarray, np.ndarray]] = []
    activations = set()
    for module in policy.mlp_extractor.policy_net:
        if isinstance(module, torch.nn.Linear):
            layers.append(linear_arrays(module))
        elif type(module) in kinds:
            activations.add(kinds[type(module)])
        else:
            raise ValueError(f"cannot export a policy_net layer {type(module).__name__}")
    if not isinstance(policy.action_net, torch.nn.Linear):
        raise ValueError(f"action_net must be Linear, got {type(policy.action_net).__name__}")
    if len(activations) != 1 or not layers:
        raise ValueError(
            f"export needs hidden layers with one activation (tanh or ReLU), got {sorted(activations)}"
        )
    layers.append(linear_arrays(policy.action_net))
    meta = make_metadata(
        num_players, [w.shape[0] for w, _ in layers[:-1]], activations.pop(), training, g
    )
    weights = PolicyWeights(metadata=meta, layers=tuple(layers))
    if path is not None:
        save_policy(path, weights)
    return weights


def load_into_maskable_ppo(weights: PolicyWeights, model: Any) -> None:
    """Copy a policy file's network into a `MaskablePPO` model's policy network, in place:
    the inverse of `export_maskable_ppo` (the value network is left as it is).

    The model must have the same hidden layer sizes and activation in its policy network
    (`policy_kwargs={"net_arch": weights.hidden_sizes, "activation_fn": torch.nn.ReLU}`
    for a ReLU file) and the game's spaces.

    Raises:
        ValueError: the model's policy network has other layers, sizes or activation,
            or other spaces than the file's game.
    """
    torch = import_torch()
    exported = export_maskable_ppo(
        model, None, weights.num_players, game=weights.metadata["game"]
    )  # validates the model's structure and spaces
    if exported.hidden_sizes != weights.hidden_sizes or exported.activation != weights.activation:
        raise ValueError(
            f"the model's policy network has hidden sizes {exported.hidden_sizes} and "
            f"{exported.activation}; the file has {weights.hidden_sizes} and {weights.activation}"
        )
    policy = getattr(model, "policy", model)
    linear = [m for m in policy.mlp_extractor.policy_net if isinstance(m, torch.nn.Linear)]
    linear.append(policy.action_net)
    with torch.no_grad():
        for module, (w, b) in zip(linear, weights.layers, strict=True):
            module.weight.copy_(torch.from_numpy(w))
            module.bias.copy_(torch.from_numpy(b))
