"""`step`: validate the actions, apply one decision per game, resolve what follows.

Order (STYLE.md 3.3): (1) validate every game's action before any write, so a bad
batch raises and leaves the state as it was; (2) dispatch the games by phase, one
function per phase; (3) automatic events in sequence (finish the trick, move the
winner, dolphin, lapping, round end, removal, variant payouts, next deal); (4)
rewards and the cached mask.
"""

from __future__ import annotations

import numpy as np

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
from .setup import start_round
from .state import State
from .tricks import add_played, trick_winner

_ONE = np.uint64(1)


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
    a = np.asarray(actions)
    if a.dtype.kind not in "iu":
        raise TypeError(
            f"actions must be an integer array of shape ({state.batch_size},), got dtype {a.dtype}"
        )
    if a.shape != (state.batch_size,):
        raise ValueError(f"actions must have shape ({state.batch_size},), got {a.shape}")
    if a.dtype != np.int64:
        a = a.astype(np.int64)
    over = state.phase == _GAME_OVER
    if a.min() >= 0 and a.max() < NUM_ACTIONS:
        ok = state.legal[_rows(len(a)), a] | over
    else:
        in_range = (a >= 0) & (a < NUM_ACTIONS)
        ok = over | (in_range & state.legal[_rows(len(a)), np.where(in_range, a, 0)])
    if not ok.all():
        bad = np.flatnonzero(~ok)
        parts = []
        for g in bad[:10]:
            act = int(a[g])
            what = action_name(act) if 0 <= act < NUM_ACTIONS else "out of range 0..65"
            parts.append(
                f"game {g}: player {int(state.current_player[g])} in phase "
                f"{PHASE_NAMES[int(state.phase[g])]} cannot take action {act} ({what})"
            )
        more = f" (and {len(bad) - 10} more)" if len(bad) > 10 else ""
        raise ValueError("illegal actions: " + "; ".join(parts) + more)
    return a


_ROWS: dict[int, np.ndarray] = {}


def _rows(n: int) -> np.ndarray:
    """A cached read-only `np.arange(n)`."""
    rows = _ROWS.get(n)
    if rows is None:
        if len(_ROWS) > 64:
            _ROWS.clear()
        rows = _ROWS[n] = np.arange(n)
        rows.flags.writeable = False
    return rows


# Plain ints: IntEnum attribute access and conversion cost more than the numpy work
# on small batches.
_ANNOUNCE_PHASE, _PLAY, _REMOVE_OCTOPUS, _REMOVE_ROUND_END, _DOLPHIN, _GAME_OVER = (
    int(p) for p in Phase
)
_PENDING_NONE, _PENDING_TRICK, _PENDING_PAYOUT = (int(p) for p in Pending)


def _apply(s: State, a: np.ndarray) -> None:
    s.rewards.fill(0)
    counts = np.bincount(s.phase, minlength=len(Phase))
    first = int(s.phase[0])
    if counts[first] == s.batch_size:  # every game in one phase: skip the index sets
        if first != _GAME_OVER:
            _HANDLERS[first](s, _rows(s.batch_size), a)
    else:
        groups = [(ph, np.flatnonzero(s.phase == ph)) for ph in range(_GAME_OVER) if counts[ph]]
        for ph, idx in groups:
            _HANDLERS[ph](s, idx, a[idx])
    _between_tricks(s)
    masks.refresh(s)


def _between_tricks(s: State) -> None:
    """No trick is open while a game waits for a dolphin decision or the round-end
    removal, or is over: clear the finished trick's suit to follow and show the
    trump the leading boat gives now (R8.2; fixed again when the next trick starts,
    R5.5). This is what a scenario of the position derives, so `from_scenario`
    gives back an identical observation. Idempotent for games already over.
    """
    idx = np.flatnonzero(s.phase >= _REMOVE_ROUND_END)
    if idx.size:
        s.lead_suit[idx] = NO_SUIT
        s.trump[idx] = route.trump_of(s, idx)


# ---- phase handlers ------------------------------------------------------------


def _announce(s: State, idx: np.ndarray, a: np.ndarray) -> None:
    """R3.2: record the decision; after the last player, the first trick starts."""
    P = s.num_players
    seat = s.current_player[idx]
    s.announced[idx, seat] = a == ANNOUNCE
    nxt = (seat + 1) % P
    s.current_player[idx] = nxt
    s.phase[idx[nxt == s.starting_player[idx]]] = _PLAY


