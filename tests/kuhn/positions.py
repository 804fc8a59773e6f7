"""Kuhn poker's positions: the scenario format (`to_scenario`, `from_scenario`) and the
invariant checker (`check_invariants`, `random_playthrough`), both on `replay`: a position
is valid when its decisions were legal and it is what they lead to."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

import numpy as np

from kanaloa_env.core.batch import check_index
from kanaloa_env.core.engine import fail, random_games
from kanaloa_env.core.scenario_checks import scenario_key

from .engine import (
    ACTION_NAMES,
    CARD_NAMES,
    MAX_MOVES,
    NO_ACTION,
    NO_CARD,
    NUM_ACTIONS,
    NUM_CARDS,
    NUM_PLAYERS,
    Config,
    State,
    init,
    outcome,
    refresh,
    step,
)


def replay(state: State) -> tuple[State, np.ndarray]:
    """The games of `state` replayed from their deal through their history (no rewards),
    and (B,) each one's first decision that was not legal (MAX_MOVES: none)."""
    out = State.empty(state.config, state.batch_size)
    out.key[:], out.cards[:] = state.key, state.cards
    refresh(out, np.arange(state.batch_size))
    bad = np.full(state.batch_size, MAX_MOVES)
    for k in range(MAX_MOVES):
        a = state.history[:, k].astype(np.int64)
        legal = out.legal[np.arange(len(a)), a % NUM_ACTIONS] & (a >= 0) & (a < NUM_ACTIONS)
        bad[(a != NO_ACTION) & ~legal & (bad == MAX_MOVES)] = k
        rows = np.flatnonzero(legal & (bad == MAX_MOVES))
        out.history[rows, k] = a[rows]
        refresh(out, rows)
    return out, bad


def to_scenario(state: State, i: int = 0, include_key: bool = False) -> dict[str, Any]:
    """Game `i` as a JSON-compatible dict: `config` (fields that differ from the
    defaults), `cards` (names by seat), `history` (action names), and with
    `include_key` the game's `key`."""
    i = check_index(i, state.batch_size, "game index")
    if (state.cards[i] == NO_CARD).any():
        raise ValueError("a public view hides a card: it has no scenario")
    config = dataclasses.asdict(state.config)
    sc: dict[str, Any] = {
        "config": {k: v for k, v in config.items() if v != getattr(Config(), k)},
        "cards": [CARD_NAMES[c] for c in state.cards[i]],
        "history": [ACTION_NAMES[a] for a in state.history[i] if a != NO_ACTION],
    }
    return {**sc, "key": int(state.key[i])} if include_key else sc


def from_scenario(scenario: Mapping[str, Any], seed: int | None = None) -> State:
    """A batch of one from a scenario (untrusted: ValueError/TypeError naming the key).
    Without a `key`, the key is game 0 of the stream `seed` (0 when None)."""
    if not isinstance(scenario, Mapping):
        raise TypeError(f"a scenario must be a dict, got {type(scenario).__name__}")
    if unknown := sorted(set(scenario) - {"config", "cards", "history", "key"}, key=str):
        raise ValueError(f"unknown scenario keys {unknown}; allowed: config, cards, history, key")
    if missing := [k for k in ("cards", "history") if k not in scenario]:
        raise ValueError(f"scenario key {missing[0]!r} is missing")
    config, cards, history = scenario.get("config", {}), scenario["cards"], scenario["history"]
    fields = [f.name for f in dataclasses.fields(Config)]
    if not isinstance(config, Mapping) or set(config) - set(fields):
        raise ValueError(f"scenario key 'config': unknown fields in {config!r}; allowed: {fields}")
    names = isinstance(cards, list) and len(cards) == 2 and all(c in CARD_NAMES for c in cards)
    if not names or cards[0] == cards[1]:
        raise ValueError(f"scenario key 'cards' must be two different cards of {CARD_NAMES}")
    if not isinstance(history, list) or len(history) > MAX_MOVES or set(history) - {*ACTION_NAMES}:
        raise ValueError(f"scenario key 'history' must be a list of {ACTION_NAMES}, at most 3")
    state = State.empty(Config(**config), 1)
    state.key[0] = scenario_key(scenario.get("key"), seed)
    state.cards[0] = [CARD_NAMES.index(c) for c in cards]
    state.history[0, : len(history)] = [ACTION_NAMES.index(a) for a in history]
    state, bad = replay(state)  # a scenario starts with no step taken: no rewards
    if (k := bad[0]) < len(history):
        raise ValueError(f"scenario key 'history': {history[k]!r} is not legal after {history[:k]}")
    return state


def check_invariants(state: State) -> None:
    """Raise `InvariantError` naming the rule and the games when a state is impossible:
    it must be the one its deal and its decisions lead to, with its last step's rewards."""
    c, taken = state.cards.astype(np.int64), state.history != NO_ACTION
    fail(((c < 0) | (c >= NUM_CARDS)).any(axis=1) | (c[:, 0] == c[:, 1]), "K1 two different cards")
    fail((taken[:, 1:] & ~taken[:, :-1]).any(axis=1), "K2 the history is a prefix")
    replayed, bad = replay(state)
    fail(bad < MAX_MOVES, "K2 every decision was legal")
    same = replayed.game_equal(state.replace(rewards=replayed.rewards))  # (never truncated)
    fail(~same, "K2, K3 the player to act, the mask and the end follow from the decisions")
    r = state.rewards.astype(np.float64)
    fail(np.abs(r.sum(axis=1)) >= 1e-6, "K3 rewards are zero-sum")
    fail(~state.terminated & (r != 0).any(axis=1), "K3 rewards only at the end")


def _paid(before: State, after: State, done: np.ndarray) -> None:
    """K3: the step that ends a game pays the winner the loser's stake."""
    g = np.flatnonzero(after.done & ~done)
    w = after.winner[g].astype(np.intp)
    unpaid = g[after.rewards[g, w] != outcome(after).stakes[g, 1 - w]]
    fail(np.isin(np.arange(after.batch_size), unpaid), "K3 the winner is paid the loser's stake")


def random_playthrough(
    config: Config, num_games: int = 256, seed: int = 0, check_every: int = 1
) -> dict[str, Any]:
    """Random legal games to the end under `check_invariants` and `_paid` (at most three
    decisions each, K2); the counts of what happened."""
    end, decisions = random_games(
        init, step, check_invariants, config, num_games, seed, 4, check_every, _paid
    )
    wins = np.bincount(end.winner, minlength=NUM_PLAYERS).tolist()
    return {"games": num_games, "decisions": decisions, "wins": wins}
