"""Policy networks as weights-only files that cannot run code when loaded, and the bot playing them.

```python
from kanaloa_env.bots.policy_file import (
    PolicyBot, export_maskable_ppo, load_into_maskable_ppo, load_policy,
)

export_maskable_ppo(model, "policy.npz", num_players=4)   # a trained sb3-contrib MaskablePPO
bot = PolicyBot.load("policy.npz")                       # (b, obs_dim), (b, A) -> (b,) actions
bot = PolicyBot.shipped("kanaloa")                       # the "net" bot: make_bot("net", game=...)
load_into_maskable_ppo(load_policy("policy.npz"), model)  # a file back into a MaskablePPO model
```

**The format** (`FORMAT`, version `VERSION`). An `.npz` archive (numpy's zip of
`.npy` arrays, stored uncompressed) holding exactly:

| array | dtype, shape | meaning |
|---|---|---|
| `metadata` | uint8 (n,), n <= 65536 | UTF-8 JSON object, keys below |
| `hidden_{i}_weight` | float32 (h_i, h_{i-1}) | hidden layer i, h_{-1} = obs_dim; y = act(x W^T + b) |
| `hidden_{i}_bias` | float32 (h_i,) | |
| `output_weight` | float32 (num_actions, h_last) | action logits: x W^T + b |
| `output_bias` | float32 (num_actions,) | |

Metadata keys: `format` ("kanaloa-policy"), `version` (1), `game` (a game of
`kanaloa_env.games.GAMES`: "kanaloa", "kahuna"), `num_players` (a table size of that
game: the table the policy was trained for), `obs_dim` and `num_actions` (the game's:
416 and 66 for Kanaloa, 321 and 153 for Kahuna), `hidden_sizes` (1 to `MAX_LAYERS`
sizes, each 1..`MAX_WIDTH`), `activation` ("tanh" or "relu", after every hidden layer)
and `training` (a JSON object saying how the weights were made: the recipe, its command
and seed).

**Loading an untrusted file.** `load_policy` reads the archive with
`np.load(..., allow_pickle=False)`, so no pickled object is ever unpickled: a
member that would need pickle is refused before anything is built. The file must be a
zip archive of at most `MAX_FILE_BYTES`; the member names must be exactly those of
the table; every array must have its dtype and shape and finite values; the
metadata must have exactly the keys above with allowed values. Anything else raises
`ValueError` naming the problem.

**Playing.** `PolicyBot` rebuilds each network as a torch module (the `train`
extra), masks the logits with the legal actions and plays the arg-max, or samples
the masked softmax with the caller's generator (Gumbel-max). One bot may hold
networks for several table sizes of one game; each decision is routed by the table
size its observation was encoded for (`Game.observed_table_sizes`: Kanaloa's
`table_size`, docs/observation.md), and a table size without a network raises
`ValueError`. `make_bot("net", game=...)` is `PolicyBot.shipped(game)`: the files
`{game}_{P}p.npz` in `kanaloa_env/bots/data/` (docs/models.md).
"""

from __future__ import annotations

import json
import os
import zipfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast

import numpy as np

from ..core.files import atomic_write_path
from ..games import GAMES, get_game
from ..games.protocol import Game

FORMAT = "kanaloa-policy"
VERSION = 1
SUFFIX = ".npz"
ACTIVATIONS = ("tanh", "relu")
MAX_LAYERS = 8
MAX_WIDTH = 4096
MAX_METADATA_BYTES = 65_536
# Eight layers of 4096 would need 512 MB: a file this size is not one we ship or train.
MAX_FILE_BYTES = 64 * 2**20
METADATA_KEYS = (
    "format",
    "version",
    "game",
    "num_players",
    "obs_dim",
    "num_actions",
    "hidden_sizes",
    "activation",
    "training",
)
SHIPPED_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
TRAIN_EXTRA_HINT = (
    "pip install kanaloa_env[train] (for the CPU-only build of torch first: "
    "pip install torch --index-url https://download.pytorch.org/whl/cpu)"
)