def _play_card(s: State, idx: np.ndarray, card: np.ndarray) -> None:
    """R4: play a card to the trick; an octopus asks for a removal (R4.4)."""
    seat = s.current_player[idx]
    hand = s.hands[idx, seat]
    bits = hand & CARD_TYPE_BITS.take(card)
    s.hands[idx, seat] = hand ^ (bits & (~bits + _ONE))  # one copy of the card type
    n = s.num_played[idx]
    s.history[idx, n] = card
    s.played[idx] = add_played(s.played[idx], card)
    s.num_played[idx] = n + 1
    # R4.2: the first Tiki card sets the suit to follow (specials have suit -1 = none).
    suit = CARD_SUIT.take(card)
    lead = s.lead_suit[idx]
    led = lead != NO_SUIT
    s.lead_suit[idx] = np.where(led, lead, suit)
    off = led & (suit != lead) & (suit != NO_SUIT)  # did not follow: a public void
    if off.any():
        s.voids[idx[off], seat[off]] |= np.left_shift(1, lead[off]).astype(np.uint8)
    octo = card == OCTOPUS
    if octo.any():
        g = idx[octo]
        wait = route.can_remove(s, g)
        s.phase[g[wait]] = _REMOVE_OCTOPUS
        idx = np.concatenate([idx[~octo], g[~wait]])
    _after_card(s, idx)


def _after_card(s: State, idx: np.ndarray) -> None:
    """Next player, or finish the trick once every player has played."""
    P = s.num_players
    complete = s.num_played[idx] == (s.trick_number[idx] + 1) * P
    nxt = idx[~complete] if complete.any() else idx
    cur = s.current_player[nxt] + 1
    s.current_player[nxt] = np.where(cur == P, 0, cur)
    s.phase[nxt] = _PLAY
    if len(nxt) < len(idx):
        _finish_trick(s, idx[complete])


def _remove(s: State, idx: np.ndarray, a: np.ndarray) -> None:
    """R4.4 / R7.1: remove the chosen free ocean card, then go on."""
    seat = s.current_player[idx]
    slot = route.slot_ahead(s, idx, seat, a - REMOVE_BASE)
    route.remove_slot(s, idx, slot)
    octo = s.phase[idx] == _REMOVE_OCTOPUS
    if octo.any():
        _after_card(s, idx[octo])
    if (~octo).any():
        _payouts(s, idx[~octo], np.zeros((~octo).sum(), dtype=np.int64))


def _dolphin(s: State, idx: np.ndarray, a: np.ndarray) -> None:
    """R6.3: take or decline the dolphin's bonus move, then continue what was pending."""
    seat = s.current_player[idx].astype(np.intp)
    take = a == DOLPHIN_TAKE
    pending = s.pending[idx].copy()
    s.pending[idx] = _PENDING_NONE
    go = np.ones(len(idx), dtype=bool)
    if take.any():
        t = np.flatnonzero(take)
        route.move_forward(s, idx[t], seat[t])
        go[t] = _after_move(s, idx[t], seat[t], pending[t], allow_dolphin=s.config.dolphin_chain)
    trick = go & (pending == _PENDING_TRICK)
    _after_trick(s, idx[trick])
    pay = go & (pending == _PENDING_PAYOUT)
    if pay.any():
        g = idx[pay]
        start = (seat[pay] - s.starting_player[g]) % s.num_players + 1
        _payouts(s, g, start)


# ---- automatic events ----------------------------------------------------------


def _finish_trick(s: State, idx: np.ndarray) -> None:
    """R5: decide the trick; the winner moves (R6.2) unless they announced (R7.4)."""
    P = s.num_players
    start = s.trick_number[idx].astype(np.intp) * P
    cards = s.history[idx[:, None], start[:, None] + np.arange(P)]
    order = trick_winner(cards, s.trump[idx], s.lead_suit[idx])
    w = ((s.leader[idx] + order) % P).astype(np.intp)
    s.tricks_won[idx, w] += 1
    s.trick_number[idx] += 1
    s.leader[idx] = w  # R3.3: the winner leads the next trick
    s.current_player[idx] = w
    go = np.ones(len(idx), dtype=bool)
    moves = np.ones(len(idx), dtype=bool)
    if not s.config.announced_boat_moves:
        moves = s.announced[idx, w] != 1
    if moves.any():
        m = np.flatnonzero(moves)
        route.move_forward(s, idx[m], w[m])
        go[m] = _after_move(s, idx[m], w[m], np.full(len(m), _PENDING_TRICK), allow_dolphin=True)
    _after_trick(s, idx[go])


