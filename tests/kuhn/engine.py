"""Kuhn poker's batched engine in plain numpy: config, state, deal, rules, observations,
public view, belief sampling, scenarios and the invariant checker.

The rules (Kuhn 1950, as OpenSpiel's `kuhn_poker` for two players):

- K1 Deck and deal: three cards J < Q < K; each of the two players antes `ante`
  chips and gets one card, face down; the third card is not used.
- K2 Betting: player 0 acts first: check or bet `bet` chips. After a check,
  player 1 checks (showdown) or bets; facing a bet, a player calls (showdown) or
  folds. At most three decisions: check-check, bet-call, bet-fold,
  check-bet-call, check-bet-fold.
- K3 End: a fold gives the pot to the bettor; at a showdown the higher card takes
  it and both cards are shown. Rewards: each player's chips won or lost (the pot
  less their own stake), zero-sum, paid at the step that ends the game.

Actions (`Discrete(4)`): 0 check, 1 bet, 2 call, 3 fold; the mask allows check/bet
with no bet to answer and call/fold facing one. All randomness is the deal: the
argsort of three hashed words of the game's key (`kanaloa_env.core.rng`), so game
`i` of a batch seeded `s` is the same deal at any batch size.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from kanaloa_env.core.batch import (
    GameState,
    InvariantError,
    check_actions,
    check_counts,
    check_positive_int,
    check_seats,
)
from kanaloa_env.core.fields import Field
from kanaloa_env.core.rng import MAX_SEED, check_seed, game_keys, keys_from_generator, permutations

CARD_NAMES = ("J", "Q", "K")  # K1: ranks, low to high
NUM_CARDS = 3
NO_CARD = -1  # a card a public view hides
CHECK, BET, CALL, FOLD = 0, 1, 2, 3
ACTION_NAMES = ("check", "bet", "call", "fold")
NUM_ACTIONS = 4
NO_ACTION = -1  # an unused history slot
MAX_MOVES = 3  # K2: check, bet, call/fold
NUM_PLAYERS = 2
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
OFFSETS: dict[str, tuple[int, int]] = {}
_at = 0
for _name, _size in OBS_LAYOUT:
    OFFSETS[_name] = (_at, _at + _size)
    _at += _size
OBS_DIM = _at


@dataclass(frozen=True)
class Config:
    """The table's stakes (K1, K2): chips each player antes and the size of a bet."""

    ante: int = 1
    bet: int = 1

    def __post_init__(self) -> None:
        for name in ("ante", "bet"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
                raise TypeError(f"Config.{name} must be an int in 1..{MAX_STAKE}, got {v!r}")
            if not 1 <= v <= MAX_STAKE:
                raise ValueError(f"Config.{name} must be in 1..{MAX_STAKE}, got {v}")
            object.__setattr__(self, name, int(v))


FIELDS = (
    Field("key", "uint64", (), 0, "the game's random key (the deal)"),
    Field(
        "cards",
        "int8",
        ("P",),
        NO_CARD,
        "each player's card 0..2 (J, Q, K); -1 where a view hides it",
    ),
    Field(
        "history", "int8", (MAX_MOVES,), NO_ACTION, "the actions taken so far, -1 after the last"
    ),
    Field("current_player", "int8", (), -1, "seat to act, -1 once the game is over"),
    Field("legal", "bool", ("A",), False, "legal actions of the player to act; none once over"),
    Field("rewards", "float32", ("P",), 0, "chips won at the last step (K3)"),
    Field("terminated", "bool", (), False, "the game is over"),
    Field("truncated", "bool", (), False, "never (no limit)"),
    Field("winner", "int8", (), -1, "who took the pot, -1 while the game runs"),
)


class State(GameState, fields=FIELDS, sizes=lambda config: {"P": NUM_PLAYERS, "A": NUM_ACTIONS}):
    """A batch of Kuhn poker games."""

    config: Config

    def _config_meta(self) -> dict[str, Any]:
        return {"game": "kuhn", "config": dataclasses.asdict(self.config)}

    @classmethod
    def _config_from_meta(cls, meta: dict[str, Any]) -> Config:
        if meta.get("game") != "kuhn":
            raise ValueError(f"not a Kuhn poker state (game {meta.get('game')!r})")
        return Config(**meta.get("config", {}))


# ---- the rules ---------------------------------------------------------------------


def _moves(history: np.ndarray) -> np.ndarray:
    """(B,) int: decisions taken so far."""
    return (history != NO_ACTION).sum(axis=1)  # type: ignore[no-any-return]


def _facing_bet(history: np.ndarray) -> np.ndarray:
    """(B,) bool: the last action was a bet (K2: call or fold now)."""
    n = _moves(history)
    last = history[np.arange(len(history)), np.maximum(n - 1, 0)]
    return (n > 0) & (last == BET)


def _outcome(history: np.ndarray, cards: np.ndarray, config: Config) -> tuple[np.ndarray, ...]:
    """Per game: (over, showdown, winner, stakes (B, 2)) from the actions so far (K2, K3)."""
    B = len(history)
    folded = (history == FOLD).any(axis=1)
    showdown = (history == CALL).any(axis=1) | ((history[:, 0] == CHECK) & (history[:, 1] == CHECK))
    over = folded | showdown
    # Who acted last: decisions alternate from player 0.
    last_seat = (_moves(history) - 1) % NUM_PLAYERS
    high = np.argmax(cards, axis=1)
    winner = np.where(showdown, high, np.where(folded, 1 - last_seat, -1)).astype(np.int8)
    bets = (history == BET) | (history == CALL)
    seat_of = np.arange(MAX_MOVES) % NUM_PLAYERS
    stakes = np.full((B, NUM_PLAYERS), config.ante, np.int64)
    for s in range(NUM_PLAYERS):
        stakes[:, s] += config.bet * bets[:, seat_of == s].sum(axis=1)
    return over, showdown, winner, stakes


def _refresh(state: State, idx: np.ndarray) -> None:
    """Recompute the player to act, the mask and the end of games `idx` from their history."""
    h = state.history[idx]
    over, _, winner, _ = _outcome(h, state.cards[idx], state.config)
    facing = _facing_bet(h)
    legal = np.zeros((len(idx), NUM_ACTIONS), bool)
    legal[:, CHECK] = legal[:, BET] = ~facing & ~over
    legal[:, CALL] = legal[:, FOLD] = facing & ~over
    state.legal[idx] = legal
    state.current_player[idx] = np.where(over, -1, _moves(h) % NUM_PLAYERS)
    state.terminated[idx] = over
    state.winner[idx] = winner


def _describe(state: State) -> Any:
    def describe(g: int, a: int) -> str:
        if not 0 <= a < NUM_ACTIONS:
            return f"action {a} is out of range 0..{NUM_ACTIONS - 1}"
        allowed = [ACTION_NAMES[b] for b in np.flatnonzero(state.legal[g])]
        return (
            f"player {state.current_player[g]} cannot {ACTION_NAMES[a]} now "
            f"(legal: {', '.join(allowed)})"
        )

    return describe


def validate_actions(state: State, actions: object) -> np.ndarray:
    """(B,) int64 actions, or TypeError/ValueError naming the games at fault (finished
    games may hold anything)."""
    return check_actions(actions, state.legal, live=lambda: ~state.done, describe=_describe(state))


def step_inplace(
    state: State, actions: np.ndarray, validate: bool = True, threads: int = 1
) -> State:
    """Apply one decision per running game, in place (finished games ignore theirs);
    `threads` is accepted and ignored (numpy). Rewards are those of this step."""
    a = validate_actions(state, actions) if validate else np.asarray(actions, np.int64)
    state.rewards[:] = 0
    idx = np.flatnonzero(~state.done)
    if idx.size == 0:
        return state
    state.history[idx, _moves(state.history[idx])] = a[idx]
    _refresh(state, idx)
    ended = idx[state.terminated[idx]]
    if ended.size:
        _, _, winner, stakes = _outcome(state.history[ended], state.cards[ended], state.config)
        rows = np.arange(len(ended))
        loser = 1 - winner.astype(np.intp)
        won = stakes[rows, loser].astype(np.float32)  # K3: the pot less the own stake
        state.rewards[ended, winner.astype(np.intp)] = won
        state.rewards[ended, loser] = -won
    return state


def step(state: State, actions: np.ndarray, threads: int = 1) -> State:
    """`step_inplace` on a copy: `state` is left as it was."""
    out = state.copy()
    return step_inplace(out, validate_actions(state, actions), validate=False)


def reset_games(state: State, idx: np.ndarray, keys: np.ndarray, threads: int = 1) -> None:
    """Deal new games with (b,) uint64 `keys` into rows `idx` of `state`, in place (K1)."""
    idx = np.asarray(idx)
    if idx.dtype == bool:
        idx = np.flatnonzero(idx)
    keys = np.asarray(keys, dtype=np.uint64).reshape(-1)
    if len(keys) != len(idx):
        raise ValueError(f"reset_games: {len(idx)} games but {len(keys)} keys")
    state.key[idx] = keys
    state.cards[idx] = permutations(keys, 0, NUM_CARDS)[:, :NUM_PLAYERS]
    state.history[idx] = NO_ACTION
    state.rewards[idx] = 0
    state.truncated[idx] = False
    _refresh(state, idx)


def init_from_keys(config: Config, keys: np.ndarray, threads: int = 1) -> State:
    """New games, one per (B,) uint64 key (`kanaloa_env.core.rng.game_keys`)."""
    if not isinstance(config, Config):
        raise TypeError(f"config must be a Kuhn poker Config, got {type(config).__name__}")
    keys = np.asarray(keys)
    if keys.ndim != 1 or keys.dtype != np.uint64 or len(keys) == 0:
        raise ValueError(
            f"keys must be a non-empty (B,) uint64 array, got {keys.dtype} {keys.shape}"
        )
    state = State.empty(config, len(keys))
    reset_games(state, np.arange(len(keys)), keys)
    return state


def init(config: Config, batch_size: int, seed: int = 0, first_game: int = 0) -> State:
    """Games `first_game .. first_game + B - 1` of the stream `seed` (the same deal
    whatever the batch size)."""
    B = check_positive_int(batch_size, "batch_size")
    first = check_seed(first_game)
    if first + B - 1 > MAX_SEED:
        raise ValueError(f"first_game must be in 0..2**64-{B} for a batch of {B}, got {first}")
    ids = np.arange(B, dtype=np.uint64) + np.uint64(first)
    return init_from_keys(config, game_keys(check_seed(seed), ids))


def stakes_of(state: State) -> np.ndarray:
    """(B, 2) int64: the chips each player has put in the pot (K1, K2)."""
    return _outcome(state.history, state.cards, state.config)[3]


def showdown_of(state: State) -> np.ndarray:
    """(B,) bool: the game ended at a showdown, both cards shown (K3)."""
    return _outcome(state.history, state.cards, state.config)[1]


# ---- what a player sees ----------------------------------------------------------------


def _seats(state: State, seat: np.ndarray | int | None) -> np.ndarray:
    if seat is None:  # the player to act; player 0 once a game is over
        return np.maximum(state.current_player, 0).astype(np.intp)
    return check_seats(seat, state.batch_size, NUM_PLAYERS)


def observe(state: State, seat: np.ndarray | int | None = None, threads: int = 1) -> np.ndarray:
    """(B, OBS_DIM) float32 from `seat`'s point of view (`OBS_LAYOUT`): never the
    opponent's card before a showdown shows it."""
    me = _seats(state, seat)
    B = state.batch_size
    rows = np.arange(B)
    out = np.zeros((B, OBS_DIM), np.float32)

    def part(name: str) -> np.ndarray:
        lo, hi = OFFSETS[name]
        return out[:, lo:hi]

    own = state.cards[rows, me].astype(np.intp)
    part("card")[rows, own] = 1.0
    part("seat")[rows, me] = 1.0
    part("to_act")[:, 0] = state.current_player == me
    h = state.history.astype(np.intp)
    hist = part("history").reshape(B, MAX_MOVES, NUM_ACTIONS)
    for k in range(MAX_MOVES):
        taken = np.flatnonzero(h[:, k] != NO_ACTION)
        hist[taken, k, h[taken, k]] = 1.0
    over, showdown, _, stakes = _outcome(state.history, state.cards, state.config)
    shown = np.flatnonzero(showdown)
    part("shown")[shown, state.cards[shown, 1 - me[shown]].astype(np.intp)] = 1.0
    scale = state.config.ante + state.config.bet
    part("stakes")[:, 0] = stakes[rows, me] / scale
    part("stakes")[:, 1] = stakes[rows, 1 - me] / scale
    part("over")[:, 0] = over
    return out


def public_view(state: State, seats: np.ndarray) -> State:
    """A copy holding only what `seats[i]` knows in game `i`: the opponent's card hidden
    (NO_CARD) until a showdown shows it, the key (the deal) zeroed."""
    me = check_seats(seats, state.batch_size, NUM_PLAYERS)
    view = state.copy()
    _, showdown, _, _ = _outcome(state.history, state.cards, state.config)
    hide = np.flatnonzero(~showdown)
    view.cards[hide, 1 - me[hide]] = NO_CARD
    view.key[:] = 0
    return view


def determinize(view: State, seats: np.ndarray, n: Any, rng: np.random.Generator) -> State:
    """Belief sampling: for each game of `view` (a state or its `public_view` for
    `seats`), `n` full states agreeing with what `seats[i]` knows: a hidden opponent
    card drawn uniformly from the two cards the seat does not hold, fresh keys;
    (sum n) games, game-major."""
    me = check_seats(seats, view.batch_size, NUM_PLAYERS)
    counts = check_counts(n, view.batch_size)
    rows = np.repeat(np.arange(view.batch_size), counts)
    out = view.take(rows)
    seat = me[rows]
    r = np.arange(len(rows))
    _, showdown, _, _ = _outcome(out.history, out.cards, out.config)
    own = out.cards[r, seat]
    # The two cards other than the own card, in rank order; draw one of them.
    others = np.sort((own[:, None] + np.array([1, 2])) % NUM_CARDS, axis=1)
    pick = others[r, rng.integers(0, 2, size=len(rows))]
    hidden = ~showdown
    out.cards[r[hidden], 1 - seat[hidden]] = pick[hidden]
    out.key[:] = keys_from_generator(rng, len(rows))
    return out


# ---- positions ----------------------------------------------------------------------


_SCENARIO_KEYS = ("config", "cards", "history", "key")


def to_scenario(state: State, i: int = 0, include_key: bool = False) -> dict[str, Any]:
    """Game `i` as a JSON-compatible dict: `config` (fields that differ from the
    defaults), `cards` (names by seat), `history` (action names), and with
    `include_key` the game's `key`."""
    if isinstance(i, bool) or not isinstance(i, (int, np.integer)):
        raise TypeError(f"game index must be an int, got {type(i).__name__}")
    if not 0 <= i < state.batch_size:
        raise ValueError(f"game index must be in 0..{state.batch_size - 1}, got {i}")
    if (state.cards[i] == NO_CARD).any():
        raise ValueError("a public view hides a card: it has no scenario")
    default = Config()
    sc: dict[str, Any] = {
        "config": {
            f.name: getattr(state.config, f.name)
            for f in dataclasses.fields(Config)
            if getattr(state.config, f.name) != getattr(default, f.name)
        },
        "cards": [CARD_NAMES[c] for c in state.cards[i]],
        "history": [ACTION_NAMES[a] for a in state.history[i] if a != NO_ACTION],
    }
    if include_key:
        sc["key"] = int(state.key[i])
    return sc


def from_scenario(scenario: Mapping[str, Any], seed: int | None = None) -> State:
    """A batch of one from a scenario (untrusted: ValueError/TypeError naming the key).
    Without a `key`, the key is game 0 of the stream `seed` (0 when None)."""
    if not isinstance(scenario, Mapping):
        raise TypeError(f"a scenario must be a dict, got {type(scenario).__name__}")
    unknown = sorted(set(scenario) - set(_SCENARIO_KEYS), key=str)
    if unknown:
        raise ValueError(f"unknown scenario keys {unknown}; allowed: {list(_SCENARIO_KEYS)}")
    for k in ("cards", "history"):
        if k not in scenario:
            raise ValueError(f"scenario key {k!r} is missing")
    cfg_in = scenario.get("config", {})
    if not isinstance(cfg_in, Mapping):
        raise TypeError(f"scenario key 'config' must be an object, got {type(cfg_in).__name__}")
    fields = [f.name for f in dataclasses.fields(Config)]
    bad = sorted(set(cfg_in) - set(fields), key=str)
    if bad:
        raise ValueError(f"scenario key 'config': unknown fields {bad}; allowed: {fields}")
    config = Config(**cfg_in)
    cards = scenario["cards"]
    if (
        not isinstance(cards, list)
        or len(cards) != NUM_PLAYERS
        or any(c not in CARD_NAMES for c in cards)
        or len(set(cards)) != NUM_PLAYERS
    ):
        raise ValueError(
            f"scenario key 'cards' must be two different cards of {list(CARD_NAMES)}, got {cards!r}"
        )
    history = scenario["history"]
    if not isinstance(history, list) or any(a not in ACTION_NAMES for a in history):
        raise ValueError(
            f"scenario key 'history' must be a list of {list(ACTION_NAMES)}, got {history!r}"
        )
    if "key" in scenario:
        key = scenario["key"]
        if isinstance(key, bool) or not isinstance(key, int) or not 0 <= key <= MAX_SEED:
            raise ValueError(f"scenario key 'key' must be an int in 0..2**64-1, got {key!r}")
        keys = np.array([key], np.uint64)
    else:
        keys = game_keys(0 if seed is None else check_seed(seed), np.zeros(1, np.uint64))
    state = State.empty(config, 1)
    state.key[:] = keys
    state.cards[0] = [CARD_NAMES.index(c) for c in cards]
    state.truncated[:] = False
    _refresh(state, np.array([0]))
    for n, name in enumerate(history):
        a = ACTION_NAMES.index(name)
        if not state.legal[0, a]:
            raise ValueError(
                f"scenario key 'history': {name!r} (decision {n}) is not legal after "
                f"{history[:n]!r}"
            )
        step_inplace(state, np.array([a]), validate=False)
    state.rewards[:] = 0  # a scenario starts with no step taken
    return state


# ---- the invariant checker ------------------------------------------------------------


def check_invariants(state: State) -> None:
    """Raise `InvariantError` naming the rule and the games when a state is impossible."""

    def fail(ok: np.ndarray, what: str) -> None:
        bad = np.flatnonzero(~ok)
        if bad.size:
            raise InvariantError(f"Kuhn poker: {what}: games {bad[:10].tolist()}")

    c, h = state.cards.astype(np.int64), state.history.astype(np.int64)
    fail(((c >= 0) & (c < NUM_CARDS)).all(axis=1) & (c[:, 0] != c[:, 1]), "K1 two different cards")
    taken = h != NO_ACTION
    n = taken.sum(axis=1)
    fail((taken == (np.arange(MAX_MOVES) < n[:, None])).all(axis=1), "K2 history is a prefix")
    # Replaying the history from the deal must reach this state.
    replay = State.empty(state.config, state.batch_size)
    replay.cards[:] = state.cards
    _refresh(replay, np.arange(state.batch_size))
    ok = np.ones(state.batch_size, bool)
    for k in range(MAX_MOVES):
        rows = np.flatnonzero(taken[:, k] & ok)
        a = h[rows, k]
        legal = (a >= 0) & (a < NUM_ACTIONS)
        legal[legal] = replay.legal[rows[legal], a[legal]]
        ok[rows[~legal]] = False
        live = rows[legal]
        replay.history[live, k] = a[legal]
        _refresh(replay, live)
    fail(ok, "K2 every decision was legal")
    fail(replay.terminated == state.terminated, "K3 the game ends exactly after a fold or showdown")
    fail(replay.current_player == state.current_player, "K2 players alternate from player 0")
    fail((replay.legal == state.legal).all(axis=1), "K2 the mask is the rules'")
    fail(replay.winner == state.winner, "K3 the pot goes to the fold's bettor or the high card")
    fail(~state.truncated, "no game is cut short")
    r = state.rewards.astype(np.float64)
    fail(np.abs(r.sum(axis=1)) < 1e-6, "K3 rewards are zero-sum")
    fail(state.terminated | (r == 0).all(axis=1), "K3 rewards only at the end")


State.load_check = check_invariants


def random_playthrough(
    config: Config, num_games: int = 256, seed: int = 0, check_every: int = 1
) -> dict[str, Any]:
    """Play random legal games to the end under `check_invariants` (every `check_every`
    steps and at the end), also checking that each game pays once, its stakes; the
    counts of what happened."""
    check_positive_int(num_games, "num_games")
    check_positive_int(check_every, "check_every")
    state = init(config, num_games, seed)
    rng = np.random.default_rng(seed)
    paid = np.zeros((num_games, NUM_PLAYERS))
    decisions = steps = 0
    while not state.done.all():
        live = ~state.done
        u = rng.random((num_games, NUM_ACTIONS)) * state.legal
        actions = np.where(live, u.argmax(axis=1), 0)
        state = step(state, actions)
        paid += state.rewards
        decisions += int(live.sum())
        steps += 1
        if steps % check_every == 0:
            check_invariants(state)
        if steps > MAX_MOVES:
            raise InvariantError(f"Kuhn poker: games {np.flatnonzero(~state.done)} run on")
    check_invariants(state)
    _, showdown, winner, stakes = _outcome(state.history, state.cards, config)
    rows = np.arange(num_games)
    want = stakes[rows, 1 - winner]
    if not (paid[rows, winner] == want).all():
        raise InvariantError("Kuhn poker: K3 the winner is paid the loser's stake")
    return {
        "games": num_games,
        "decisions": decisions,
        "showdowns": int(showdown.sum()),
        "wins": np.bincount(winner, minlength=NUM_PLAYERS).tolist(),
    }