@dataclass(frozen=True)
class PolicyWeights:
    """A validated policy network: its metadata and its layers, as numpy arrays.

    Attributes:
        metadata: the JSON metadata (see the module docstring), validated.
        layers: per layer (weight (out, in) float32, bias (out,) float32), the hidden
            layers first, the output (action logits) layer last.
    """

    metadata: dict[str, Any]
    layers: tuple[tuple[np.ndarray, np.ndarray], ...]

    def __post_init__(self) -> None:
        check_metadata(self.metadata)
        names = array_names(self.metadata["hidden_sizes"])
        if len(self.layers) != len(names) // 2:
            raise ValueError(
                f"hidden_sizes {self.metadata['hidden_sizes']} need {len(names) // 2} layers, "
                f"got {len(self.layers)}"
            )
        if not all(isinstance(pair, tuple) and len(pair) == 2 for pair in self.layers):
            raise ValueError("layers must be (weight, bias) pairs")
        _check_arrays(self.metadata, self.arrays())  # the checks of a loaded file

    @property
    def num_players(self) -> int:
        """The table size the network was trained for."""
        return int(self.metadata["num_players"])

    @property
    def hidden_sizes(self) -> list[int]:
        """The hidden layers' sizes, from the metadata."""
        return list(self.metadata["hidden_sizes"])

    @property
    def activation(self) -> str:
        """The hidden layers' activation function, from the metadata."""
        return str(self.metadata["activation"])

    def arrays(self) -> dict[str, np.ndarray]:
        """The arrays of the file, by name (without `metadata`)."""
        names = array_names(self.metadata["hidden_sizes"])
        flat = [a for pair in self.layers for a in pair]
        return dict(zip(names, flat, strict=True))

    def logits(self, observations: np.ndarray) -> np.ndarray:
        """(b, num_actions) float64 logits of (b, obs_dim) `observations` computed with numpy
        (a reference for tests)."""
        x = np.asarray(observations, dtype=np.float64)
        act = np.tanh if self.activation == "tanh" else (lambda v: np.maximum(v, 0.0))
        for w, b in self.layers[:-1]:
            x = act(x @ w.T.astype(np.float64) + b)
        w, b = self.layers[-1]
        return x @ w.T.astype(np.float64) + b


def array_names(hidden_sizes: Sequence[int]) -> list[str]:
    """The array names of a file whose hidden layers have the sizes `hidden_sizes`, in
    layer order."""
    names = []
    for i in range(len(hidden_sizes)):
        names += [f"hidden_{i}_weight", f"hidden_{i}_bias"]
    return names + ["output_weight", "output_bias"]


def _is_int(v: object) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def check_metadata(meta: object) -> dict[str, Any]:
    """Validate `meta`, policy-file metadata; returns it. Raises ValueError naming the
    first problem."""
    if not isinstance(meta, dict):
        raise ValueError(f"policy metadata must be a JSON object, got {type(meta).__name__}")
    missing = [k for k in METADATA_KEYS if k not in meta]
    extra = sorted(str(k) for k in meta if k not in METADATA_KEYS)
    if missing or extra:
        raise ValueError(
            f"policy metadata keys must be exactly {list(METADATA_KEYS)}: "
            f"missing {missing}, unexpected {extra}"
        )
    if meta["format"] != FORMAT:
        raise ValueError(f"not a policy file: format is {meta['format']!r}, expected {FORMAT!r}")
    if not _is_int(meta["version"]) or meta["version"] != VERSION:
        raise ValueError(
            f"policy file format version {meta['version']!r} is not supported (this "
            f"kanaloa_env reads version {VERSION}); use the kanaloa_env that wrote it"
        )
    if not isinstance(meta["game"], str) or meta["game"] not in GAMES:
        raise ValueError(f"policy file is for game {meta['game']!r}; the games are {sorted(GAMES)}")
    game = get_game(meta["game"])
    n = meta["num_players"]
    if not _is_int(n) or n not in game.player_counts:
        raise ValueError(
            f"num_players must be an int in {game.player_counts_text()} ({game.title}), got {n!r}"
        )
    for key, want in (("obs_dim", game.obs_dim), ("num_actions", game.num_actions)):
        if meta[key] != want or not _is_int(meta[key]):
            raise ValueError(
                f"{key} is {meta[key]!r} but this kanaloa_env's {game.title} observations "
                f"need {want}: the policy was made for another observation or action layout"
            )
    sizes = meta["hidden_sizes"]
    if (
        not isinstance(sizes, list)
        or not 1 <= len(sizes) <= MAX_LAYERS
        or not all(_is_int(h) and 1 <= h <= MAX_WIDTH for h in sizes)
    ):
        raise ValueError(
            f"hidden_sizes must be a list of 1..{MAX_LAYERS} ints in 1..{MAX_WIDTH}, got {sizes!r}"
        )
    if meta["activation"] not in ACTIVATIONS:
        raise ValueError(f"activation must be one of {ACTIVATIONS}, got {meta['activation']!r}")
    if not isinstance(meta["training"], dict):
        raise ValueError(f"training must be a JSON object, got {type(meta['training']).__name__}")
    return meta


