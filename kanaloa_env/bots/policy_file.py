"""The policy file: a policy network as a weights-only file that cannot run code when loaded.

```python
from kanaloa_env.bots.policy_file import load_policy, make_metadata, save_policy, PolicyWeights

weights = load_policy("policy.npz")          # validated; numpy only, nothing unpickled
save_policy("copy.npz", weights)             # written whole or not at all
```

`kanaloa_env.bots.policy_bot.PolicyBot` plays such files and
`kanaloa_env.bots.sb3_export` converts them to and from sb3-contrib `MaskablePPO` models.

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


def read_array_archive(
    path: str, max_bytes: int, max_members: int, what: str
) -> dict[str, np.ndarray]:
    """The arrays of an untrusted `.npz` archive at `path`, read without running any code
    from it: the file must exist, hold at most `max_bytes` (on disk and uncompressed) in
    at most `max_members` members, be a zip archive (not a bare `.npy` or a pickle) and
    need no pickle to load; every member must be an `.npy` array. `what` names the kind
    of file in the messages ("policy", "campaign"). `ValueError` otherwise."""
    if not os.path.isfile(path):
        raise ValueError("no such file")
    size = os.path.getsize(path)
    if size > max_bytes:
        raise ValueError(f"{size} bytes; a {what} file has at most {max_bytes}")
    with open(path, "rb") as f:
        head = f.read(4)
    if head != b"PK\x03\x04":
        # np.load would try a bare .npy or a pickle: only zip archives go further.
        raise ValueError(f"not an .npz archive (a {what} file is a zip of .npy arrays)")
    try:
        with zipfile.ZipFile(path) as zf:
            infos = zf.infolist()
        stored = sum(i.file_size for i in infos)
        if stored > max_bytes or len(infos) > max_members:
            raise ValueError(
                f"{len(infos)} members of {stored} bytes uncompressed; a {what} file has at "
                f"most {max_members} members and {max_bytes} bytes"
            )
        with np.load(path, allow_pickle=False) as npz:
            members = {n: npz[n] for n in npz.files}
    except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, OSError, KeyError) as exc:
        raise ValueError(f"unreadable archive ({type(exc).__name__}: {exc})") from None
    except ValueError as exc:
        # numpy refuses object (pickled) members with allow_pickle=False.
        if "pickle" in str(exc):
            raise ValueError(f"holds pickled data, which {what} files never do ({exc})") from None
        raise
    for n, v in members.items():
        # numpy hands a member without the .npy header back as raw bytes.
        if not isinstance(v, np.ndarray):
            raise ValueError(f"member {n!r} is not a .npy array")
    return members


def _load(path: str) -> PolicyWeights:
    members = read_array_archive(path, MAX_FILE_BYTES, 2 * MAX_LAYERS + 3, "policy")
    names = list(members)
    if "metadata" not in names:
        raise ValueError(f"no 'metadata' array (arrays: {sorted(names)})")
    meta = _parse_metadata(members["metadata"])
    extra = sorted(set(names) - set(_expected_shapes(meta)) - {"metadata"})
    if extra:
        raise ValueError(f"unexpected arrays {extra}")
    arrays = {n: v for n, v in members.items() if n != "metadata"}
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
