"""The training scripts' command lines: their parser, the options several of them take,
and the checks that turn a bad value into argparse's usage error (exit status 2).

```python
p = script_parser(__doc__)                  # description: the docstring's first paragraph
add_rollout_options(p)                      # --num-envs --n-steps --batch-size --n-epochs
args = p.parse_args(argv)
require(p, args, ("num_envs", "n_epochs"), lambda v: v >= 1, "must be >= 1")
args.net_arch = parse_layer_sizes(p, args.net_arch, "--net-arch")
```
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from kanaloa_env.games import Game

__all__ = [
    "add_evaluation_options",
    "check_ppo_options",
    "add_game_options",
    "add_loss_options",
    "add_output_options",
    "add_rollout_options",
    "layer_sizes",
    "parse_game",
    "parse_layer_sizes",
    "require",
    "script_parser",
    "table_size",
]


class _RawDefaultsFormatter(argparse.RawTextHelpFormatter, argparse.ArgumentDefaultsHelpFormatter):
    """Help with the defaults shown and the epilog's line breaks kept."""


def script_parser(
    doc: str | None, *, epilog: str | None = None, raw: bool = False
) -> argparse.ArgumentParser:
    """A script's parser: described by the first paragraph of its docstring `doc`, every
    option's default shown in `--help`, `epilog` printed after the options; `raw` keeps
    the help texts' line breaks."""
    return argparse.ArgumentParser(
        description=(doc or "").split("\n\n")[0],
        epilog=epilog,
        formatter_class=_RawDefaultsFormatter if raw else argparse.ArgumentDefaultsHelpFormatter,
    )


def layer_sizes(text: str, flag: str) -> list[int]:
    """Hidden layer sizes from `text`, a command line's "256,256"; `flag` names the option
    in the `ValueError` for anything else."""
    try:
        sizes = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise ValueError(f"{flag} must be comma-separated integers, got {text!r}") from None
    if not sizes or min(sizes) < 1:
        raise ValueError(f"{flag} needs at least one layer size >= 1, got {text!r}")
    return sizes


def parse_layer_sizes(parser: argparse.ArgumentParser, text: str, flag: str) -> list[int]:
    """`layer_sizes(text, flag)`, a bad value ending the script through `parser.error`."""
    try:
        return layer_sizes(text, flag)
    except ValueError as exc:
        parser.error(str(exc))


def require(
    parser: argparse.ArgumentParser,
    args: argparse.Namespace,
    names: Iterable[str],
    ok: Callable[[Any], bool],
    wording: str,
) -> None:
    """Check the options `names` (attribute names of the parsed `args`, "n_steps") in
    order: the first whose value fails `ok` ends the script with "--n-steps {wording}"
    (`parser.error`, exit 2)."""
    for name in names:
        if not ok(getattr(args, name)):
            parser.error(f"--{name.replace('_', '-')} {wording}")


def add_rollout_options(parser: argparse.ArgumentParser | Any) -> None:
    """stable-baselines3 PPO's rollout and update sizes: `--num-envs` (games side by side,
    256), `--n-steps` (rollout length a game, 64), `--batch-size` (minibatch, 4096) and
    `--n-epochs` (passes over a rollout, 4). `parser` may be an argument group."""
    parser.add_argument("--num-envs", type=int, default=256, help="games played side by side")
    parser.add_argument(
        "--n-steps", type=int, default=64, help="rollout length per game per update"
    )
    parser.add_argument("--batch-size", type=int, default=4096, help="PPO minibatch size")
    parser.add_argument("--n-epochs", type=int, default=4, help="PPO epochs per update")


