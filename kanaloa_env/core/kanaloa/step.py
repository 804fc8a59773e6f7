"""`step`: validate the actions, apply one decision per game, resolve what follows.

Order (STYLE.md 3.3): (1) validate every game's action before any write, so a bad
batch raises and leaves the state as it was; (2) dispatch the games by phase, one
function per phase; (3) automatic events in sequence (finish the trick, move the
winner, dolphin, lapping, round end, removal, variant payouts, next deal); (4)
rewards and the cached mask.

Speed (the step runs ~10^3 batch operations a second on 8192 games, and at batch
size 1 each numpy call's ~1-3 us is the whole cost): the card play is whole-batch
arithmetic; the other phases and the automatic events run once per step on the
index set of their games (`_Flow`); per-game values are gathered with `take` on
flat indices; wrap-arounds are arithmetic, not masked in-place updates; index sets
come from `x.nonzero()[0]` (np.flatnonzero adds a Python wrapper). For small
batches: tests use `np.count_nonzero` and reductions `ufunc.reduce` (`.any()`,
`.all()`, `.max()` go through Python wrappers), constant operands are one-element
arrays (`route.const`; a scalar operand is converted on every call), and what
follows a card comes from lookup tables (`_PLAY_INFO`, `_LEAD_AFTER`, `_trick_end`).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

import numpy as np

from ..batch import check_actions
from . import masks, route
from .constants import (
    ANNOUNCE,
    CARD_SUIT,
    CARD_TYPE_BITS,
    DOLPHIN_TAKE,
    NO_PLAYER,
    NO_SUIT,
    NUM_ACTIONS,
    OCTOPUS,
    PAYOUT_STEPS,
    PHASE_NAMES,
    REMOVE_BASE,
    TRICKS_PER_ROUND,
    Pending,
    Phase,
    action_name,
)
from .route import const, flat
from .setup import start_round
from .state import State
from .tricks import add_played, trick_winner_seat


def step(state: State, actions: np.ndarray) -> State:
    """Apply one decision in every game of the batch and return the new state.

    Args:
        state: a batch of `B` games; not modified.
        actions: (B,) integer actions (DESIGN.md table) for each game's
            `current_player`. Games that are over ignore their entry.

    Returns:
        A new `State`. `rewards` holds this step's rewards (R10), `terminated` and
        `truncated` the end flags, `legal` the next mask.

    Raises:
        TypeError: `actions` is not an integer array.
        ValueError: wrong shape, out of range, or illegal in some game (the message
            names the games, players, phases and actions at fault); the state is
            then unchanged.
    """
    actions = validate_actions(state, actions)
    new = state.copy()
    _apply(new, actions)
    return new


def step_inplace(state: State, actions: np.ndarray, validate: bool = True) -> State:
    """Like `step`, but updates `state`'s arrays in place and returns it.

    Faster (no copy); on an error nothing has been written. `validate=False` skips
    the checks for callers that have already checked the actions against
    `state.legal` (an unchecked illegal action corrupts the state).
    """
    if validate:
        actions = validate_actions(state, actions)
    _apply(state, actions)
    return state


def validate_actions(state: State, actions: object) -> np.ndarray:
    """Check `actions` against the batch; return them as an int64 array or raise.

    Raises:
        TypeError: not an integer array.
        ValueError: wrong shape, or an action out of range or illegal in a game that
            is not over (the message lists the games, players, phases and actions).
    """
    return check_actions(actions, state.legal, lambda: state.phase != _GAME_OVER, _describe(state))


def _describe(state: State) -> Callable[[int, int], str]:
    """What `check_actions` says of game g's action a: player, phase and the action."""

    def describe(g: int, act: int) -> str:
        what = action_name(act) if 0 <= act < NUM_ACTIONS else f"out of range 0..{NUM_ACTIONS - 1}"
        return (
            f"player {int(state.current_player[g])} in phase "
            f"{PHASE_NAMES[int(state.phase[g])]} cannot take action {act} ({what})"
        )

    return describe


# Plain ints: IntEnum attribute access and conversion cost more than the numpy work
# on small batches.
_ANNOUNCE_PHASE, _PLAY, _REMOVE_OCTOPUS, _REMOVE_ROUND_END, _DOLPHIN, _GAME_OVER = (
    int(p) for p in Phase
)
_PENDING_NONE, _PENDING_TRICK, _PENDING_PAYOUT = (int(p) for p in Pending)
# Inside a step only: the round is over and its deal waits for the end of the step,
# so that all the step's new rounds are dealt in one call (`_settle`).
_NEW_ROUND = len(Phase)