def _expected_shapes(meta: Mapping[str, Any]) -> dict[str, tuple[int, ...]]:
    sizes = [int(meta["obs_dim"])] + list(meta["hidden_sizes"]) + [int(meta["num_actions"])]
    shapes: dict[str, tuple[int, ...]] = {}
    names = array_names(meta["hidden_sizes"])
    for k, (fan_in, fan_out) in enumerate(zip(sizes[:-1], sizes[1:], strict=True)):
        shapes[names[2 * k]] = (fan_out, fan_in)
        shapes[names[2 * k + 1]] = (fan_out,)
    return shapes


def _check_arrays(meta: Mapping[str, Any], arrays: Mapping[str, np.ndarray]) -> None:
    """Exactly the arrays the metadata asks for, float32, right shapes, finite values."""
    shapes = _expected_shapes(meta)
    missing = [n for n in shapes if n not in arrays]
    extra = sorted(n for n in arrays if n not in shapes)
    if missing or extra:
        raise ValueError(
            f"policy arrays do not match hidden_sizes {meta['hidden_sizes']}: "
            f"missing {missing}, unexpected {extra}"
        )
    for name, shape in shapes.items():
        a = arrays[name]
        if not isinstance(a, np.ndarray) or a.dtype != np.float32:
            raise ValueError(
                f"array {name!r} must be float32, got {getattr(a, 'dtype', type(a).__name__)}"
            )
        if a.shape != shape:
            raise ValueError(f"array {name!r} must have shape {shape}, got {a.shape}")
        if not np.isfinite(a).all():
            raise ValueError(f"array {name!r} holds NaN or infinite values")


def _metadata_array(meta: Mapping[str, Any]) -> np.ndarray:
    text = json.dumps(meta, sort_keys=True, allow_nan=False)
    data = np.frombuffer(text.encode("utf-8"), dtype=np.uint8)
    if len(data) > MAX_METADATA_BYTES:
        raise ValueError(f"metadata takes {len(data)} bytes; at most {MAX_METADATA_BYTES}")
    return data


def _reject_constant(name: str) -> None:
    raise ValueError(f"metadata holds {name}, which JSON does not allow")


def _parse_metadata(raw: np.ndarray) -> dict[str, Any]:
    if raw.dtype != np.uint8 or raw.ndim != 1:
        raise ValueError(
            f"array 'metadata' must be 1-D uint8 (UTF-8 JSON), got {raw.dtype} {raw.shape}"
        )
    if len(raw) > MAX_METADATA_BYTES:
        raise ValueError(f"metadata takes {len(raw)} bytes; at most {MAX_METADATA_BYTES}")
    try:
        meta = json.loads(raw.tobytes().decode("utf-8"), parse_constant=_reject_constant)
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        raise ValueError(f"metadata is not UTF-8 JSON: {exc}") from None
    return check_metadata(meta)


def load_policy(path: str | os.PathLike[str]) -> PolicyWeights:
    """Read and validate a policy file without running any code from it.

    Args:
        path: an `.npz` policy file (the format of the module docstring).

    Returns:
        The validated `PolicyWeights` (numpy only: torch is not needed to read a file).

    Raises:
        ValueError: the file is missing, too large, not a zip archive, truncated,
            holds pickled data, or its arrays or metadata break the format; the
            message names the file and the problem.
    """
    path = os.fspath(path)
    try:
        return _load(path)
    except ValueError as exc:
        raise ValueError(f"bad policy file {path!r}: {exc}") from None