def _after_move(
    s: State, idx: np.ndarray, seat: np.ndarray, pending: np.ndarray, allow_dolphin: bool
) -> np.ndarray:
    """After a move: lapping (R9.2), then the dolphin (R6.3) where the move ended.

    Returns (b,) bool: the game goes on at once (not won, no dolphin decision waiting).
    """
    go = ~_check_lapped(s, idx, seat)
    check = go.copy() if allow_dolphin else np.zeros_like(go)
    while check.any():
        g = np.flatnonzero(check)
        e = g[route.dolphin_eligible(s, idx[g], seat[g])]
        if e.size == 0:
            break
        if s.config.dolphin == "optional":
            s.phase[idx[e]] = _DOLPHIN
            s.pending[idx[e]] = pending[e]
            s.current_player[idx[e]] = seat[e]
            go[e] = False
            break
        route.move_forward(s, idx[e], seat[e])
        go[e] = ~_check_lapped(s, idx[e], seat[e])
        if not s.config.dolphin_chain:
            break
        check[:] = False
        check[e] = go[e]  # only a bonus move can chain into another one
    return go


def _check_lapped(s: State, idx: np.ndarray, seat: np.ndarray) -> np.ndarray:
    """End the games where `seat` lapped the last boat (R9.2); (b,) bool of those."""
    won = route.has_lapped(s, idx, seat)
    if won.any():
        _end_game(s, idx[won], seat[won])
    return won


def _after_trick(s: State, idx: np.ndarray) -> None:
    """Next trick (trump fixed now, R5.5) or the end of the round (R7.1)."""
    if len(idx) == 0:
        return
    more = s.trick_number[idx] < TRICKS_PER_ROUND
    g = idx[more]
    s.phase[g] = _PLAY
    s.lead_suit[g] = NO_SUIT
    s.trump[g] = route.trump_of(s, g)
    end = idx[~more]
    if end.size:
        wait = route.can_remove(s, end)
        s.phase[end[wait]] = _REMOVE_ROUND_END
        s.current_player[end[wait]] = s.leader[end[wait]]
        rest = end[~wait]
        _payouts(s, rest, np.zeros(len(rest), dtype=np.int64))


def _payouts(s: State, idx: np.ndarray, start: np.ndarray) -> None:
    """R7.3: announced players who won no trick move three times, in turn order.

    `start` (b,) is the turn-order rank (0 = the round's starting player) from which
    payouts continue; a game that waits for a dolphin decision stops here.
    """
    if len(idx) == 0:
        return
    P = s.num_players
    go = np.ones(len(idx), dtype=bool)
    if s.config.nil_announcement:
        for r in range(P):
            seat = ((s.starting_player[idx] + r) % P).astype(np.intp)
            pay = go & (start <= r) & (s.announced[idx, seat] == 1) & (s.tricks_won[idx, seat] == 0)
            if not pay.any():
                continue
            p = np.flatnonzero(pay)
            alive = np.ones(len(p), dtype=bool)
            for _ in range(PAYOUT_STEPS):
                q = p[alive]
                route.move_forward(s, idx[q], seat[q])
                alive[alive] = ~_check_lapped(s, idx[q], seat[q])
            go[p[~alive]] = False
            q = p[alive]
            # R7.3: the dolphin applies only where the third step ends.
            go[q] = _after_move(
                s, idx[q], seat[q], np.full(len(q), _PENDING_PAYOUT), allow_dolphin=True
            )
    _end_round(s, idx[go])


def _end_round(s: State, idx: np.ndarray) -> None:
    """R7.5 / R9.4: the last trick's winner starts the next round, or truncate."""
    if len(idx) == 0:
        return
    last = s.round[idx] >= s.config.max_rounds
    t = idx[last]
    if t.size:
        s.truncated[t] = True
        s.phase[t] = _GAME_OVER
        s.current_player[t] = NO_PLAYER
        if s.config.reward == "rank":
            s.rewards[t] = _rank_rewards(s.progress[t])
    g = idx[~last]
    s.round[g] += 1
    s.starting_player[g] = s.leader[g]
    start_round(s, g)


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


_HANDLERS = {
    _ANNOUNCE_PHASE: _announce,
    _PLAY: _play_card,
    _REMOVE_OCTOPUS: _remove,
    _REMOVE_ROUND_END: _remove,
    _DOLPHIN: _dolphin,
}