# Card-type tables with one more entry, _NO_CARD, that plays nothing: games not in
# phase play go through the whole-batch play code with it and come out unchanged.
_NO_CARD = OCTOPUS + 1
_CARD_BITS = np.append(CARD_TYPE_BITS, np.uint64(0))
# By suit to follow (rows 0..3, then no suit) and card type (columns, with
# _NO_CARD): the suit to follow after the card (R4.2), and `_PLAY_INFO`: bits 0-3
# the void the card shows, as a one-bit set of the suit to follow (a Tiki card of
# another suit, R4.3), bit 7 an octopus (R4.4).
_CARD_KEYS = const(_NO_CARD + 1)  # row length
_LEADS = [0, 1, 2, 3, NO_SUIT]
_SUITS = [*CARD_SUIT, NO_SUIT]
_LEAD_AFTER = np.array([[s if lead < 0 else lead for s in _SUITS] for lead in _LEADS], np.int8)
_PLAY_INFO = np.array(
    [
        [
            (1 << lead if lead >= 0 and s >= 0 and s != lead else 0) | 128 * (c == OCTOPUS)
            for c, s in enumerate(_SUITS)
        ]
        for lead in _LEADS
    ],
    np.uint8,
)
_LEAD_AFTER, _PLAY_INFO = _LEAD_AFTER.ravel(), _PLAY_INFO.ravel()
_VOID_BITS, _OCTOPUS_FLAG = const(15, np.uint8), const(128, np.uint8)
_I8_ONE = const(1, np.int8)
_PHASE_PLAY = const(_PLAY, np.int8)
_PHASE_REMOVE_ROUND_END = const(_REMOVE_ROUND_END, np.int8)


# By the number of seats P: the next seat of each seat in turn order.
_NEXT_SEAT = tuple(((np.arange(p) + 1) % max(p, 1)).astype(np.int8) for p in range(9))


@cache
def _trick_end(num_players: int) -> np.ndarray:
    """By the history slot of a round's card (0..8P, one past for a round that is
    over): whether it is the last card of its trick."""
    return np.arange(TRICKS_PER_ROUND * num_players + 1) % num_players == num_players - 1


class _Flow:
    """What the decisions of one step set in motion, gathered across the phases so
    that each automatic event runs once per step on all its games. Games are
    independent, so the batching changes no game; it saves numpy calls, which cost
    more than the arithmetic on a few hundred games.
    """

    __slots__ = ("tricks", "moves", "settled", "payouts", "next_trick")

    def __init__(self) -> None:
        self.tricks: list[np.ndarray] = []  # games whose trick is complete (R5)
        # (games, seat, pending, dolphin allowed): boats moving forward (R6.2, R6.3)
        self.moves: list[tuple[np.ndarray, np.ndarray, int | np.ndarray, bool]] = []
        self.settled: list[np.ndarray] = []  # trick over, nothing pending: what next (R7.1)
        self.payouts: list[tuple[np.ndarray, int | np.ndarray]] = []  # (games, from rank), R7.3
        self.next_trick: list[np.ndarray] = []  # games starting a trick: trump due (R5.5)

    # The adders skip empty sets, so an event with no games costs nothing.
    def add_tricks(self, idx: np.ndarray) -> None:
        if len(idx):
            self.tricks.append(idx)

    def add_moves(
        self, idx: np.ndarray, seat: np.ndarray, pending: int | np.ndarray, allow: bool
    ) -> None:
        if len(idx):
            self.moves.append((idx, seat, pending, allow))

    def add_settled(self, idx: np.ndarray) -> None:
        if len(idx):
            self.settled.append(idx)

    def add_payouts(self, idx: np.ndarray, start: int | np.ndarray) -> None:
        if len(idx):
            self.payouts.append((idx, start))