def _load(path: str) -> PolicyWeights:
    if not os.path.isfile(path):
        raise ValueError("no such file")
    size = os.path.getsize(path)
    if size > MAX_FILE_BYTES:
        raise ValueError(f"{size} bytes; a policy file has at most {MAX_FILE_BYTES}")
    with open(path, "rb") as f:
        head = f.read(4)
    if head != b"PK\x03\x04":
        # np.load would try a bare .npy or a pickle: only zip archives go further.
        raise ValueError("not an .npz archive (a policy file is a zip of .npy arrays)")
    try:
        with zipfile.ZipFile(path) as zf:
            infos = zf.infolist()
        stored = sum(i.file_size for i in infos)
        if stored > MAX_FILE_BYTES or len(infos) > 2 * MAX_LAYERS + 3:
            raise ValueError(
                f"{len(infos)} members of {stored} bytes uncompressed; a policy file has at "
                f"most {2 * MAX_LAYERS + 3} members and {MAX_FILE_BYTES} bytes"
            )
        with np.load(path, allow_pickle=False) as npz:
            names = list(npz.files)
            if "metadata" not in names:
                raise ValueError(f"no 'metadata' array (arrays: {sorted(names)})")
            members = {n: npz[n] for n in names}
            for n, v in members.items():
                # numpy hands a member without the .npy header back as raw bytes.
                if not isinstance(v, np.ndarray):
                    raise ValueError(f"member {n!r} is not a .npy array")
            meta = _parse_metadata(members["metadata"])
            expected = set(_expected_shapes(meta))
            extra = sorted(set(names) - expected - {"metadata"})
            if extra:
                raise ValueError(f"unexpected arrays {extra}")
            arrays = {n: v for n, v in members.items() if n != "metadata"}
    except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, OSError, KeyError) as exc:
        raise ValueError(f"unreadable archive ({type(exc).__name__}: {exc})") from None
    except ValueError as exc:
        # numpy refuses object (pickled) members with allow_pickle=False.
        if "pickle" in str(exc):
            raise ValueError(f"holds pickled data, which policy files never do ({exc})") from None
        raise
    _check_arrays(meta, arrays)
    names = array_names(meta["hidden_sizes"])
    layers = tuple((arrays[names[i]], arrays[names[i + 1]]) for i in range(0, len(names), 2))
    return PolicyWeights(metadata=meta, layers=layers)


def save_policy(path: str | os.PathLike[str], weights: PolicyWeights) -> None:
    """Write `weights` as a policy file at `path`, whole or not at all (validated first)."""
    if not isinstance(weights, PolicyWeights):
        raise TypeError(f"weights must be PolicyWeights, got {type(weights).__name__}")
    arrays = {"metadata": _metadata_array(weights.metadata), **weights.arrays()}
    with atomic_write_path(path) as tmp, open(tmp, "wb") as f:
        # A file object: np.savez would append ".npz" to a path without it.
        np.savez(f, allow_pickle=False, **cast(dict[str, Any], arrays))
        f.flush()
        os.fsync(f.fileno())
        # The temporary file is private (0600); a policy file is meant to be shared.
        os.chmod(tmp, 0o644)


