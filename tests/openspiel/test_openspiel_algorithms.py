"""OpenSpiel's own algorithms on our games: episodes through `rl_environment`, IS-MCTS
playing both games, the benchmark scripts at tiny sizes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from open_spiel.python import rl_environment  # noqa: E402
from open_spiel.python.algorithms import ismcts, mcts  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    "name", ["python_kanaloa(players=4,nil_announcement=True)", "python_kahuna", "python_kuhn"]
)
def test_rl_environment_episodes(name: str) -> None:
    game = pyspiel.load_game(name)
    env = rl_environment.Environment(
        game, chance_event_sampler=rl_environment.ChanceEventSampler(1)
    )
    P = game.num_players()
    assert env.observation_spec()["info_state"] == (game.ours.obs_dim,)
    assert env.action_spec()["num_actions"] == game.num_distinct_actions()
    rng = np.random.default_rng(0)
    for _ in range(3):
        ts = env.reset()
        steps = 0
        while not ts.last():
            p = ts.observations["current_player"]
            legal = ts.observations["legal_actions"][p]
            assert legal and len(ts.observations["info_state"][p]) == game.ours.obs_dim
            ts = env.step([int(rng.choice(legal))])
            steps += 1
        assert steps > 1 and len(ts.rewards) == P
        assert abs(sum(ts.rewards)) < 1e-9 and max(ts.rewards) > 0


@pytest.mark.parametrize("name", ["python_kanaloa(players=3)", "python_kahuna"])
def test_ismcts_plays_whole_games(name: str) -> None:
    game = pyspiel.load_game(name)
    rs = np.random.RandomState(0)
    searcher = ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, rs), 2.0, 4, random_state=rs)
    rng = np.random.default_rng(0)
    state = game.new_initial_state()
    searched = 0
    while not state.is_terminal():
        if state.is_chance_node():
            actions, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(rng.choice(actions, p=probs)))
        elif state.current_player() == 0:
            action = searcher.step(state)
            assert action in state.legal_actions()
            state.apply_action(action)
            searched += 1
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
    assert searched > 5


def _script(*args: str) -> str:
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
    }
    proc = subprocess.run(
        [sys.executable, *args], cwd=ROOT, capture_output=True, text=True, timeout=600, env=env
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout


def test_the_ismcts_benchmark_runs_at_a_tiny_size(tmp_path: Path) -> None:
    out = tmp_path / "cells.json"
    text = _script(
        "benchmarks/bench_ismcts_openspiel.py",
        "--budgets",
        "2",
        "--games",
        "2",
        "--opponents",
        "heuristic",
        "--out",
        str(out),
    )
    cells = json.loads(out.read_text())
    assert [(c["game"], c["budget"], c["games"]) for c in cells] == [
        ("kanaloa", 2, 2),
        ("kahuna", 2, 2),
    ]
    for c in cells:
        lo, hi = c["interval"]
        assert 0 <= lo <= c["score"] <= hi <= 1 and c["cpu_ms_per_decision"] > 0
    assert text.count("heuristic") == 2


def test_the_throughput_benchmark_runs_at_a_tiny_size() -> None:
    text = _script("benchmarks/bench_openspiel.py", "--seconds", "0.6", "--rounds", "1")
    rows = [line.split() for line in text.splitlines()[1:]]
    assert [r[0].split("(")[0] for r in rows] == ["hearts", "python_kanaloa", "python_kahuna"] * 2
    assert all(float(r[2]) > 0 for r in rows)