def _apply(s: State, a: np.ndarray) -> None:
    s.rewards.fill(0)
    phase = s.phase
    B = len(phase)
    play = phase == _PHASE_PLAY
    n_play = np.count_nonzero(play)
    flow = _Flow()
    # Most games play a card: that runs as whole-batch arithmetic (`play` masks the
    # others out); the other phases on their index sets.
    if n_play == B:
        flow.add_tricks(_play_cards(s, a, None))
    else:
        if n_play:
            flow.add_tricks(_play_cards(s, a, play))
        rest = (~play).nonzero()[0]
        ph = phase.take(rest)
        if np.count_nonzero(ph == _ANNOUNCE_PHASE):
            g = rest[ph == _ANNOUNCE_PHASE]
            _announce(s, g, a.take(g))
        rem = (ph == _REMOVE_OCTOPUS) | (ph == _REMOVE_ROUND_END)
        if np.count_nonzero(rem):
            g = rest[rem]
            _remove(s, g, a.take(g), flow)
        if np.count_nonzero(ph == _DOLPHIN):
            g = rest[ph == _DOLPHIN]
            _dolphin(s, g, a.take(g), flow)
    # The automatic events, in the order of the rules.
    if flow.tricks:
        _finish_trick(s, _joined(flow.tricks), flow)
    if flow.moves:
        _moves(s, flow)
    if flow.settled:
        _after_trick(s, _joined(flow.settled), flow)
    if flow.payouts:
        idx = _joined([g for g, _ in flow.payouts])
        if all(np.ndim(r) == 0 and r == 0 for _, r in flow.payouts):
            start: int | np.ndarray = 0
        else:
            start = _joined(
                [r if isinstance(r, np.ndarray) else np.full(len(g), r) for g, r in flow.payouts]
            )
        _payouts(s, idx, start)
    _settle(s, flow)
    masks.refresh(s)


def _joined(parts: list[np.ndarray]) -> np.ndarray:
    return parts[0] if len(parts) == 1 else np.concatenate(parts)


def _settle(s: State, flow: _Flow) -> None:
    """The end of a step: deal the new rounds, fix the trumps, set games between tricks.

    All the step's new rounds (`_NEW_ROUND`) are dealt in one call (R3.1). The
    trump of every game that starts a trick or a round is fixed now (R5.5, R8.2).
    No trick is open while a game waits for a dolphin decision or the round-end
    removal, or is over: clear the finished trick's suit to follow and show the
    trump the leading boat gives now (R8.2; fixed again when the next trick starts,
    R5.5). This is what a scenario of the position derives, so `from_scenario`
    gives back an identical observation. Idempotent for games already over.
    Nothing moves a boat here, so one `trump_of` serves all of them.
    """
    idx = (s.phase >= _PHASE_REMOVE_ROUND_END).nonzero()[0]
    games = _joined([*flow.next_trick, idx]) if flow.next_trick else idx
    if games.size == 0:
        return
    trump = route.trump_of(s, games)
    s.trump[games] = trump
    if idx.size:
        s.lead_suit[idx] = NO_SUIT
        new = s.phase.take(idx) == _NEW_ROUND
        if np.count_nonzero(new):
            start_round(s, idx[new], trump=trump[len(games) - len(idx) :][new])


# ---- phase handlers ------------------------------------------------------------


def _announce(s: State, idx: np.ndarray, a: np.ndarray) -> None:
    """R3.2: record the decision; after the last player, the first trick starts."""
    P = s.num_players
    seat = s.current_player.take(idx)
    flat(s.announced)[idx * P + seat] = a == ANNOUNCE
    nxt = _NEXT_SEAT[P].take(seat)
    s.current_player[idx] = nxt
    s.phase[idx[nxt == s.starting_player.take(idx)]] = _PLAY


