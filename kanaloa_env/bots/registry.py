"""Build bots from short specs: a name, a saved model path, or a bot object.

```python
from kanaloa_env.bots import make_bot
bot = make_bot("heuristic")
bot = make_bot("ppo")                           # the shipped trained policy (docs/models.md)
bot = make_bot("runs/ppo_bot_4p/policy.npz")    # a weights-only policy file (bots.policy_file)
bot = make_bot("runs/maskable_ppo/model.zip")   # a MaskablePPO model (kanaloa_env.bots.model)
```
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from .base import Bot, RandomBot
from .heuristic import HeuristicBot


def _shipped_policy() -> Any:
    """The "ppo" bot: the shipped policy files, one network per table size they cover."""
    from .policy_file import PolicyBot  # needs torch only when it is asked for

    return PolicyBot.shipped()


#: Bot names `make_bot` understands, with their factories.
BOT_FACTORIES: dict[str, Callable[[], Any]] = {
    "random": RandomBot,
    "heuristic": HeuristicBot,
    "ppo": _shipped_policy,
}
BOT_NAMES: tuple[str, ...] = tuple(BOT_FACTORIES)
MODEL_SUFFIX = ".zip"
POLICY_SUFFIX = ".npz"  # weights-only policy files (kanaloa_env.bots.policy_file)


def is_bot(obj: object) -> bool:
    """Whether `obj` follows the bot protocol: an object (not a class) with a callable `act`."""
    return not isinstance(obj, type) and callable(getattr(obj, "act", None))


def make_bot(spec: str | os.PathLike[str] | Bot) -> Bot:
    """A bot from a spec.

    Args:
        spec: a bot name (`BOT_NAMES`: "random", "heuristic", "ppo": the shipped
            trained policy, for the table sizes it has networks for, see
            docs/models.md); a path to a weights-only policy file `.npz`
            (`kanaloa_env.bots.policy_file.PolicyBot.load`, no code runs on load) or
            to a saved MaskablePPO model `.zip` (loaded with
            `kanaloa_env.bots.model.MaskablePPOBot.load`, which unpickles: only
            files you trust); or an object that already follows the bot protocol
            (returned as is).

    Returns:
        The bot.

    Raises:
        ValueError: an unknown name (the message lists the known names), a model
            file that does not exist, cannot be read or cannot be loaded, or a
            policy bot ("ppo", `.npz`) without torch (the message says to install
            the `train` extra).
        TypeError: `spec` is neither a string, a path nor a bot (a bot class
            rather than an instance included).
    """
    if is_bot(spec):
        return spec  # type: ignore[return-value]
    if isinstance(spec, type) and callable(getattr(spec, "act", None)):
        raise TypeError(
            f"a bot spec must be a bot object, got the class {spec.__name__}: "
            f"pass an instance, {spec.__name__}()"
        )
    if not isinstance(spec, (str, os.PathLike)):
        raise TypeError(
            f"a bot spec must be a name {list(BOT_NAMES)}, a model path or a bot object "
            f"with an act() method, got {type(spec).__name__}"
        )
    text = os.fspath(spec)
    if text in BOT_FACTORIES:
        try:
            return BOT_FACTORIES[text]()
        except ImportError as exc:  # the message says which extra to install
            raise ValueError(f"cannot make bot {text!r}: {exc}") from exc
    if looks_like_path(text):
        return load_model_bot(text)
    raise ValueError(
        f"unknown bot {text!r}: use one of {list(BOT_NAMES)} or the path of a policy "
        f"file ({POLICY_SUFFIX}) or a saved model ({MODEL_SUFFIX})"
    )


def looks_like_path(text: str) -> bool:
    """Whether a spec names a file rather than a bot: a `.zip` or `.npz` suffix, a separator,
    or a file."""
    return (
        text.endswith((MODEL_SUFFIX, POLICY_SUFFIX))
        or os.sep in text
        or "/" in text
        or os.path.isfile(text)
    )


def load_model_bot(path: str) -> Bot:
    """Load a policy file (`.npz`) or a saved MaskablePPO model as a bot, with a clear
    error when that is impossible.

    As with stable-baselines3's `load`, `path` may leave out the `.zip` suffix.
    """
    if path.endswith(POLICY_SUFFIX):
        from .policy_file import PolicyBot

        try:
            return PolicyBot.load(path)
        except ImportError as exc:
            raise ValueError(f"cannot load policy {path!r}: {exc}") from exc
    if not os.path.isfile(path) and os.path.isfile(path + MODEL_SUFFIX):
        path += MODEL_SUFFIX
    if not os.path.isfile(path):
        raise ValueError(f"model file {path!r} does not exist (or is not a file)")
    if not os.access(path, os.R_OK):
        raise ValueError(f"model file {path!r} is not readable")
    try:
        # Imported here: model bots need torch and sb3-contrib, which plain play does not.
        from .model import MaskablePPOBot
    except ImportError as exc:
        raise ValueError(
            f"cannot load model {path!r}: kanaloa_env.bots.model is unavailable ({exc}); "
            "install the 'train' extra (torch, sb3-contrib)"
        ) from exc
    try:
        return MaskablePPOBot.load(path)
    except Exception as exc:  # any loader failure is a bad model file to the user
        raise ValueError(f"cannot load model {path!r}: {type(exc).__name__}: {exc}") from exc


def bot_label(spec: str | os.PathLike[str] | Bot, bot: Bot) -> str:
    """A short display name: the bot name, a model file's stem, or the object's `name`."""
    if isinstance(spec, (str, os.PathLike)):
        text = os.fspath(spec)
        if text in BOT_FACTORIES:
            return text
        base = os.path.basename(text.rstrip("/\\")) or text
        for suffix in (MODEL_SUFFIX, POLICY_SUFFIX):
            if base.endswith(suffix):
                return base[: -len(suffix)]
        return base
    return str(getattr(bot, "name", None) or type(bot).__name__)


def needs_observations(bot: Bot) -> bool:
    """Whether a caller must encode observations for `bot`.

    A bot says it needs none with `uses_observations = False` (as `RandomBot`
    does); for a bot without the attribute the answer is True.
    Encoding observations costs more than a core step, so drivers skip it when
    they can.
    """
    return bool(getattr(bot, "uses_observations", True))
