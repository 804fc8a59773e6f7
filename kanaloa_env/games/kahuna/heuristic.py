"""A rule-based Kahuna player: one compiled decision per game, run over a batch."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np
from numba import types

from ...core.batch import check_view_call
from ...core.kahuna.board import COUNT_BITS, bridge_counts, held
from ...core.kahuna.cards import count_of, num_cards
from ...core.kahuna.constants import (
    ACTION_CARD,
    ACTION_CARD2,
    ACTION_KIND,
    ACTION_LINE,
    ALL_LINES,
    BRIDGES_PER_PLAYER,
    DEGREE,
    DISCARD_BASE,
    DRAW,
    END_PLAY,
    HAND_LIMIT,
    LINE_A,
    LINE_B,
    LINES_AT,
    MAJORITY,
    NUM_ACTIONS,
    NUM_CARDS,
    NUM_ISLANDS,
    NUM_LINES,
    REMOVE_BASE,
    REMOVE_PAIRS,
    ROW_SLOTS,
    SKIP,
    TAKE_BASE,
    Kind,
    Phase,
)
from ...core.kahuna.state import State
from ...core.kernels import Entry, kernel, popcount, run_batch, small_kernel


@dataclass
class HeuristicBot:
    """A rule-based Kahuna player; needs the public game state (`uses_state = True`).

    Each game's decision is one compiled function (numba, `core.kernels`), run over
    the batch in one call. It reads only what the deciding player may know
    (`public_view`: its own hand, the opponent's hand only as far as `known` shows,
    K6.7, the pile's size but not its order, K12) and never steps the view: the
    effect of an action is worked out on copies of the bridge and stone bit sets.
    Its arithmetic is numpy's to the last bit: the chances are float32, sums over the
    islands run in numpy's pairwise order, and the binomial powers are numpy's own
    (`_POWERS`, a table of every power the estimate can ask for), so that its
    decisions are those of the estimate written in numpy, with which its defaults
    were tuned.

    **How it judges a position.** A value in stones (`_value`), from the deciding
    player's side, of both players' bridges and stones and its own hand:

    - stones on the board, its own minus the opponent's (what every scoring counts,
      K7.2); islands held without a stone (an empty stone supply, K5.3) count
      `unmarked_value`, bridges `bridge_value` each (the last tie-break, K8.1);
    - the race for every island nobody holds: `race_values[n]` for a side that still
      needs `n` bridges there and has that many free lines (K5.1), times
      `behind_factor` where the other side needs fewer;
    - the opponent's next turn: for every island it can claim with one bridge (or
      two, times `double_weight`), the chance that its hand holds a card that pays
      for it (a known card, K6.7, else a binomial estimate over the cards the player
      has not seen), times what the claim would cost the player: the opponent's
      stone, the player's stones on islands it no longer holds once its bridges at
      the claimed island are gone (K5.3, K5.4), and its early-end danger. Islands
      the player holds with no bridge to spare count the chance that the opponent
      holds a pair to remove one of them (K4.2), times `break_weight`;
    - its own next turn likewise, times `own_weight` (the opponent moves first): the
      islands it can claim with a card in hand (certain), a face-up card it can take
      (`take_chance`) or a blind draw. One card pays for one claim and about one card
      comes per turn, so only the best claim and `second_weight` of the second count;
    - the early end (K8.2): from round 2 on (and in round 1 once four cards or fewer
      are left to draw, `early_round1` of it before), a player with few bridges is
      in danger (`danger[n]` for `n` bridges; with none the game is lost), its own
      counted against it, the opponent's for it.

    **Playing cards.** It scores every legal PLACE and REMOVE by playing it on the
    bit sets (the bridge; the claims at the card's island, then at the other end,
    each with its stone while the supply lasts and the opponent's bridges there
    removed, K5.2, K5.3; the opponent's stone losses, K5.4) and taking the value
    after less the value before, less `card_cost` per card spent. It plays the best
    while that gain exceeds `play_threshold`, one action per decision, judging the
    position afresh each time. So it claims when it can, a claim of both ends with
    one bridge (two stones) first; builds toward islands it can win; blocks the free
    lines the opponent needs and removes the opponent bridges that threaten the
    islands it holds or is about to hold; removes opponent bridges when that costs
    the opponent a stone; attacks an opponent's last bridges and keeps more than one
    of its own when the opponent could take its last; and places nothing that gains
    less than the card is worth. In the final turns (K7.4) cards are worth nothing
    and everything that gains is played; in the very last turn only the stones (and
    then the bridges, K8.1) count.

    **Ending the turn** (K6). The worth of a card of island `x` is the best gain a
    bridge paid with `x` would bring on the board as it is now, or a removal for
    which it completes a pair with a card in hand (never below 0). It takes the
    face-up card worth most unless a blind draw is expected (over the unseen cards)
    to be worth more by `take_margin`, else draws. With five cards (K6.4) it hands
    back its least useful card (END_PLAY, a hand-back, then the draw) when the best
    card on offer is worth `swap_margin` more, else it skips; right after the
    opponent's skip (K6.3) it must hand back. It never skips otherwise: skipping to
    delay a scoring while behind on stones lost (45.3% [43.1%, 47.4%] of 2000 games
    against the bot without it), and a card drawn can still be handed back later.

    The defaults were tuned in seat-balanced self-play tournaments between variants
    of the bot (2000 to 4000 games each); `rng` is not used: the bot is deterministic.

    Attributes:
        card_cost: what a card kept in hand is worth, in stones (charged per card spent).
        play_threshold: the least gain for which a card is played.
        race_values: value of an open island per bridges still needed (index 0, 1, ...).
        own_weight: weight of the player's own claims on its next turn.
        second_weight: share of the second-best of those claims.
        break_weight: weight of the threat of a removal against a held island.
        double_weight: weight of a claim that needs two bridges in one turn.
        take_chance: chance credited to a claim that a face-up card would pay for
            (only one card is taken per turn).
        danger: early-end danger per bridge count 0, 1, ... (0 past the end).
        early_round1: share of the danger counted in round 1 while many cards are left.
        unmarked_value, bridge_value, take_margin, swap_margin, behind_factor: see above.
        name: the bot's name in tournaments.

    Raises:
        TypeError, ValueError: a parameter that is not a number (a sequence of numbers
            for `race_values` and `danger`), is not finite, is negative (except the
            threshold and margins), or a chance above 1.
    """

    card_cost: float = 0.15
    play_threshold: float = 0.02
    race_values: tuple[float, ...] = (0.0, 0.3, 0.15, 0.06, 0.02, 0.0, 0.0)
    own_weight: float = 0.15
    second_weight: float = 0.5
    break_weight: float = 0.7
    double_weight: float = 0.6
    take_chance: float = 0.7
    danger: tuple[float, ...] = (30.0, 2.0, 0.6, 0.2)
    early_round1: float = 0.1
    unmarked_value: float = 0.3
    bridge_value: float = 0.01
    take_margin: float = 0.0
    swap_margin: float = 0.15
    behind_factor: float = 0.5
    name: str = "heuristic"

    uses_state = True
    uses_observations = False
    game = "kahuna"  # reads Kahuna's state: callers reject it at another game's table

    def __post_init__(self) -> None:
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if f.name == "name":
                if not isinstance(value, str) or not value:
                    raise TypeError(f"HeuristicBot.name must be a non-empty str, got {value!r}")
            elif f.name in ("race_values", "danger"):
                if isinstance(value, (str, bytes)) or not hasattr(value, "__len__"):
                    raise TypeError(
                        f"HeuristicBot.{f.name} must be a sequence of numbers, got {value!r}"
                    )
                if len(value) == 0:
                    raise ValueError(f"HeuristicBot.{f.name} must not be empty")
                for v in value:
                    _check_number(f.name, v, signed=False)
                setattr(self, f.name, tuple(float(v) for v in value))
            else:
                _check_number(f.name, value, signed=f.name in _SIGNED)
                if f.name in _CHANCES and value > 1:
                    raise ValueError(f"HeuristicBot.{f.name} must be in 0..1, got {value}")

    def act(
        self,
        observations: np.ndarray,
        masks: np.ndarray,
        rng: np.random.Generator,
        *,
        view: State | None = None,
        seats: np.ndarray | None = None,
        public: bool = False,
        **kwargs: object,
    ) -> np.ndarray:
        """(b,) int64 legal actions for a batch of b decisions.

        Args:
            observations: (b, OBS_DIM) observations; not read (this bot uses `view`).
            masks: (b, 153) bool legal actions; every row needs one.
            rng: unused (the bot is deterministic); part of the protocol.
            view: `public_view(state, seats)` of the b games (never stepped).
            seats: (b,) the deciding seats, each game's `current_player`.
            public: read `view` as the player to act sees it: the opponent's hand only
                through its `known` cards and its size, so that `view` may be the full
                state (as on the GPU, `gpu_heuristic`). False: read what `view` shows
                (a public view; the search's rollouts pass a sampled full state, whose
                opponent hand the rollout player then sees, on purpose).
            kwargs: other callers' keywords, not read.

        Raises:
            TypeError: `view` or `seats` is missing, or `seats` is not integers.
            ValueError: shapes disagree, a seat is not 0 or 1 or not the player to
                act, a game is over, or a mask row has no legal action.
        """
        view, seats, masks = check_view_call(
            "HeuristicBot", view, seats, masks, State, "Kahuna State", NUM_ACTIONS
        )
        seats = seats.astype(np.intp)
        b = len(masks)
        if ((seats < 0) | (seats > 1)).any():
            raise ValueError(f"seats must be 0 or 1, got {np.unique(seats).tolist()}")
        if (view.current_player != seats).any():
            raise ValueError("seats must be each game's player to act (view.current_player)")
        if b and not masks.any(axis=1).all():
            raise ValueError("every mask row needs at least one legal action")
        actions = np.empty(b, dtype=np.int64)
        if b == 0:
            return actions
        params, race, danger = self.parameter_arrays()
        f = masks.flags
        if not (f.c_contiguous and f.aligned and f.writeable):
            masks = masks.copy()  # (the form `_DECIDE` is compiled for)
        seat_ids = seats.astype(np.int64, copy=False)
        args = (seat_ids, masks, params, race, danger, _POWERS, bool(public), actions)
        run_batch(_DECIDE(view), b, 1, view.config.rules, view.kernel_arrays(), *args)
        return actions

    def parameter_arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The bot's parameters as the compiled decision reads them: float64 `params`
        (in `_PARAMS` order), `race_values` and `danger`."""
        params = np.array([getattr(self, name) for name in _PARAMS], dtype=np.float64)
        race = np.array(self.race_values, dtype=np.float64)
        danger = np.array(self.danger, dtype=np.float64)
        return params, race, danger


# ---- the compiled decision ----------------------------------------------------------
#
# One game at a time (`_decide`), with small work arrays allocated once per call. The
# figures are numpy's, operation by operation: float64 for values, float32 for the
# chances (numpy computes them in float32: float32 arrays with Python floats stay
# float32), sums over the 12 islands in numpy's pairwise order (`_sum12`), and numpy's
# float32 powers (`_POWERS`), so that every comparison, and so every decision, is the
# one the estimate written in numpy makes.

# The parameters as the kernels take them (`params`), by index.
_PARAMS = (
    "card_cost",
    "play_threshold",
    "own_weight",
    "second_weight",
    "break_weight",
    "double_weight",
    "take_chance",
    "early_round1",
    "unmarked_value",
    "bridge_value",
    "take_margin",
    "swap_margin",
    "behind_factor",
)
(
    _CARD_COST,
    _PLAY_THRESHOLD,
    _OWN_WEIGHT,
    _SECOND_WEIGHT,
    _BREAK_WEIGHT,
    _DOUBLE_WEIGHT,
    _TAKE_CHANCE,
    _EARLY_ROUND1,
    _UNMARKED_VALUE,
    _BRIDGE_VALUE,
    _TAKE_MARGIN,
    _SWAP_MARGIN,
    _BEHIND_FACTOR,
) = range(len(_PARAMS))
# The weights of the moment of the game (`moment`), by index: 1 while the player has
# another turn, 1 while the opponent has, the weight of the early-end danger (K8.2),
# the value of a card kept in hand, the value of the position as it is.
_MINE_NEXT, _THEIRS_NEXT, _EARLY, _COST, _BEFORE = range(5)
# Counts (`facts`), by index: the stones of a player's supply (the config's), the cards
# the player has not seen, the opponent's cards it does not know (K6.7).
_STONES, _NUM_UNSEEN, _HIDDEN = range(3)
# Rows of the (4, 12) card counts (`cards`): cards of each island the player has not
# seen, the opponent's cards it knows, the face-up cards, and a hand being judged.
_UNSEEN, _KNOWN, _FACE, _MINE = range(4)

_CARD_ACTIONS = DISCARD_BASE  # PLACE and REMOVE: the actions that spend cards on the board
_KIND = ACTION_KIND.astype(np.int64)
_LINE = ACTION_LINE.astype(np.int64)
_CARD = ACTION_CARD.astype(np.int64)
_CARD2 = ACTION_CARD2.astype(np.int64)
_LINE_A = LINE_A.astype(np.int64)
_LINE_B = LINE_B.astype(np.int64)
_LINES_AT = LINES_AT.astype(np.int64)
_MAJ = MAJORITY.astype(np.int64)
_DEGREE = DEGREE.astype(np.int64)
# _AT_LINE[x, j], _AT_FAR[x, j]: island x's j-th line (j < _DEGREE[x]) and its far end.
_AT_LINE = np.zeros((NUM_ISLANDS, int(DEGREE.max())), dtype=np.int64)
_AT_FAR = np.zeros((NUM_ISLANDS, int(DEGREE.max())), dtype=np.int64)
for _x in range(NUM_ISLANDS):
    _lines_at_x = np.flatnonzero((LINES_AT[_x] >> np.arange(NUM_LINES)) & 1)
    _AT_LINE[_x, : len(_lines_at_x)] = _lines_at_x
    _AT_FAR[_x, : len(_lines_at_x)] = _LINE_A[_lines_at_x] + _LINE_B[_lines_at_x] - _x
_FALLBACK = np.array([DRAW, *range(TAKE_BASE, TAKE_BASE + ROW_SLOTS), SKIP, END_PLAY], np.int64)
_F0, _F1 = np.float32(0.0), np.float32(1.0)
_INF = np.inf


def _power_table() -> np.ndarray:
    """(25, 25, 6) float32: `_POWERS[a, n, h]` is numpy's float32 `(1 - p) ** h` for
    the chance p = a / max(n, 1) of `_at_least` (a of the n unseen cards useful, h
    hidden cards), computed as numpy computes it for the estimate: a (rows, 12)
    float32 array to the power of a (rows, 1) one. (numpy's vectorised power differs from C's `powf`,
    hence from the compiled `**`, in the last bit for about one input in seven.)"""
    a = np.arange(NUM_CARDS + 1, dtype=np.float32)[:, None]
    n = np.arange(NUM_CARDS + 1, dtype=np.float32)[None, :]
    p = np.clip(a / np.maximum(n, 1.0), 0.0, 1.0)
    base = np.repeat((1.0 - p).reshape(-1, 1), NUM_ISLANDS, axis=1)
    table = np.empty((*p.shape, HAND_LIMIT + 1), dtype=np.float32)
    for h in range(HAND_LIMIT + 1):
        hidden = np.full((len(base), 1), h, dtype=np.float32)
        table[..., h] = (base**hidden)[:, 0].reshape(p.shape)
    table.flags.writeable = False
    return table


_POWERS = _power_table()


@kernel
def _decide_range(c, s, seats, masks, params, race, danger, powers, public, out, lo, hi):  # type: ignore[no-untyped-def]
    bot = (params, race, danger, powers, public)
    work = _work_arrays()
    for i in range(lo, hi):
        out[i] = _decide(c, s, i, seats[i], masks[i], bot, work)


_DECIDE = Entry(
    _decide_range,
    types.int64[::1],
    types.boolean[:, ::1],
    types.float64[::1],
    types.float64[::1],
    types.float64[::1],
    types.Array(types.float32, 3, "C", readonly=True),  # _POWERS
    types.boolean,  # public
    types.int64[::1],
)


@small_kernel
def _work_arrays():  # type: ignore[no-untyped-def]
    """The work arrays of `_decide` (`work`)."""
    return (
        np.empty((4, NUM_ISLANDS), dtype=np.int64),  # cards
        np.empty(3, dtype=np.int64),  # facts
        np.empty(5, dtype=np.float64),  # moment
        np.empty((3, NUM_ISLANDS), dtype=np.float64),  # terms of sums over the islands
        np.empty(NUM_ISLANDS, dtype=np.float32),  # the same in float32
        np.empty(NUM_ISLANDS, dtype=np.float64),  # worth
    )


@kernel
def _decide(c, s, g, seat, mask, bot, work):  # type: ignore[no-untyped-def]
    """The action of game g's player `seat`, to act: in PLAY the best card action while
    it gains enough, otherwise (and in DRAW) the end of the turn. `bot`: the parameters
    (`params`, `race`, `danger`), `_POWERS` and `public` (`HeuristicBot.act`); `work`:
    the work arrays (`cards`, `facts`, `moment`, the terms of sums over the islands,
    `worth`)."""
    params = bot[0]
    cards, facts, moment = work[0], work[1], work[2]
    q = 1 - seat
    hand = np.int64(s.hands[g, seat])
    mb, ob = np.int64(s.bridges[g, seat]), np.int64(s.bridges[g, q])
    ms, os_ = np.int64(s.stones[g, seat]), np.int64(s.stones[g, q])
    # What the player has not seen: neither in its hand or discards, nor known in the
    # opponent's hand (K6.7), nor face up.
    if bot[4]:  # `public`: the known cards, the others counted, never looked at
        theirs = np.int64(s.known[g, q])
        hidden = np.int64(s.hidden_hand[g, q]) + num_cards(np.int64(s.hands[g, q]))
        hidden -= num_cards(theirs)
    else:  # what `s` shows
        theirs = np.int64(s.hands[g, q])
        hidden = np.int64(s.hidden_hand[g, q])
    seen = hand + np.int64(s.discard_up[g]) + np.int64(s.discard_down[g, seat])
    filled = 0
    for x in range(NUM_ISLANDS):
        cards[_FACE, x] = 0
    for slot in range(ROW_SLOTS):
        x = s.face_up[g, slot]
        if x >= 0:
            cards[_FACE, x] += 1
            filled += 1
    unseen = 0
    for x in range(NUM_ISLANDS):
        cards[_KNOWN, x] = count_of(theirs, x)
        n = 2 - (count_of(seen, x) + cards[_KNOWN, x] + cards[_FACE, x])
        cards[_UNSEEN, x] = max(n, 0)
        unseen += cards[_UNSEEN, x]
    facts[_STONES] = c.stones_per_player
    facts[_NUM_UNSEEN] = unseen
    facts[_HIDDEN] = hidden
    # K8.2: from round 2 on; in round 1 fully only once the scoring is near.
    early = 1.0
    if s.num_scorings[g] == 0 and np.int64(s.pile_size[g]) + filled > 4:
        early = params[_EARLY_ROUND1]
    if not c.early_end:
        early = 0.0
    final_left = s.final_turns_left[g]
    moment[_MINE_NEXT] = 1.0 if final_left == 0 else 0.0
    moment[_THEIRS_NEXT] = 1.0 if final_left != 1 else 0.0
    moment[_EARLY] = early
    moment[_COST] = 0.0 if final_left > 0 else params[_CARD_COST]
    moment[_BEFORE] = _value(bot, work, mb, ob, ms, os_, hand)
    phase = s.phase[g]
    if phase == Phase.PLAY:
        best, gain = _best_card_action(bot, work, mb, ob, ms, os_, hand, mask)
        if gain > (0.0 if final_left > 0 else params[_PLAY_THRESHOLD]):
            return best
        if final_left > 0:
            return END_PLAY  # K3.3: a final turn ends with END_PLAY
    elif phase != Phase.DRAW:  # (no decision: the first legal action)
        return _first_legal(mask)
    _card_worth(bot, work, mb, ob, ms, os_, hand)
    return _end_turn(s, g, params, work, hand, mask)


# ---- the value of a position ---------------------------------------------------------


@small_kernel
def _at(table, i):  # type: ignore[no-untyped-def]
    """`table[i]`, 0 past its end and below 0."""
    return table[i] if 0 <= i < len(table) else 0.0


@small_kernel
def _sum12(t):  # type: ignore[no-untyped-def]
    """The sum of the 12 entries of `t` in numpy's pairwise order (8 partial sums
    paired, then the rest one by one), in `t`'s float type."""
    r = ((t[0] + t[1]) + (t[2] + t[3])) + ((t[4] + t[5]) + (t[6] + t[7]))
    return r + t[8] + t[9] + t[10] + t[11]


@small_kernel
def _paying(lines, x, counts):  # type: ignore[no-untyped-def]
    """The cards among `counts` (12,) of island x itself or of the far end of one of
    the lines of the line set `lines` at x: the cards that pay for a bridge on those
    lines at x (K4.1), or pair up with an x card to remove one (K4.2)."""
    n = counts[x]
    for j in range(_DEGREE[x]):
        n += ((lines >> _AT_LINE[x, j]) & 1) * counts[_AT_FAR[x, j]]
    return n


@small_kernel
def _power(powers, useful, unseen, hidden):  # type: ignore[no-untyped-def]
    """numpy's float32 (1 - p) ** hidden for p = useful / max(unseen, 1) (`_POWERS`;
    computed here for a count no legal position has)."""
    if 0 <= hidden <= HAND_LIMIT and 0 <= useful <= NUM_CARDS and 0 <= unseen <= NUM_CARDS:
        return powers[useful, unseen, hidden]
    p = min(max(np.float32(useful) / np.float32(max(unseen, 1)), _F0), _F1)
    return np.float32((_F1 - p) ** np.float32(hidden))


@small_kernel
def _at_least(need, known, hidden, useful, unseen, powers):  # type: ignore[no-untyped-def]
    """float32 chance that a hand holds at least `need` (1 or 2) useful cards: `known`
    of them are certain, the `hidden` other cards are each useful with chance useful /
    unseen (a binomial estimate of drawing from the unseen cards)."""
    if need - known <= 0:
        return _F1
    p = min(max(np.float32(useful) / np.float32(max(unseen, 1)), _F0), _F1)
    none = _power(powers, useful, unseen, hidden)
    p1 = _F1 - none
    if need - known == 1:
        return p1
    one = np.float32(hidden) * p * _power(powers, useful, unseen, max(hidden - 1, 0))
    return max(p1 - one, _F0)


@small_kernel
def _held_of(counts):  # type: ignore[no-untyped-def]
    """K5.1: the island set where the packed bridge counts `counts` (`bridge_counts`)
    reach the majority threshold."""
    out = 0
    for x in range(NUM_ISLANDS):
        if (counts >> (COUNT_BITS * x)) & 7 >= _MAJ[x]:
            out |= np.int64(1) << x
    return out


@small_kernel
def _claim_worth(x, stones, victim, counts, holds, victim_stones, spp, early, danger):  # type: ignore[no-untyped-def]
    """What a claim at island x is worth to the claimer, who has `stones` stones on the
    board (K5.3): its stone while its supply lasts, the stones the victim loses when its
    bridges there go back (K5.4), and the change in the victim's early-end danger
    (K8.2). `victim`: its line set, `counts` its packed bridge counts (`bridge_counts`),
    `holds` the islands it holds."""
    # Without its bridges at x the victim holds neither x nor a neighbour y joined to x
    # by one of them where it had no bridge to spare (two islands share at most one line).
    dropped = np.int64(1) << x
    for j in range(_DEGREE[x]):
        y = _AT_FAR[x, j]
        if (victim >> _AT_LINE[x, j]) & 1 and (counts >> (COUNT_BITS * y)) & 7 <= _MAJ[y]:
            dropped |= np.int64(1) << y
    lost = popcount(victim_stones & ~(holds & ~dropped))
    stone = 1 if stones < spp else 0
    n = popcount(victim)
    before = _at(danger, n)
    after = _at(danger, n - ((counts >> (COUNT_BITS * x)) & 7))
    return np.float64(stone + lost) + early * (after - before)


@kernel
def _value(bot, work, mb, ob, ms, os_, hand):  # type: ignore[no-untyped-def]
    """The value in stones, for the deciding player, of the position with its bridges
    `mb`, the opponent's `ob` (line sets), stones `ms`, `os_` (island sets) and its hand
    `hand` (a count word); `work` holds what it knows and the moment of the game (see
    `_decide`)."""
    params, race, danger, powers = bot[0], bot[1], bot[2], bot[3]
    cards, facts, moment, terms, terms32 = work[0], work[1], work[2], work[3], work[4]
    spp, unseen, hidden = facts[_STONES], facts[_NUM_UNSEEN], facts[_HIDDEN]
    free = ~(mb | ob) & ALL_LINES
    counts_m, counts_o, counts_f = bridge_counts(mb), bridge_counts(ob), bridge_counts(free)
    held_m, held_o = _held_of(counts_m), _held_of(counts_o)
    nm, no = popcount(mb), popcount(ob)
    sm, so = popcount(ms), popcount(os_)
    value = np.float64(sm - so)
    lone = np.float64(popcount(held_m & ~ms)) - np.float64(popcount(held_o & ~os_))
    value += params[_UNMARKED_VALUE] * lone
    value += params[_BRIDGE_VALUE] * np.float64(nm - no)
    early = moment[_EARLY]
    value += early * (_at(danger, no) - _at(danger, nm))
    for x in range(NUM_ISLANDS):
        cards[_MINE, x] = count_of(hand, x)
    behind = params[_BEHIND_FACTOR]
    double = np.float32(params[_DOUBLE_WEIGHT])
    take = np.float32(params[_TAKE_CHANCE])
    top = second = -_INF  # the player's best two claims
    for x in range(NUM_ISLANDS):
        cm = (counts_m >> (COUNT_BITS * x)) & 7
        co = (counts_o >> (COUNT_BITS * x)) & 7
        cf = (counts_f >> (COUNT_BITS * x)) & 7
        need_m = _MAJ[x] - cm
        need_o = _MAJ[x] - co
        open_m = 1 <= need_m <= cf and nm < BRIDGES_PER_PLAYER
        open_o = 1 <= need_o <= cf and no < BRIDGES_PER_PLAYER
        # The races: islands nobody holds, where a side has the free lines it needs; a
        # side that needs more bridges than the other where both can still win counts
        # `behind_factor` of it.
        m_behind = behind if open_o and need_o < need_m else 1.0
        o_behind = behind if open_m and need_m < need_o else 1.0
        terms[0, x] = _at(race, need_m) * (1.0 if open_m else 0.0) * m_behind
        terms[1, x] = _at(race, need_o) * (1.0 if open_o else 0.0) * o_behind
        # The opponent's claims on its next turn: the cards that pay for a bridge at
        # island x are x's own and those of the far ends of x's free lines (K4.1).
        r_unseen = _paying(free, x, cards[_UNSEEN])
        terms[2, x] = 0.0
        if open_o:
            r_known = _paying(free, x, cards[_KNOWN])
            if need_o == 1:
                p = _at_least(1, r_known, hidden, r_unseen, unseen, powers)
            else:
                p2 = _at_least(2, r_known, hidden, r_unseen, unseen, powers)
                p = double * p2 * (_F1 if need_o == 2 else _F0)
            cost = _claim_worth(x, so, mb, counts_m, held_m, ms, spp, early, danger)
            terms[2, x] = np.float64(p) * cost
        # Removals that would break the player's islands held with no bridge to spare
        # (a card of x or of the far end of one of the player's lines at x).
        terms32[x] = _F0
        if cm == _MAJ[x] and (ms >> x) & 1:
            b_known = _paying(mb, x, cards[_KNOWN])
            b_unseen = _paying(mb, x, cards[_UNSEEN])
            terms32[x] = _at_least(2, b_known, hidden, b_unseen, unseen, powers)
        # The player's own claims on its next turn (the opponent moves first).
        v = 0.0
        if open_m:
            r_mine = _paying(free, x, cards[_MINE])
            r_row = _paying(free, x, cards[_FACE])
            draw = min(np.float32(r_unseen) / np.float32(max(unseen, 1)), _F1)
            if need_m == 1:
                p = _F1 if r_mine >= 1 else take if r_row >= 1 else draw
            else:
                p_two = _F1 if r_mine >= 2 else max(draw, _F0) if r_mine >= 1 else _F0
                p = double * p_two * (_F1 if need_m == 2 else _F0)
            v = np.float64(p) * _claim_worth(x, sm, ob, counts_o, held_o, os_, spp, early, danger)
        if v > top:
            top, second = v, top
        elif v > second:
            second = v
    value += moment[_MINE_NEXT] * _sum12(terms[0])
    value -= moment[_THEIRS_NEXT] * _sum12(terms[1])
    value -= moment[_THEIRS_NEXT] * _sum12(terms[2])
    value -= moment[_THEIRS_NEXT] * params[_BREAK_WEIGHT] * np.float64(_sum12(terms32))
    # One card pays for one claim, and about one card comes per turn: only the best two
    # claims count (a sum over islands would count a card many times).
    own = top + params[_SECOND_WEIGHT] * second
    value += moment[_MINE_NEXT] * params[_OWN_WEIGHT] * own
    return value


@small_kernel
def _apply(a, mb, ob, ms, os_, spp):  # type: ignore[no-untyped-def]
    """The bridges and stones (mine, theirs, my stones, their stones) after PLACE or
    REMOVE action `a`: a PLACE claims at the card's island, then at the other end
    (K5.2, K5.3); then the opponent's stone losses (K5.4)."""
    line = _LINE[a]
    bit = np.int64(1) << line
    if _KIND[a] == Kind.PLACE:
        mb |= bit
        end = _CARD[a]
        for _ in range(2):
            at = _LINES_AT[end]
            if popcount(mb & at) == _MAJ[end]:
                if popcount(ms) < spp:
                    ms |= np.int64(1) << end
                ob &= ~at
            end = _LINE_A[line] + _LINE_B[line] - end
    else:
        ob &= ~bit
    return mb, ob, ms, os_ & held(ob)


# ---- playing cards -------------------------------------------------------------------


@kernel
def _best_card_action(bot, work, mb, ob, ms, os_, hand, mask):  # type: ignore[no-untyped-def]
    """The best legal PLACE or REMOVE and its gain (-inf where none is legal): value
    after less value before, less the cards' cost; the first of equal gains."""
    moment, spp = work[2], work[1][_STONES]
    best, gain = 0, -_INF
    for a in range(_CARD_ACTIONS):
        if not mask[a]:
            continue
        mb2, ob2, ms2, os2 = _apply(a, mb, ob, ms, os_, spp)
        spent = np.int64(1) << (2 * _CARD[a])
        if _CARD2[a] >= 0:
            spent += np.int64(1) << (2 * _CARD2[a])
        after = _value(bot, work, mb2, ob2, ms2, os2, hand - spent)
        pays = 1.0 if _KIND[a] == Kind.PLACE else 2.0  # cards each PLACE / REMOVE spends
        score = after - moment[_BEFORE] - moment[_COST] * pays
        if score > gain:
            best, gain = a, score
    return best, gain


# ---- ending the turn -----------------------------------------------------------------


@kernel
def _card_worth(bot, work, mb, ob, ms, os_, hand):  # type: ignore[no-untyped-def]
    """Into `worth` (12, in `work`): the worth of one more card of each island, the best
    gain of a bridge it pays for (K4.1) or of a removal it completes a pair for (K4.2)
    on the board as it is, never below 0."""
    moment, spp, worth = work[2], work[1][_STONES], work[5]
    for x in range(NUM_ISLANDS):
        worth[x] = 0.0
    free = ~(mb | ob) & ALL_LINES if popcount(mb) < BRIDGES_PER_PLAYER else 0
    for k in range(2):  # places (the card of end a stands for the line), then removals
        lines = free if k == 0 else ob
        for line in range(NUM_LINES):
            if not (lines >> line) & 1:
                continue
            a = 2 * line if k == 0 else REMOVE_BASE + REMOVE_PAIRS * line + 2
            mb2, ob2, ms2, os2 = _apply(a, mb, ob, ms, os_, spp)
            after = _value(bot, work, mb2, ob2, ms2, os2, hand)
            gain = max(after - moment[_BEFORE], 0.0)
            ends_a, ends_b = _LINE_A[line], _LINE_B[line]
            for e in range(2):
                x = ends_a if e == 0 else ends_b
                other = ends_b if e == 0 else ends_a
                # A removal with this card: another card of either end must be in hand.
                if k == 0 or count_of(hand, other) + count_of(hand, x) >= 1:
                    if gain > worth[x]:
                        worth[x] = gain


@kernel
def _end_turn(s, g, params, work, hand, mask):  # type: ignore[no-untyped-def]
    """TAKE, DRAW, SKIP, END_PLAY or a hand-back for the player ending its turn (K6),
    by the worth of the cards (`_card_worth`)."""
    cards, unseen, weighted, worth = work[0], work[1][_NUM_UNSEEN], work[3][0], work[5]
    best_slot, take_worth, filled = 0, -_INF, False
    for slot in range(ROW_SLOTS):
        x = s.face_up[g, slot]
        if x >= 0:
            filled = True
            if worth[x] > take_worth:
                best_slot, take_worth = slot, worth[x]
    for x in range(NUM_ISLANDS):
        weighted[x] = np.float64(cards[_UNSEEN, x]) * worth[x]
    draw_worth = _sum12(weighted) / np.float64(max(unseen, 1))
    has_pile = s.pile_size[g] > 0
    new_worth = max(take_worth, draw_worth if has_pile else -_INF)
    take_margin = params[_TAKE_MARGIN]
    prefer_take = filled and (not has_pile or take_worth >= draw_worth + take_margin)
    choice = TAKE_BASE + best_slot if prefer_take else DRAW
    # A full hand: swap its least useful card (hand it back, K6.4) or skip.
    if num_cards(hand) >= HAND_LIMIT:
        worst, worst_worth = 0, _INF
        for x in range(NUM_ISLANDS):
            if count_of(hand, x) > 0 and worth[x] < worst_worth:
                worst, worst_worth = x, worth[x]
        worst_worth = worth[worst]
        if new_worth - worst_worth > params[_SWAP_MARGIN] or not mask[SKIP]:
            choice = END_PLAY if s.phase[g] == Phase.PLAY else DISCARD_BASE + worst
        else:
            choice = SKIP
    if mask[choice]:
        return choice
    # Corner cases: the first legal of DRAW, TAKE 0..2, SKIP, END_PLAY, then any.
    for i in range(len(_FALLBACK)):
        if mask[_FALLBACK[i]]:
            return _FALLBACK[i]
    return _first_legal(mask)


@small_kernel
def _first_legal(mask):  # type: ignore[no-untyped-def]
    """The first legal action (0 when none is)."""
    for a in range(NUM_ACTIONS):
        if mask[a]:
            return a
    return 0


_SIGNED = ("play_threshold", "take_margin", "swap_margin")  # may be below 0
_CHANCES = ("take_chance", "early_round1", "behind_factor")  # shares, at most 1


def _check_number(name: str, value: object, signed: bool) -> None:
    """TypeError unless `value` is a real number (not a bool); ValueError if it is not
    finite, or below 0 unless `signed`."""
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"HeuristicBot.{name} must be a number, got {value!r}")
    if not np.isfinite(value) or (not signed and value < 0):
        allowed = "a finite number" if signed else "a finite number >= 0"
        raise ValueError(f"HeuristicBot.{name} must be {allowed}, got {value}")