def check_ppo_options(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """Check the options of a stable-baselines3 PPO script: `--total-timesteps` and
    `--num-envs` at least 1 and `--n-steps` at least 2 (`parser.error` otherwise), and
    read `--net-arch` into `args.net_arch`, a list of layer sizes."""
    if args.total_timesteps < 1 or args.num_envs < 1 or args.n_steps < 2:
        parser.error("--total-timesteps and --num-envs must be >= 1 and --n-steps >= 2")
    args.net_arch = parse_layer_sizes(parser, args.net_arch, "--net-arch")


def add_loss_options(
    parser: argparse.ArgumentParser | Any,
    *,
    ent_coef: float,
    gamma_help: str = "discount factor",
    gae: bool = True,
) -> None:
    """Add stable-baselines3 PPO's discount and loss to `parser` (or an argument group):
    `--gamma` (0.995, its help `gamma_help`), with `gae` also `--gae-lambda` (0.95) and
    `--clip-range` (0.2), then `--ent-coef` (default `ent_coef`)."""
    parser.add_argument("--gamma", type=float, default=0.995, help=gamma_help)
    if gae:
        parser.add_argument("--gae-lambda", type=float, default=0.95, help="GAE lambda")
        parser.add_argument("--clip-range", type=float, default=0.2, help="PPO clip range")
    parser.add_argument(
        "--ent-coef", type=float, default=ent_coef, help="entropy bonus coefficient"
    )


def add_evaluation_options(
    parser: argparse.ArgumentParser | Any, *, eval_freq: int | None, eval_freq_help: str
) -> None:
    """Add the periodic evaluation of the stable-baselines3 scripts to `parser` (or an
    argument group): `--eval-freq` (learner timesteps between evaluations; default
    `eval_freq`, None: none, the script sets it; its help `eval_freq_help`),
    `--eval-games` (games against random bots, 2000) and `--eval-heuristic-games`
    (games against heuristic bots, 500; 0: none)."""
    parser.add_argument(
        "--eval-freq",
        type=int,
        default=argparse.SUPPRESS if eval_freq is None else eval_freq,
        help=eval_freq_help,
    )
    parser.add_argument(
        "--eval-games", type=int, default=2000, help="evaluation games against random bots"
    )
    parser.add_argument(
        "--eval-heuristic-games",
        type=int,
        default=500,
        help="evaluation games against heuristic bots (0: skip)",
    )


def add_output_options(
    parser: argparse.ArgumentParser | Any,
    output_dir: str,
    output_help: str,
    *,
    torch_threads: int = 1,
    torch_help: str = "torch CPU threads",
    progress_bar: bool = False,
) -> None:
    """Add where a run writes and how it runs to `parser` (or an argument group):
    `--output-dir` (default `output_dir`, help `output_help`), `--torch-threads`
    (default `torch_threads`, help `torch_help`) and, with `progress_bar`,
    `--no-progress-bar`."""
    parser.add_argument("--output-dir", default=output_dir, help=output_help)
    parser.add_argument("--torch-threads", type=int, default=torch_threads, help=torch_help)
    if progress_bar:
        parser.add_argument("--no-progress-bar", action="store_true", help="hide the progress bar")


def add_game_options(
    parser: argparse.ArgumentParser | Any,
    *,
    choices: Sequence[str],
    default: str,
    game_help: str = "which game",
) -> None:
    """Add to `parser` (or an argument group) `--game` (one of `choices`, default
    `default`, help `game_help`) and `--num-players` (None: the game's default; see
    `table_size`)."""
    parser.add_argument("--game", choices=choices, default=default, help=game_help)
    parser.add_argument(
        "--num-players",
        type=int,
        default=None,
        help="players at the table (Kanaloa 3..5, default 4; Kahuna 2)",
    )


def parse_game(parser: argparse.ArgumentParser, name: str) -> Game:
    """The registered game `name`; an unknown one ends the script with "--game: ..."
    (`parser.error`, exit 2)."""
    from kanaloa_env.games import get_game

    try:
        return get_game(name)
    except ValueError as exc:
        parser.error(f"--game: {exc}")


def table_size(parser: argparse.ArgumentParser, args: argparse.Namespace) -> Game:
    """The game of `add_game_options`' options; `args.num_players` set to the game's
    default table size where it is None, a size the game is not played at ending the
    script (`parser.error`, exit 2)."""
    game = parse_game(parser, args.game)
    if args.num_players is None:
        args.num_players = game.default_num_players
    if args.num_players not in game.player_counts:
        parser.error(
            f"--num-players must be in {game.player_counts_text()} for {game.title}, "
            f"got {args.num_players}"
        )
    return game
