"""The campaign file: a GPU training campaign's whole state in one weights-only file that
cannot run code when loaded, and the recipe it follows.

A campaign (`kanaloa_env.training.campaign`) trains one network over many short GPU
windows; between windows everything it needs to go on exactly where it stopped lives in
`data/campaigns/<name>/`: `recipe.json` (what it trains and how, written by hand, never
changed once the campaign has started) and `campaign.npz` (replaced after every stretch
of training).

```python
from kanaloa_env.training.campaign_file import load_campaign, load_recipe, save_campaign

recipe = load_recipe("data/campaigns/kanaloa_4p_scratch/recipe.json")
state = load_campaign("data/campaigns/kanaloa_4p_scratch/campaign.npz", recipe)
save_campaign("copy.npz", state)                # written whole or not at all
```

**The format** (`FORMAT`, version `VERSION`): an `.npz` archive (numpy's zip of `.npy`
arrays, stored uncompressed) holding exactly

| arrays | dtype, shape | meaning |
|---|---|---|
| `recipe`, `progress` | uint8 (n,) | UTF-8 JSON: the `Recipe`, and the counters, curve, league and best evaluation (`PROGRESS_KEYS`) |
| `actor.{k}.weight`, `actor.{k}.bias` | float32 | the policy network (`ppo.make_nets`: Linear layers at k = 0, 2, 4, ...) |
| `critic.{k}.weight`, `critic.{k}.bias` | float32 | the value network |
| `adam.{i}.exp_avg`, `adam.{i}.exp_avg_sq`, `adam.{i}.step` | float32 | Adam's moments and step count of parameter i (the actor's, then the critic's), absent before the first update |
| `best.{k}.weight`, ... | float32 | the actor of the best evaluation, absent before the first |
| `start.{k}.weight`, ... | float32 | the shipped network the campaign started from or plays in its league (recipe `init: "net"` or `opponents: "league"`), copied when it started: a later shipped file changes nothing |
| `league.{j}.{k}.weight`, ... | float32 | the j-th past self of the league (recipe `opponents: "league"`) |

The random state is the recipe's seed and the chunk counter: every chunk of training
draws its games, its samples and its minibatches from streams of its own
(`chunk_seed`), so a campaign stopped after any chunk and resumed from its file trains
the same weights as one that never stopped.

**Loading an untrusted file.** `load_campaign` reads with `np.load(...,
allow_pickle=False)` after checking that the file is a zip archive of at most
`MAX_FILE_BYTES`; the JSON must hold exactly the documented keys with values of their
types and ranges; the member names must be exactly those the recipe's networks and the
progress imply, every array of its dtype and shape and finite. Anything else raises
`ValueError` naming the file and the problem.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..core.files import atomic_write_path

FORMAT = "kanaloa-campaign"
VERSION = 1
MAX_FILE_BYTES = 256 * 2**20
MAX_MEMBERS = 10_000
MAX_JSON_BYTES = 2**20
MAX_CURVE_POINTS = 100_000
MAX_LEAGUE = 16
MAX_LAYERS = 8
MAX_WIDTH = 4096
INITS = ("scratch", "net")
OPPONENTS = ("heuristic", "league")
LEAGUE_MEMBERS = ("heuristic", "net", "self")
PROGRESS_KEYS = (
    "format",
    "version",
    "decisions",
    "updates",
    "chunks",
    "device_seconds",
    "windows",
    "best",
    "league",
    "curve",
    "init_sha256",
)
CURVE_KEYS = ("decisions", "device_minutes", "win_rate", "games", "window", "device")


@dataclass(frozen=True)
class Recipe:
    """What a campaign trains and how: PPO on the GPU vector env
    (`kanaloa_env.wrappers.gpu_vector.GpuVectorEnv`), in chunks of `chunk_updates`
    updates, each on fresh games.

    Attributes:
        game: a game with a GPU engine ("kanaloa", "kahuna").
        num_players: the table size.
        hidden: the networks' hidden layer sizes (ReLU MLPs, `ppo.make_nets`).
        init: "scratch" (torch's initialisation, seeded by `seed`) or "net" (the actor
            starts as the game's shipped policy file for the table, which must have
            the same layers; the critic starts from scratch).
        opponents: "heuristic" (every other seat the game's heuristic, on the device) or
            "league" (each game's other seats one member of the league: the heuristic,
            the shipped network, the learner as it was at the chunk's start, or one of
            its past selves, in the shares of `league_mix`).
        num_envs: games played at once.
        rollout_steps: steps of every game in one rollout (one update).
        chunk_updates: updates a chunk; a chunk starts fresh games and is the unit a
            campaign stops and resumes at.
        minibatch, epochs, lr, clip, ent_coef, vf_coef, target_kl, gamma, gae_lambda:
            the PPO update's (`ppo.ppo_update`) and advantages' settings; `lr` is
            constant (a campaign has no planned end).
        critic_warmup: learner decisions at the start that train only the critic.
        eval_games: games of each evaluation against the heuristic (greedy play, the
            first game of each slot of a stream of its own, seats rotating).
        league_every: chunks between two snapshots of the learner joining the league.
        league_size: past selves kept (the oldest leaves first).
        league_mix: the shares of the league's members by kind: "heuristic", "net"
            and "self" (split evenly between the learner's copy and its past selves).
        seed: the campaign's seed (0..2**32-1).
    """

    game: str = "kanaloa"
    num_players: int = 4
    hidden: tuple[int, ...] = (512, 256)
    init: str = "scratch"
    opponents: str = "heuristic"
    num_envs: int = 8192
    rollout_steps: int = 16
    chunk_updates: int = 16
    minibatch: int = 16384
    epochs: int = 4
    lr: float = 3e-4
    clip: float = 0.2
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    target_kl: float = 0.03
    gamma: float = 0.995
    gae_lambda: float = 0.95
    critic_warmup: int = 0
    eval_games: int = 4096
    league_every: int = 8
    league_size: int = 4
    league_mix: dict[str, float] = field(
        default_factory=lambda: {"heuristic": 0.25, "net": 0.25, "self": 0.5}
    )
    seed: int = 0

    def __post_init__(self) -> None:
        check_recipe(self)

    def to_json(self) -> str:
        """The recipe as a JSON object, keys in the order of the fields."""
        d = dataclasses.asdict(self)
        d["hidden"] = list(self.hidden)
        return json.dumps(d, indent=2) + "\n"

    @classmethod
    def from_json(cls, text: str | bytes) -> Recipe:
        """A recipe from JSON text; `ValueError` naming a missing, unknown or bad field."""
        raw = _parse_json(text, "recipe")
        if not isinstance(raw, dict):
            raise ValueError(f"a recipe is a JSON object, got {type(raw).__name__}")
        names = [f.name for f in dataclasses.fields(cls)]
        unknown = sorted(set(raw) - set(names))
        if unknown:
            raise ValueError(f"unknown recipe fields {unknown}; the fields are {names}")
        if "hidden" in raw and isinstance(raw["hidden"], list):
            raw["hidden"] = tuple(raw["hidden"])
        try:
            return cls(**raw)
        except TypeError as exc:
            raise ValueError(f"bad recipe: {exc}") from None


def _is_int(v: object) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_number(v: object) -> bool:
    return (isinstance(v, (int, float)) and not isinstance(v, bool)) and math.isfinite(v)


def check_recipe(r: Recipe) -> None:
    """Raise `ValueError` naming the first field of the recipe `r` out of its range."""
    from ..games import GAMES, get_game

    if r.game not in GAMES:
        raise ValueError(f"recipe game must be one of {sorted(GAMES)}, got {r.game!r}")
    game = get_game(r.game)
    if not game.provides("gpu_engine"):
        raise ValueError(f"recipe game {r.game!r} has no GPU engine")
    if not _is_int(r.num_players) or r.num_players not in game.player_counts:
        raise ValueError(
            f"recipe num_players: {game.title} is played by {game.player_counts_text()}, "
            f"got {r.num_players!r}"
        )
    if (
        not isinstance(r.hidden, tuple)
        or not 1 <= len(r.hidden) <= MAX_LAYERS
        or not all(_is_int(h) and 1 <= h <= MAX_WIDTH for h in r.hidden)
    ):
        raise ValueError(
            f"recipe hidden must be 1..{MAX_LAYERS} layer sizes of 1..{MAX_WIDTH}, got {r.hidden!r}"
        )
    if r.init not in INITS:
        raise ValueError(f"recipe init must be one of {list(INITS)}, got {r.init!r}")
    if r.opponents not in OPPONENTS:
        raise ValueError(f"recipe opponents must be one of {list(OPPONENTS)}, got {r.opponents!r}")
    positive = ("num_envs", "rollout_steps", "chunk_updates", "minibatch", "epochs")
    for name in (*positive, "eval_games", "league_every", "league_size"):
        v = getattr(r, name)
        if not _is_int(v) or v < 1:
            raise ValueError(f"recipe {name} must be an integer of at least 1, got {v!r}")
    if r.league_size > MAX_LEAGUE:
        raise ValueError(f"recipe league_size must be at most {MAX_LEAGUE}, got {r.league_size}")
    if not _is_int(r.critic_warmup) or r.critic_warmup < 0:
        raise ValueError(f"recipe critic_warmup must be an integer >= 0, got {r.critic_warmup!r}")
    if not _is_int(r.seed) or not 0 <= r.seed < 2**32:
        raise ValueError(f"recipe seed must be an integer in 0..2**32-1, got {r.seed!r}")
    for name in ("lr", "clip", "target_kl"):
        v = getattr(r, name)
        if not _is_number(v) or v <= 0:
            raise ValueError(f"recipe {name} must be a number above 0, got {v!r}")
    for name in ("ent_coef", "vf_coef"):
        v = getattr(r, name)
        if not _is_number(v) or v < 0:
            raise ValueError(f"recipe {name} must be a number >= 0, got {v!r}")
    if not _is_number(r.gamma) or not 0 < r.gamma <= 1:
        raise ValueError(f"recipe gamma must be in (0, 1], got {r.gamma!r}")
    if not _is_number(r.gae_lambda) or not 0 <= r.gae_lambda <= 1:
        raise ValueError(f"recipe gae_lambda must be in [0, 1], got {r.gae_lambda!r}")
    mix = r.league_mix
    if (
        not isinstance(mix, dict)
        or set(mix) != set(LEAGUE_MEMBERS)
        or not all(_is_number(w) and w >= 0 for w in mix.values())
        or not sum(mix.values()) > 0
    ):
        raise ValueError(
            f"recipe league_mix must give each of {list(LEAGUE_MEMBERS)} a share >= 0, "
            f"not all 0, got {mix!r}"
        )


def load_recipe(path: str | os.PathLike[str]) -> Recipe:
    """The `Recipe` of a campaign's `recipe.json` at `path`; `ValueError` naming the file
    and the problem."""
    path = os.fspath(path)
    try:
        if not os.path.isfile(path):
            raise ValueError("no such file")
        if os.path.getsize(path) > MAX_JSON_BYTES:
            raise ValueError(f"larger than {MAX_JSON_BYTES} bytes")
        with open(path, "rb") as f:
            return Recipe.from_json(f.read())
    except ValueError as exc:
        raise ValueError(f"bad recipe file {path!r}: {exc}") from None


def layer_shapes(recipe: Recipe, obs_dim: int, outputs: int) -> dict[str, tuple[int, ...]]:
    """The parameter shapes of one of `ppo.make_nets`'s networks for the recipe, by
    state-dict name ("0.weight", "0.bias", "2.weight", ...): (b, `obs_dim`) inputs to
    (b, `outputs`) outputs."""
    sizes = [obs_dim, *recipe.hidden, outputs]
    shapes: dict[str, tuple[int, ...]] = {}
    for i in range(len(sizes) - 1):
        shapes[f"{2 * i}.weight"] = (sizes[i + 1], sizes[i])
        shapes[f"{2 * i}.bias"] = (sizes[i + 1],)
    return shapes


@dataclass
class CampaignState:
    """A campaign's state as numpy arrays (what `campaign.npz` holds).

    Attributes:
        recipe: the campaign's `Recipe`.
        progress: the JSON counters (`PROGRESS_KEYS`): `decisions`, `updates` and
            `chunks` trained, `device_seconds` of training and evaluation, `windows`
            (training calls), `best` (None or {"win_rate", "decisions"}), `league`
            (the learner decisions at which each past self was taken), `curve` (one
            point per evaluation: `CURVE_KEYS`), `init_sha256` (of the shipped policy
            file the campaign copied as `start`, or None: a record of where it came from).
        actor, critic: the networks' parameters by state-dict name.
        adam: per parameter index (the actor's, then the critic's), `exp_avg`,
            `exp_avg_sq` and `step`; empty before the first update.
        best: the best evaluated actor's parameters, or None.
        league: the past selves' actor parameters, oldest first.
        start: the shipped network's parameters as the campaign started (with recipe
            `init` "net" or `opponents` "league"), else None.
    """

    recipe: Recipe
    progress: dict[str, Any]
    actor: dict[str, np.ndarray]
    critic: dict[str, np.ndarray]
    adam: list[dict[str, np.ndarray]] = field(default_factory=list)
    best: dict[str, np.ndarray] | None = None
    league: list[dict[str, np.ndarray]] = field(default_factory=list)
    start: dict[str, np.ndarray] | None = None

    def arrays(self) -> dict[str, np.ndarray]:
        """Every array of the file by member name (`recipe` and `progress` included)."""
        out = {
            "recipe": _json_array(json.loads(self.recipe.to_json())),
            "progress": _json_array(self.progress),
        }
        for prefix, params in (("actor", self.actor), ("critic", self.critic)):
            out.update({f"{prefix}.{k}": v for k, v in params.items()})
        for i, moments in enumerate(self.adam):
            out.update({f"adam.{i}.{k}": v for k, v in moments.items()})
        if self.best is not None:
            out.update({f"best.{k}": v for k, v in self.best.items()})
        for j, past in enumerate(self.league):
            out.update({f"league.{j}.{k}": v for k, v in past.items()})
        if self.start is not None:
            out.update({f"start.{k}": v for k, v in self.start.items()})
        return out


def new_progress(init_sha256: str | None = None) -> dict[str, Any]:
    """The progress of a campaign that has not trained yet (`init_sha256`: that of the
    shipped policy file it starts from or plays, or None)."""
    return {
        "format": FORMAT,
        "version": VERSION,
        "decisions": 0,
        "updates": 0,
        "chunks": 0,
        "device_seconds": 0.0,
        "windows": 0,
        "best": None,
        "league": [],
        "curve": [],
        "init_sha256": init_sha256,
    }


def file_sha256(path: str | os.PathLike[str]) -> str:
    """The hex sha256 of the file at `path`."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def check_progress(p: object) -> dict[str, Any]:
    """The progress JSON `p`, checked: `ValueError` naming a missing, unknown or bad key."""
    if not isinstance(p, dict):
        raise ValueError(f"progress must be a JSON object, got {type(p).__name__}")
    if set(p) != set(PROGRESS_KEYS):
        raise ValueError(
            f"progress keys must be {list(PROGRESS_KEYS)}; missing "
            f"{sorted(set(PROGRESS_KEYS) - set(p))}, unknown {sorted(set(p) - set(PROGRESS_KEYS))}"
        )
    if p["format"] != FORMAT or p["version"] != VERSION:
        raise ValueError(
            f"not a {FORMAT} file of version {VERSION} (format {p['format']!r}, "
            f"version {p['version']!r})"
        )
    for name in ("decisions", "updates", "chunks", "windows"):
        if not _is_int(p[name]) or p[name] < 0:
            raise ValueError(f"progress {name} must be an integer >= 0, got {p[name]!r}")
    if not _is_number(p["device_seconds"]) or p["device_seconds"] < 0:
        raise ValueError(
            f"progress device_seconds must be a number >= 0, got {p['device_seconds']!r}"
        )
    best = p["best"]
    if best is not None and not (
        isinstance(best, dict)
        and set(best) == {"win_rate", "decisions"}
        and _is_number(best["win_rate"])
        and 0 <= best["win_rate"] <= 1
        and _is_int(best["decisions"])
        and 0 <= best["decisions"] <= p["decisions"]
    ):
        raise ValueError(f"progress best must be null or {{win_rate, decisions}}, got {best!r}")
    league = p["league"]
    if (
        not isinstance(league, list)
        or len(league) > MAX_LEAGUE
        or not all(_is_int(d) and 0 <= d <= p["decisions"] for d in league)
    ):
        raise ValueError(
            f"progress league must list at most {MAX_LEAGUE} decision counts, got {league!r}"
        )
    curve = p["curve"]
    if not isinstance(curve, list) or len(curve) > MAX_CURVE_POINTS:
        raise ValueError(f"progress curve must be a list of at most {MAX_CURVE_POINTS} points")
    for point in curve:
        _check_point(point, p["decisions"])
    sha = p["init_sha256"]
    if sha is not None and not (
        isinstance(sha, str) and len(sha) == 64 and all(c in "0123456789abcdef" for c in sha)
    ):
        raise ValueError(f"progress init_sha256 must be null or 64 hex digits, got {sha!r}")
    return p


def _check_point(point: object, decisions: int) -> None:
    if not isinstance(point, dict) or set(point) != set(CURVE_KEYS):
        raise ValueError(
            f"a curve point must have exactly the keys {list(CURVE_KEYS)}, got {point!r}"
        )
    ok = (
        _is_int(point["decisions"])
        and 0 <= point["decisions"] <= decisions
        and _is_number(point["device_minutes"])
        and point["device_minutes"] >= 0
        and _is_number(point["win_rate"])
        and 0 <= point["win_rate"] <= 1
        and _is_int(point["games"])
        and point["games"] >= 1
        and _is_int(point["window"])
        and point["window"] >= 1
        and isinstance(point["device"], str)
        and len(point["device"]) <= 200
    )
    if not ok:
        raise ValueError(f"bad curve point {point!r}")


def _parse_json(raw: str | bytes, what: str) -> Any:
    def reject(name: str) -> None:
        raise ValueError(f"{what}: {name} is not a JSON number")

    try:
        text = raw.decode("utf-8") if isinstance(raw, bytes) else raw
        return json.loads(text, parse_constant=reject)
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        raise ValueError(f"{what} is not UTF-8 JSON: {exc}") from None


def _json_array(value: Any) -> np.ndarray:
    return np.frombuffer(json.dumps(value, allow_nan=False).encode("utf-8"), dtype=np.uint8)


def _json_member(members: Mapping[str, np.ndarray], name: str) -> Any:
    raw = members.get(name)
    if raw is None:
        raise ValueError(f"no {name!r} array")
    if raw.dtype != np.uint8 or raw.ndim != 1 or len(raw) > MAX_JSON_BYTES:
        raise ValueError(
            f"array {name!r} must be 1-D uint8 UTF-8 JSON of at most {MAX_JSON_BYTES} bytes, "
            f"got {raw.dtype} {raw.shape}"
        )
    return _parse_json(raw.tobytes(), name)


def expected_shapes(recipe: Recipe, progress: Mapping[str, Any]) -> dict[str, tuple[int, ...]]:
    """Every float32 member of a campaign file by name and shape: what `recipe`'s
    networks and `progress` (an Adam state once `updates` > 0, a best actor once
    `best` is set, one past self per `league` entry) imply."""
    from ..games import get_game

    game = get_game(recipe.game)
    actor = layer_shapes(recipe, game.obs_dim, game.num_actions)
    critic = layer_shapes(recipe, game.obs_dim, 1)
    shapes = {f"actor.{k}": s for k, s in actor.items()}
    shapes.update({f"critic.{k}": s for k, s in critic.items()})
    if progress["updates"] > 0:
        for i, s in enumerate([*actor.values(), *critic.values()]):
            shapes.update({f"adam.{i}.exp_avg": s, f"adam.{i}.exp_avg_sq": s, f"adam.{i}.step": ()})
    if progress["best"] is not None:
        shapes.update({f"best.{k}": s for k, s in actor.items()})
    for j in range(len(progress["league"])):
        shapes.update({f"league.{j}.{k}": s for k, s in actor.items()})
    if needs_start(recipe):
        shapes.update({f"start.{k}": s for k, s in actor.items()})
    return shapes


def needs_start(recipe: Recipe) -> bool:
    """Whether a campaign of `recipe` keeps the shipped network it started from or plays
    (`init` "net" or a league)."""
    return recipe.init == "net" or recipe.opponents == "league"


def save_campaign(path: str | os.PathLike[str], state: CampaignState) -> None:
    """Write `state` as a campaign file at `path`, whole or not at all (checked first)."""
    if not isinstance(state, CampaignState):
        raise TypeError(f"state must be a CampaignState, got {type(state).__name__}")
    check_progress(state.progress)
    arrays = state.arrays()
    _check_arrays(expected_shapes(state.recipe, state.progress), arrays)
    with atomic_write_path(path) as tmp, open(tmp, "wb") as f:
        # A file object: np.savez would append ".npz" to a path without it.
        np.savez(f, allow_pickle=False, **arrays)  # type: ignore[arg-type]
        f.flush()
        os.fsync(f.fileno())
        os.chmod(tmp, 0o644)


def _check_arrays(shapes: Mapping[str, tuple[int, ...]], arrays: Mapping[str, np.ndarray]) -> None:
    names = set(arrays) - {"recipe", "progress"}
    missing, extra = sorted(set(shapes) - names), sorted(names - set(shapes))
    if missing or extra:
        raise ValueError(f"arrays missing {missing[:8]}, unexpected {extra[:8]}")
    for name, shape in shapes.items():
        a = arrays[name]
        if a.dtype != np.float32 or a.shape != shape:
            raise ValueError(f"array {name!r} must be float32 {shape}, got {a.dtype} {a.shape}")
        if not np.isfinite(a).all():
            raise ValueError(f"array {name!r} holds NaN or infinite values")
        if name.endswith("exp_avg_sq") and (a < 0).any():
            raise ValueError(f"array {name!r} holds negative second moments")
        if name.endswith(".step") and not (a >= 0 and float(a) == int(a)):
            raise ValueError(f"array {name!r} must be a whole step count >= 0, got {a}")


def load_campaign(path: str | os.PathLike[str], recipe: Recipe | None = None) -> CampaignState:
    """Read and check a campaign file without running any code from it.

    Args:
        path: a `campaign.npz` (the format of the module docstring).
        recipe: the campaign's recipe (its `recipe.json`); the file's must equal it.
            None: take the file's.

    Returns:
        The checked `CampaignState` (numpy only: torch is not needed to read a file).

    Raises:
        ValueError: the file is missing, too large, not a zip archive, holds pickled
            data, breaks the format, or follows another recipe (the differing fields
            named).
    """
    path = os.fspath(path)
    try:
        state = _load(path)
    except ValueError as exc:
        raise ValueError(f"bad campaign file {path!r}: {exc}") from None
    if recipe is not None and state.recipe != recipe:
        a, b = dataclasses.asdict(state.recipe), dataclasses.asdict(recipe)
        diff = {k: (a[k], b[k]) for k in a if a[k] != b[k]}
        raise ValueError(
            f"campaign file {path!r} follows another recipe (file, recipe.json): {diff}; "
            "a campaign's recipe cannot change: start a new campaign folder instead"
        )
    return state


def _load(path: str) -> CampaignState:
    from ..bots.policy_file import read_array_archive

    members = read_array_archive(path, MAX_FILE_BYTES, MAX_MEMBERS, "campaign")
    recipe_raw = _json_member(members, "recipe")
    if not isinstance(recipe_raw, dict):
        raise ValueError("array 'recipe' must hold a JSON object")
    recipe = Recipe.from_json(json.dumps(recipe_raw))
    progress = check_progress(_json_member(members, "progress"))
    _check_arrays(expected_shapes(recipe, progress), members)
    group = _group(members)
    n_params = len(group["actor"]) + len(group["critic"])
    adam = [
        {k: group["adam"][f"{i}.{k}"] for k in ("exp_avg", "exp_avg_sq", "step")}
        for i in range(n_params if progress["updates"] > 0 else 0)
    ]
    league = [
        {k[len(f"{j}.") :]: v for k, v in group["league"].items() if k.startswith(f"{j}.")}
        for j in range(len(progress["league"]))
    ]
    return CampaignState(
        recipe=recipe,
        progress=progress,
        actor=group["actor"],
        critic=group["critic"],
        adam=adam,
        best=group["best"] or None,
        league=league,
        start=group["start"] or None,
    )


def _group(members: Mapping[str, np.ndarray]) -> dict[str, dict[str, np.ndarray]]:
    out: dict[str, dict[str, np.ndarray]] = {
        k: {} for k in ("actor", "critic", "adam", "best", "league", "start")
    }
    for name, a in members.items():
        head, _, rest = name.partition(".")
        if head in out:
            out[head][rest] = a
    return out