def _play_cards(s: State, a: np.ndarray, play: np.ndarray | None) -> np.ndarray:
    """R4: every game with `play` (B,) set plays card `a` to its trick (all games when
    `play` is None); an octopus asks for a removal (R4.4).

    Whole-batch arithmetic: the other games play `_NO_CARD`, which changes nothing.
    Returns the games whose trick is now complete.
    """
    P, B = s.num_players, len(a)
    H = s.history.shape[1]
    cur = s.current_player
    if play is None:
        card = a
        seat = cur.astype(np.intp)
    else:
        card = np.where(play, a, _NO_CARD)
        # Over games have seat -1, which would name another game's last seat.
        seat = np.maximum(cur, 0).astype(np.intp)
    fi = route.flat_index(B, P, seat)
    hand = s.hands.take(fi)
    kind = _CARD_BITS.take(card)
    bits = hand & kind
    flat(s.hands)[fi] = hand ^ (bits & -bits)  # one copy of the card type
    add_played(s.played, kind)
    n = s.num_played
    slot = n.astype(np.intp)  # the card's history slot in its game's row
    pos = route.flat_index(B, H, slot)
    card8 = card.astype(np.int8)  # (a scatter that casts costs more than the cast)
    if play is None:
        flat(s.history)[pos] = card8
        n += _I8_ONE
    else:
        g = play.nonzero()[0]
        flat(s.history)[pos.take(g)] = card8.take(g)
        n += play
    # The trick is complete once every player has played to it: its last slot.
    complete = _trick_end(P).take(slot)
    if play is None:
        nxt = ~complete
    else:
        complete &= play
        nxt = play & ~complete
    # R4.2-R4.4 from one table index: the row of the suit to follow (no suit, -1,
    # wraps to the last row), the column of the card.
    key = s.lead_suit * _CARD_KEYS + card
    info = _PLAY_INFO.take(key)
    _LEAD_AFTER.take(key, out=s.lead_suit)
    if B > 64 or np.count_nonzero(info):  # (most cards at small batches: nothing)
        flat(s.voids)[fi] |= info & _VOID_BITS  # (whole-batch: cheaper than gathering the few)
        octo = (info >= _OCTOPUS_FLAG).nonzero()[0]
        if octo.size:
            wait = octo[route.can_remove(s, octo)]
            s.phase[wait] = _REMOVE_OCTOPUS  # the same player removes first (R4.4)
            complete[wait] = False
            nxt[wait] = False
    # The next player: on few games one lookup (two calls); on many, int8 arithmetic
    # (a masked copy costs several ns a game).
    if B <= 64:
        np.copyto(cur, _NEXT_SEAT[P].take(seat), where=nxt)
    else:
        cur += nxt
        cur -= (cur == const(P, np.int8)) * const(P, np.int8)
    return complete.nonzero()[0]


def _after_card(s: State, idx: np.ndarray) -> np.ndarray:
    """Next player, or (returned) the games whose trick is now complete."""
    P = s.num_players
    complete = _trick_end(P).take(s.num_played.take(idx) - _I8_ONE)  # the card's slot
    nxt = idx[~complete]
    s.current_player[nxt] = _NEXT_SEAT[P].take(s.current_player.take(nxt))
    s.phase[nxt] = _PLAY
    return idx[complete]


def _remove(s: State, idx: np.ndarray, a: np.ndarray, flow: _Flow) -> None:
    """R4.4 / R7.1: remove the chosen free ocean card, then go on: the trick after
    an octopus, the variant payouts at the end of a round."""
    seat = s.current_player.take(idx)
    slot = route.slot_ahead(s, idx, seat, a - REMOVE_BASE)
    route.remove_slot(s, idx, slot)
    octo = s.phase.take(idx) == _REMOVE_OCTOPUS
    if np.count_nonzero(octo) < len(octo):
        flow.add_payouts(idx[~octo], 0)
        idx = idx[octo]
    if idx.size:
        flow.add_tricks(_after_card(s, idx))


def _dolphin(s: State, idx: np.ndarray, a: np.ndarray, flow: _Flow) -> None:
    """R6.3: take or decline the dolphin's bonus move, then continue what was pending."""
    seat = s.current_player.take(idx).astype(np.intp)
    take = a == DOLPHIN_TAKE
    pending = s.pending.take(idx)
    s.pending[idx] = _PENDING_NONE
    if np.count_nonzero(take):
        t = take.nonzero()[0]
        flow.add_moves(idx[t], seat[t], pending[t], s.config.dolphin_chain)
        keep = ~take
        idx, seat, pending = idx[keep], seat[keep], pending[keep]
    _continue(s, idx, seat, pending, flow)


def _continue(
    s: State, idx: np.ndarray, seat: np.ndarray, pending: np.ndarray, flow: _Flow
) -> None:
    """Games past a dolphin decision go on with what was pending: the trick's
    aftermath, or the payouts after `seat`'s."""
    trick = pending == _PENDING_TRICK
    if np.count_nonzero(trick) == len(trick):
        flow.add_settled(idx)
        return
    flow.add_settled(idx[trick])
    pay = pending == _PENDING_PAYOUT
    g = idx[pay]
    flow.add_payouts(g, (seat[pay] - s.starting_player.take(g)) % s.num_players + 1)


