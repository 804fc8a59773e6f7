"""Kuhn poker's batched engine in plain numpy, on the plumbing of `kanaloa_env.core`.

The rules (Kuhn 1950, as OpenSpiel's `kuhn_poker` for two players):
- K1 Deck and deal: three cards J < Q < K; each player antes `ante` chips and gets one
  card, face down; the third is not used. The deal is the shuffle of the game's key.
- K2 Betting: player 0 checks or bets `bet` chips; after a check, player 1 checks
  (showdown) or bets; facing a bet, a player calls (showdown) or folds; three at most.
- K3 End: a fold gives the pot to the bettor; at a showdown the higher card takes it
  and both cards are shown. Each player's reward is the chips won or lost (the pot less
  their own stake), zero-sum, paid at the step that ends the game.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from kanaloa_env.core.batch import GameState, check_int_in
from kanaloa_env.core.engine import Sampler, Setup, Stepper, observer_seats
from kanaloa_env.core.fields import Field
from kanaloa_env.core.layout import offsets
from kanaloa_env.core.rng import mix64, permutations

CARD_NAMES = ("J", "Q", "K")  # K1: ranks, low to high
NUM_CARDS, NUM_PLAYERS, MAX_MOVES = 3, 2, 3  # K1, K2: check, bet, call/fold
NO_CARD = NO_ACTION = -1  # a card a public view hides, an unused history slot
CHECK, BET, CALL, FOLD = 0, 1, 2, 3
ACTION_NAMES = ("check", "bet", "call", "fold")
NUM_ACTIONS = len(ACTION_NAMES)
MAX_STAKE = 100  # the largest ante or bet a Config takes

# The observation (`observe`), part by part: (name, size).
OBS_LAYOUT = (
    ("card", NUM_CARDS),  # own card, one-hot
    ("seat", NUM_PLAYERS),  # own seat, one-hot (0 acts first)
    ("to_act", 1),  # 1 when it is the observer's decision
    ("history", MAX_MOVES * NUM_ACTIONS),  # each decision so far, one-hot
    ("shown", NUM_CARDS),  # the opponent's card once shown at a showdown (K3)
    ("stakes", NUM_PLAYERS),  # own and opponent's chips in the pot / (ante + bet)
    ("over", 1),  # the game is over
)
OFFSETS, OBS_DIM = offsets(OBS_LAYOUT)


@dataclass(frozen=True)
class Config:
    """The table's stakes (K1, K2): chips each player antes and the size of a bet."""

    ante: int = 1
    bet: int = 1

    def __post_init__(self) -> None:
        for name in ("ante", "bet"):
            value = check_int_in(getattr(self, name), 1, MAX_STAKE, f"Config.{name}")
            object.__setattr__(self, name, value)


FIELDS = (
    Field("key", "uint64", (), 0, "the game's random key (the deal)"),
    Field("cards", "int8", ("P",), NO_CARD, "each player's card 0..2 (J, Q, K); -1 hidden"),
    Field("history", "int8", (MAX_MOVES,), NO_ACTION, "the actions so far, -1 after the last"),
    Field("current_player", "int8", (), -1, "seat to act, -1 once the game is over"),
    Field("legal", "bool", ("A",), False, "legal actions of the player to act; none once over"),
    Field("rewards", "float32", ("P",), 0, "chips won at the last step (K3)"),
    Field("terminated", "bool", (), False, "the game is over"),
    Field("truncated", "bool", (), False, "never (no limit)"),
    Field("winner", "int8", (), -1, "who took the pot, -1 while the game runs"),
)


_SIZES = {"P": NUM_PLAYERS, "A": NUM_ACTIONS}  # the symbols of FIELDS, for every config


class State(GameState, fields=FIELDS, sizes=lambda _: _SIZES, config=Config):
    """A batch of Kuhn poker games."""


# ---- the rules ---------------------------------------------------------------------


class Outcome(NamedTuple):
    """Per game, from the actions so far (K2, K3): (B,) bools `over` and `showdown`, the
    (B,) int8 `winner` (-1 while running), the (B, 2) int64 chips each put in and the
    (B,) int64 chips the winner `won` (the loser's stake; 0 while running)."""

    over: np.ndarray
    showdown: np.ndarray
    winner: np.ndarray
    stakes: np.ndarray
    won: np.ndarray


def outcome(state: State) -> Outcome:
    """The `Outcome` of every game of `state`."""
    h = state.history
    folded = (h == FOLD).any(axis=1)
    showdown = (h == CALL).any(axis=1) | (h[:, :2] == CHECK).all(axis=1)
    last = ((h != NO_ACTION).sum(axis=1) - 1) % NUM_PLAYERS  # decisions alternate from 0
    winner = np.where(showdown, np.argmax(state.cards, axis=1), np.where(folded, 1 - last, -1))
    paid = (h == BET) | (h == CALL)  # seat 0 decides first and third
    stakes = np.stack([paid[:, 0::2].sum(axis=1), paid[:, 1]], axis=1) * state.config.bet
    stakes += state.config.ante
    won = np.where(folded | showdown, stakes.min(axis=1), 0)  # a folder's is smaller
    return Outcome(folded | showdown, showdown, winner.astype(np.int8), stakes, won)


