"""kanaloa_env.training.cli: the training scripts' parser, shared options and checks."""

from __future__ import annotations

import argparse

import pytest

from kanaloa_env.training import layer_sizes
from kanaloa_env.training.cli import (
    add_evaluation_options,
    add_game_options,
    add_loss_options,
    add_output_options,
    add_rollout_options,
    check_ppo_options,
    parse_game,
    parse_layer_sizes,
    require,
    script_parser,
    table_size,
)


def _exits(parser: argparse.ArgumentParser, capsys: pytest.CaptureFixture[str], call) -> str:
    """Run `call()`; it must end the script through `parser.error`: its message."""
    with pytest.raises(SystemExit) as info:
        call()
    assert info.value.code == 2
    return capsys.readouterr().err


def test_the_parser_is_described_by_the_docstrings_first_paragraph() -> None:
    p = script_parser("Train a bot.\n\nLong text that --help leaves out.")
    p.add_argument("--n", type=int, default=3, help="a count")
    text = p.format_help()
    assert "Train a bot." in text and "Long text" not in text
    assert "(default: 3)" in text
    raw = script_parser("Doc.", epilog="line one\nline two", raw=True).format_help()
    assert "line one\nline two" in raw


def test_layer_sizes_and_their_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert layer_sizes("256, 128,", "--x") == [256, 128]
    with pytest.raises(ValueError, match="--x must be comma-separated integers"):
        layer_sizes("a,b", "--x")
    with pytest.raises(ValueError, match="at least one layer size >= 1"):
        layer_sizes("0", "--x")
    p = script_parser("Doc.")
    assert parse_layer_sizes(p, "8,4", "--hidden") == [8, 4]
    err = _exits(p, capsys, lambda: parse_layer_sizes(p, "x", "--hidden"))
    assert "--hidden must be comma-separated integers" in err


def test_require_names_the_first_bad_option_in_order(capsys: pytest.CaptureFixture[str]) -> None:
    p = script_parser("Doc.")
    args = argparse.Namespace(n_steps=0, num_envs=-1, fine=5)
    require(p, args, ("fine",), lambda v: v >= 1, "must be >= 1")  # passes: no exit
    err = _exits(p, capsys, lambda: require(p, args, ("n_steps", "num_envs"), bool, "must be set"))
    assert "--n-steps must be set" in err and "--num-envs" not in err


def test_the_sb3_options_and_their_defaults(capsys: pytest.CaptureFixture[str]) -> None:
    p = script_parser("Doc.")
    add_rollout_options(p)
    add_loss_options(p, ent_coef=0.02, gamma_help="discount per decision")
    add_evaluation_options(p, eval_freq=None, eval_freq_help="per game")
    add_output_options(p, "runs/x", "where it goes", torch_threads=2, progress_bar=True)
    p.add_argument("--total-timesteps", type=int, default=100)
    p.add_argument("--net-arch", default="64,64")
    args = p.parse_args([])
    assert (args.num_envs, args.n_steps, args.batch_size, args.n_epochs) == (256, 64, 4096, 4)
    assert (args.gamma, args.gae_lambda, args.clip_range, args.ent_coef) == (0.995, 0.95, 0.2, 0.02)
    assert not hasattr(args, "eval_freq")  # left to the script (a default per game)
    assert (args.eval_games, args.eval_heuristic_games) == (2000, 500)
    assert (args.output_dir, args.torch_threads, args.no_progress_bar) == ("runs/x", 2, False)
    check_ppo_options(p, args)
    assert args.net_arch == [64, 64]
    bad = p.parse_args(["--n-steps", "1"])
    err = _exits(p, capsys, lambda: check_ppo_options(p, bad))
    assert "--n-steps >= 2" in err
    q = script_parser("Doc.")
    add_loss_options(q, ent_coef=0.0, gae=False)
    add_output_options(q, "runs/y", "there")
    plain = q.parse_args([])
    assert not hasattr(plain, "gae_lambda") and not hasattr(plain, "clip_range")
    assert not hasattr(plain, "no_progress_bar") and plain.torch_threads == 1


def test_the_game_and_its_table_size(capsys: pytest.CaptureFixture[str]) -> None:
    p = script_parser("Doc.")
    add_game_options(p, choices=("kanaloa", "kahuna"), default="kanaloa")
    args = p.parse_args(["--game", "kahuna"])
    assert table_size(p, args).name == "kahuna" and args.num_players == 2
    args = p.parse_args(["--num-players", "7"])
    err = _exits(p, capsys, lambda: table_size(p, args))
    assert "--num-players must be in 3..5 for Kanaloa, got 7" in err
    assert parse_game(p, "kanaloa").name == "kanaloa"
    assert "--game:" in _exits(p, capsys, lambda: parse_game(p, "chess"))