# ---- automatic events ----------------------------------------------------------


def _finish_trick(s: State, idx: np.ndarray, flow: _Flow) -> None:
    """R5: decide the trick; the winner moves (R6.2) unless they announced (R7.4)."""
    P = s.num_players
    H = s.history.shape[1]
    tn = s.trick_number.take(idx)
    first = idx * const(H) + tn * const(P, np.int8)
    cards = s.history.take(first[:, None] + route.local_index(P, 1))
    w = trick_winner_seat(cards, s.trump.take(idx), s.lead_suit.take(idx), s.leader.take(idx))
    fi = route.seat_index(s, idx, w)
    flat(s.tricks_won)[fi] += _I8_ONE
    s.trick_number[idx] = tn + _I8_ONE
    s.leader[idx] = w  # R3.3: the winner leads the next trick
    s.current_player[idx] = w
    if s.config.nil_announcement and not s.config.announced_boat_moves:
        # Without the variant nobody announces, so every winner moves.
        moves = s.announced.take(fi) != 1
        if np.count_nonzero(moves) < len(moves):
            flow.add_settled(idx[~moves])
            idx, w = idx[moves], w[moves]
    flow.add_moves(idx, w, _PENDING_TRICK, True)


def _moves(s: State, flow: _Flow) -> None:
    """R6.2: the step's boat moves (trick winners, dolphin moves taken), then lapping
    and the dolphin (`_after_move`); games that go on continue what was pending."""
    pending: int | np.ndarray
    allow: bool | np.ndarray
    if len(flow.moves) == 1:
        idx, seat, pending, allow = flow.moves[0]
    else:
        idx = np.concatenate([m[0] for m in flow.moves])
        seat = np.concatenate([m[1] for m in flow.moves])
        pending = np.concatenate([np.full(len(m[0]), m[2], np.int8) for m in flow.moves])
        allow = np.concatenate([np.full(len(m[0]), m[3]) for m in flow.moves])
    pres = route.present_bits(s, idx)
    moved = route.move_forward(s, idx, seat, pres)
    go = _after_move(s, idx, seat, pending, allow, pres, moved)
    if not isinstance(pending, np.ndarray):  # trick winners only
        flow.add_settled(idx[go])
    else:
        _continue(s, idx[go], seat[go], pending[go], flow)


def _after_move(
    s: State,
    idx: np.ndarray,
    seat: np.ndarray,
    pending: int | np.ndarray,
    allow_dolphin: bool | np.ndarray,
    pres: np.ndarray | None = None,
    moved: tuple[np.ndarray, np.ndarray] | None = None,
) -> np.ndarray:
    """After a move: lapping (R9.2), then the dolphin (R6.3) where the move ended.

    `pending` (scalar or (b,)) is what continues after a dolphin decision,
    `allow_dolphin` (scalar or (b,)) whether the move may end in one; `pres` the
    games' `route.present_bits` and `moved` what `route.move_forward` returned,
    when the caller has them.
    Returns (b,) bool: the game goes on at once (not won, no dolphin decision waiting).
    """
    go = ~_check_lapped(s, idx, seat, pres)
    check = go if allow_dolphin is True else go & allow_dolphin
    while np.count_nonzero(check):
        e = (check & route.dolphin_eligible(s, idx, seat, pres, moved)).nonzero()[0]
        if e.size == 0:
            break
        if s.config.dolphin == "optional":
            g = idx[e]
            s.phase[g] = _DOLPHIN
            s.pending[g] = pending[e] if isinstance(pending, np.ndarray) else pending
            s.current_player[g] = seat[e]
            go[e] = False
            break
        to, _ = route.move_forward(s, idx[e], seat[e], None if pres is None else pres[e])
        if moved is not None:  # the other boats stay where they were
            moved[0][e] = to
        go[e] = ~_check_lapped(s, idx[e], seat[e], None if pres is None else pres[e])
        if not s.config.dolphin_chain:
            break
        check = np.zeros_like(go)
        check[e] = go[e]  # only a bonus move can chain into another one
    return go


def _check_lapped(
    s: State, idx: np.ndarray, seat: np.ndarray, pres: np.ndarray | None = None
) -> np.ndarray:
    """End the games where `seat` lapped the last boat (R9.2); (b,) bool of those."""
    won = route.has_lapped(s, idx, seat, pres)
    if np.count_nonzero(won):
        _end_game(s, idx[won], seat[won])
    return won