def refresh(state: State, idx: np.ndarray) -> None:
    """The player to act, the mask and the end of games `idx`, from their history (K2)."""
    over, _, winner, _, _ = outcome(state)
    h, over, n = state.history[idx], over[idx], (state.history[idx] != NO_ACTION).sum(axis=1)
    facing = (n > 0) & (h[np.arange(len(h)), np.maximum(n - 1, 0)] == BET)  # call or fold
    state.legal[idx] = np.stack([~facing, ~facing, facing, facing], axis=1) & ~over[:, None]
    state.current_player[idx] = np.where(over, -1, n % NUM_PLAYERS)
    state.terminated[idx], state.winner[idx] = over, winner[idx]


def _apply(state: State, actions: np.ndarray, threads: int) -> None:
    """One decision in every running game (K2); a game that ends pays the pot (K3)."""
    state.rewards[:] = 0
    idx = np.flatnonzero(~state.done)
    state.history[idx, (state.history[idx] != NO_ACTION).sum(axis=1)] = actions[idx]
    refresh(state, idx)
    ended = idx[state.terminated[idx]]
    w, won = state.winner[ended].astype(np.intp), outcome(state).won[ended]
    state.rewards[ended, w], state.rewards[ended, 1 - w] = won, -won


def _reset(state: State, idx: np.ndarray, keys: np.ndarray, threads: int) -> None:
    """K1: deal new games with `keys` into rows `idx`."""
    state.key[idx] = keys
    state.cards[idx] = permutations(keys, 0, NUM_CARDS)[:, :NUM_PLAYERS]
    state.history[idx], state.rewards[idx] = NO_ACTION, 0
    refresh(state, idx)


_SETUP, _STEPPER = Setup(State, Config, _reset), Stepper(_apply, action_names=ACTION_NAMES)
init, init_from_keys, reset_games = _SETUP.init, _SETUP.init_from_keys, _SETUP.reset_games
step, step_inplace = _STEPPER.step, _STEPPER.step_inplace
validate_actions = _STEPPER.validate_actions


# ---- what a player sees ----------------------------------------------------------------


def observe(state: State, seat: np.ndarray | int | None = None, threads: int = 1) -> np.ndarray:
    """(B, OBS_DIM) float32 from `seat`'s point of view (default the player to act, 0
    once over; `OBS_LAYOUT`): never the opponent's card before a showdown shows it."""
    B, rows = state.batch_size, np.arange(state.batch_size)
    me = observer_seats(seat, B, NUM_PLAYERS)
    me = np.maximum(state.current_player, 0).astype(np.intp) if me is None else me
    out = np.zeros((B, OBS_DIM), np.float32)
    part = {name: out[:, lo:hi] for name, (lo, hi) in OFFSETS.items()}
    part["card"][rows, state.cards[rows, me]] = 1
    part["seat"][rows, me] = 1
    part["to_act"][:, 0] = state.current_player == me
    g, k = np.nonzero(state.history != NO_ACTION)
    part["history"][g, k * NUM_ACTIONS + state.history[g, k]] = 1
    over, showdown, _, stakes, _ = outcome(state)
    shown = np.flatnonzero(showdown)
    part["shown"][shown, state.cards[shown, 1 - me[shown]]] = 1
    scale = state.config.ante + state.config.bet
    part["stakes"][:] = np.stack([stakes[rows, me], stakes[rows, 1 - me]], axis=1) / scale
    part["over"][:, 0] = over
    return out


def public_view(state: State, seats: np.ndarray) -> State:
    """A copy holding only what `seats[i]` knows in game `i`: the opponent's card hidden
    (NO_CARD) until a showdown shows it, the key (the deal) zeroed."""
    me = _SAMPLER.seats(state, seats)
    view = state.copy()
    hide = np.flatnonzero(~outcome(state).showdown)
    view.cards[hide, 1 - me[hide]] = NO_CARD
    view.key[:] = 0
    return view


def _sample(view: State, me: np.ndarray, counts: np.ndarray, keys: np.ndarray) -> State:
    """Game i's `counts[i]` samples: sample j's key hashes (keys[i], j), and a hidden card
    is drawn from the two its seat does not hold by the shuffle of that key."""
    rows = np.repeat(np.arange(view.batch_size), counts)
    out, seat, r = view.take(rows), me[rows], np.arange(len(rows))
    j = r - np.repeat(np.cumsum(counts) - counts, counts)  # the sample's number in its game
    out.key[:] = mix64(keys[rows] + j.astype(np.uint64))
    others = np.sort((out.cards[r, seat][:, None] + np.array([1, 2])) % NUM_CARDS, axis=1)
    hidden = np.flatnonzero(~outcome(out).showdown)
    pick = others[r, permutations(out.key, 1, 2)[:, 0]]
    out.cards[hidden, 1 - seat[hidden]] = pick[hidden]
    return out


_SAMPLER = Sampler(State, _sample)
determinize, determinize_from_keys = _SAMPLER.determinize, _SAMPLER.determinize_from_keys