def make_metadata(
    num_players: int,
    hidden_sizes: Sequence[int],
    activation: str,
    training: Mapping[str, Any] | None = None,
    game: str | Game[Any, Any] = "kanaloa",
) -> dict[str, Any]:
    """Metadata for a policy of `game` at tables of `num_players`, with hidden layers of
    `hidden_sizes` and the `activation` function, and `training`, free-form notes of how
    it was trained (validated)."""
    g = get_game(game)
    meta = {
        "format": FORMAT,
        "version": VERSION,
        "game": g.name,
        "num_players": num_players,
        "obs_dim": g.obs_dim,
        "num_actions": g.num_actions,
        # numpy ints (from array shapes) become plain ints; anything else is checked below.
        "hidden_sizes": [int(h) if isinstance(h, np.integer) else h for h in hidden_sizes],
        "activation": activation,
        "training": dict(training or {}),
    }
    try:
        json.dumps(meta["training"], allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"training must be plain JSON data: {exc}") from None
    return check_metadata(meta)


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
    torch = _import_torch()
    policy = getattr(model, "policy", model)
    for attr in ("mlp_extractor", "action_net", "features_extractor", "observation_space"):
        if not hasattr(policy, attr):
            raise ValueError(
                f"export needs a MaskablePPO model or policy, got {type(model).__name__} "
                f"(no {attr})"
            )
    g = get_game(game)
    obs_shape = tuple(getattr(policy.observation_space, "shape", ()) or ())
    n = getattr(policy.action_space, "n", None)
    if obs_shape != (g.obs_dim,) or n != g.num_actions:
        raise ValueError(
            f"a {g.title} policy takes ({g.obs_dim},) observations and {g.num_actions} "
            f"actions; this one has {obs_shape} and {n}"
        )
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
            layers.append(_linear_arrays(module))
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
    layers.append(_linear_arrays(policy.action_net))
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
    torch = _import_torch()
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


def _linear_arrays(module: Any) -> tuple[np.ndarray, np.ndarray]:
    w = module.weight.detach().cpu().numpy().astype(np.float32, copy=True)
    if module.bias is None:
        b = np.zeros(w.shape[0], dtype=np.float32)
    else:
        b = module.bias.detach().cpu().numpy().astype(np.float32, copy=True)
    return w, b


def sequential_layers(net: Any) -> tuple[tuple[np.ndarray, np.ndarray], ...]:
    """The (weight (out, in), bias (out,)) float32 copies of the `Linear` layers of a torch
    `Sequential` `net` such as `to_torch` builds, in order: the `layers` of a `PolicyWeights`
    for a network a script trained."""
    return tuple(_linear_arrays(m) for m in net if hasattr(m, "weight"))


def _import_torch() -> Any:
    try:
        import torch
    except ImportError as exc:
        raise ImportError(
            f"policy networks (the 'net' bot, .npz policy files) need torch: {TRAIN_EXTRA_HINT}"
        ) from exc
    return torch


def to_torch(weights: PolicyWeights) -> Any:
    """The network of `weights` as a `torch.nn.Sequential` (float32, CPU, eval mode), mapping
    (b, obs_dim) observations to (b, num_actions) logits."""
    torch = _import_torch()
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


class PolicyBot:
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

    uses_state = False

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
        """A bot playing the policy file(s) at `paths`, greedily if `deterministic`, called
        `name` (default: after the first file)."""
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
        """The "net" bot of `game`: every shipped policy file of it (docs/models.md), greedy
        if `deterministic`."""
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
        """(b, num_actions) float32 unmasked logits of (b, obs_dim) `observations`, each row
        from its table size's network."""
        torch = _import_torch()
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

    def act(
        self,
        observations: np.ndarray,
        masks: np.ndarray,
        rng: np.random.Generator,
        **kwargs: object,
    ) -> np.ndarray:
        """(b,) int64 legal actions for (b, obs_dim) `observations` and (b, num_actions) bool
        `masks`: the most likely legal action when deterministic, else one drawn from the
        masked policy with `rng`. `kwargs` are not read.

        Raises:
            ValueError: wrong shapes, a mask row without a legal action, or a table
                size this bot has no network for.
        """
        from .model import _check_batch  # the shape checks every model bot makes

        obs, m = _check_batch(observations, masks, self._game.obs_dim, self._game.num_actions)
        if len(m) == 0:
            return np.zeros(0, dtype=np.int64)
        scores = self.logits(obs)
        if not self.deterministic:
            # Gumbel-max: the arg-max of logits + Gumbel noise samples the softmax.
            u = rng.random(scores.shape, dtype=np.float32)
            scores -= np.log(-np.log(np.clip(u, 1e-12, 1.0 - 1e-7)))
        scores[~m] = -np.inf
        return np.argmax(scores, axis=1).astype(np.int64)

    def __repr__(self) -> str:
        return (
            f"PolicyBot({self.name!r}, game={self.game!r}, players={list(self.weights)}, "
            f"deterministic={self.deterministic})"
        )