def _after_trick(s: State, idx: np.ndarray, flow: _Flow) -> None:
    """Next trick (trump fixed now, R5.5) or the end of the round (R7.1)."""
    if len(idx) == 0:
        return
    more = s.trick_number.take(idx) < const(TRICKS_PER_ROUND, np.int8)
    if np.count_nonzero(more) == len(more):
        g, end = idx, None
    else:
        g, end = idx[more], idx[~more]
    s.phase[g] = _PLAY
    s.lead_suit[g] = NO_SUIT
    flow.next_trick.append(g)  # its trump: `_settle`
    if end is not None:
        wait = route.can_remove(s, end)
        w = end[wait]
        s.phase[w] = _REMOVE_ROUND_END
        s.current_player[w] = s.leader.take(w)
        flow.add_payouts(end[~wait], 0)


def _payouts(s: State, idx: np.ndarray, start: int | np.ndarray) -> None:
    """R7.3: announced players who won no trick move three times, in turn order.

    `start` (scalar or (b,)) is the turn-order rank (0 = the round's starting
    player) from which payouts continue; a game that waits for a dolphin decision
    stops here.
    """
    if len(idx) == 0:
        return
    if not s.config.nil_announcement:
        _end_round(s, idx)
        return
    P = s.num_players
    go = np.ones(len(idx), dtype=bool)
    for r in range(P):
        seat = ((s.starting_player.take(idx) + r) % P).astype(np.intp)
        fi = idx * P + seat
        pay = go & (start <= r) & (s.announced.take(fi) == 1) & (s.tricks_won.take(fi) == 0)
        if not np.count_nonzero(pay):
            continue
        p = pay.nonzero()[0]
        alive = np.ones(len(p), dtype=bool)
        for _ in range(PAYOUT_STEPS):
            q = p[alive]
            route.move_forward(s, idx[q], seat[q])
            alive[alive] = ~_check_lapped(s, idx[q], seat[q])
        go[p[~alive]] = False
        q = p[alive]
        # R7.3: the dolphin applies only where the third step ends.
        go[q] = _after_move(s, idx[q], seat[q], _PENDING_PAYOUT, allow_dolphin=True)
    _end_round(s, idx[go])


def _end_round(s: State, idx: np.ndarray) -> None:
    """R7.5 / R9.4: the last trick's winner starts the next round, or truncate.

    The deal waits for the end of the step (`_NEW_ROUND`, see `_settle`).
    """
    if len(idx) == 0:
        return
    last = s.round.take(idx) >= s.config.max_rounds
    if np.count_nonzero(last):
        t = idx[last]
        s.truncated[t] = True
        s.phase[t] = _GAME_OVER
        s.current_player[t] = NO_PLAYER
        if s.config.reward == "rank":
            s.rewards[t] = _rank_rewards(s.progress[t])
        idx = idx[~last]
    s.round[idx] += 1
    s.starting_player[idx] = s.leader.take(idx)
    s.phase[idx] = _NEW_ROUND


def _end_game(s: State, idx: np.ndarray, seat: np.ndarray) -> None:
    """R9.2 / R10: the game is won by `seat`; set the rewards."""
    P = s.num_players
    s.terminated[idx] = True
    s.winner[idx] = seat
    s.phase[idx] = _GAME_OVER
    s.current_player[idx] = NO_PLAYER
    s.pending[idx] = _PENDING_NONE
    if s.config.reward == "rank":
        s.rewards[idx] = _rank_rewards(s.progress[idx])
    else:
        r = np.full((len(idx), P), -1.0 / (P - 1), dtype=np.float32)
        r[np.arange(len(idx)), seat] = 1.0
        s.rewards[idx] = r


def _rank_rewards(progress: np.ndarray) -> np.ndarray:
    """(b, P) rewards spread from +1 (furthest boat) to -1 (last), ties sharing (R10)."""
    P = progress.shape[1]
    greater = (progress[:, None, :] > progress[:, :, None]).sum(axis=2)
    equal = (progress[:, None, :] == progress[:, :, None]).sum(axis=2) - 1
    rank = greater + equal / 2.0
    return (1.0 - 2.0 * rank / (P - 1)).astype(np.float32)
