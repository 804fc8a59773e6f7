"""`step`: validate the actions, apply one decision per game, resolve what follows.

Order (STYLE.md 3.3): (1) validate every game's action before any write, so a bad
batch raises and leaves the state as it was; (2) per game, the handler of its phase
(announce, play a card, remove an ocean card, the dolphin decision); (3) the
automatic events in the order of the rules (finish the trick, move the winner,
dolphin, lapping, round end, removal, variant payouts, next deal); (4) rewards and
the cached mask. Steps (2)-(4) are `step_game`, compiled; the games of a batch run
in a compiled loop, on several threads when asked.
"""

from __future__ import annotations

import numpy as np

from ..engine import Stepper, compiled_step
from ..kernels import kernel, small_kernel
from .constants import (
    ANNOUNCE,
    CARD_SUIT,
    DECK_SIZE,
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
from .masks import refresh_game
from .route import (
    can_remove,
    dolphin_eligible,
    has_lapped,
    move_forward,
    remove_slot,
    slot_ahead,
    trump_of,
)
from .setup import start_round
from .state import State
from .tricks import _TYPE_BITS, add_played, lowest_bit, winning_position


def _describe(state: State, g: int, act: int) -> str:
    """What is wrong with action `act` in game `g`: the player, the phase, the action."""
    what = action_name(act) if 0 <= act < NUM_ACTIONS else f"out of range 0..{NUM_ACTIONS - 1}"
    return (
        f"player {int(state.current_player[g])} in phase "
        f"{PHASE_NAMES[int(state.phase[g])]} cannot take action {act} ({what})"
    )


@kernel
def _step_range(c, s, actions, lo, hi):  # type: ignore[no-untyped-def]
    words = np.empty(DECK_SIZE, dtype=np.uint64)  # work arrays of the deal
    order = np.empty(DECK_SIZE, dtype=np.int64)
    for g in range(lo, hi):
        step_game(c, s, g, actions[g], words, order)


_STEPPER = Stepper(compiled_step(_step_range), _describe)
step = _STEPPER.step
step_inplace = _STEPPER.step_inplace
validate_actions = _STEPPER.validate_actions


@kernel
def step_game(c, s, g, a, words, order):  # type: ignore[no-untyped-def]
    """Apply action `a` in game g and everything it sets in motion; a game that is
    over passes through unchanged. `words`, `order`: work arrays of a deal.
    `c` is the config's kernel rules (`Rules`) and `s` the state's arrays (`Arrays`)."""
    for p in range(c.num_players):
        s.rewards[g, p] = 0
    round_ = s.round[g]
    phase = s.phase[g]
    if phase == Phase.PLAY:
        if _play_card(c, s, g, a):
            _finish_trick(c, s, g)
    elif phase == Phase.ANNOUNCE:
        _announce(c, s, g, a)
    elif phase == Phase.REMOVE_OCTOPUS or phase == Phase.REMOVE_ROUND_END:
        _remove(c, s, g, a)
    elif phase == Phase.DOLPHIN:
        _dolphin(c, s, g, a)
    _settle(c, s, g, s.round[g] != round_, words, order)
    refresh_game(c, s, g)


@kernel
def _settle(c, s, g, new_round, words, order):  # type: ignore[no-untyped-def]
    """The end of a step: between tricks, deal the new round (`new_round`: the step
    ended a round, `_end_round`).

    No trick is open while a game waits for a dolphin decision or the round-end
    removal, or is over: the finished trick's suit to follow is cleared and the
    trump shows the colour the leading boat gives now (R8.2; fixed again when the
    next trick starts, R5.5). This is what a scenario of the position derives, so
    `from_scenario` gives back an identical observation. A new round is dealt with
    the trump of its first trick (R3.1, R5.5).
    """
    if new_round or between_tricks(s.phase[g]):
        trump = np.int64(trump_of(c, s, g))
        s.trump[g] = trump
        s.lead_suit[g] = NO_SUIT
        if new_round:
            start_round(c, s, g, trump, words, order)


@small_kernel
def between_tricks(phase):  # type: ignore[no-untyped-def]
    """Whether no trick is open in `phase`: the round-end removal, a dolphin decision
    (after a trick or a payout) or the end of the game."""
    return phase == Phase.REMOVE_ROUND_END or phase == Phase.DOLPHIN or phase == Phase.GAME_OVER


# ---- phase handlers ------------------------------------------------------------


@kernel
def _announce(c, s, g, a):  # type: ignore[no-untyped-def]
    """R3.2: record the decision; after the last player, the first trick starts."""
    seat = s.current_player[g]
    s.announced[g, seat] = 1 if a == ANNOUNCE else 0
    nxt = (seat + 1) % c.num_players
    s.current_player[g] = nxt
    if nxt == s.starting_player[g]:
        s.phase[g] = Phase.PLAY


@kernel
def _play_card(c, s, g, card):  # type: ignore[no-untyped-def]
    """R4: the player to act plays `card` to the trick; an octopus asks for a removal
    (R4.4). Returns whether the trick is now complete."""
    P = c.num_players
    seat = s.current_player[g]
    hand = np.int64(s.hands[g, seat])
    s.hands[g, seat] = hand ^ lowest_bit(hand & _TYPE_BITS[card])  # one copy of the type
    s.played[g] = add_played(np.int64(s.played[g]), card)
    slot = s.num_played[g]
    s.history[g, slot] = card
    s.num_played[g] = slot + 1
    lead = s.lead_suit[g]
    suit = CARD_SUIT[card]
    if lead < 0:
        s.lead_suit[g] = suit  # the first Tiki card sets the suit to follow (R4.2)
    elif suit >= 0 and suit != lead:
        s.voids[g, seat] |= np.int64(1) << lead  # R4.3: the player lacks the suit to follow
    if card == OCTOPUS and can_remove(c, s, g):
        s.phase[g] = Phase.REMOVE_OCTOPUS  # the same player removes first (R4.4)
        return False
    if slot % P == P - 1:  # every player has played to the trick
        return True
    s.current_player[g] = (seat + 1) % P
    return False


@kernel
def _remove(c, s, g, a):  # type: ignore[no-untyped-def]
    """R4.4 / R7.1: remove the chosen free ocean card, then go on: the trick after
    an octopus, the variant payouts at the end of a round."""
    slot = slot_ahead(c, s, g, np.int64(s.current_player[g]), a - REMOVE_BASE)
    remove_slot(c, s, g, slot)
    if s.phase[g] == Phase.REMOVE_ROUND_END:
        _payouts(c, s, g, np.int64(0))
        return
    # After the octopus: the next player, or the trick is complete.
    P = c.num_players
    if (s.num_played[g] - 1) % P == P - 1:
        _finish_trick(c, s, g)
    else:
        s.current_player[g] = (s.current_player[g] + 1) % P
        s.phase[g] = Phase.PLAY


@kernel
def _dolphin(c, s, g, a):  # type: ignore[no-untyped-def]
    """R6.3: take or decline the dolphin's bonus move, then continue what was pending."""
    seat = np.int64(s.current_player[g])
    pending = np.int64(s.pending[g])
    s.pending[g] = Pending.NONE
    if a == DOLPHIN_TAKE:
        move_forward(c, s, g, seat)
        if not _after_move(c, s, g, seat, pending, c.dolphin_chain):
            return
    _continue(c, s, g, seat, pending)


@kernel
def _continue(c, s, g, seat, pending):  # type: ignore[no-untyped-def]
    """After a dolphin decision: the trick's aftermath, or the payouts after `seat`'s."""
    if pending == Pending.TRICK:
        _after_trick(c, s, g)
    elif pending == Pending.PAYOUT:
        _payouts(c, s, g, (seat - s.starting_player[g]) % c.num_players + 1)


# ---- automatic events ----------------------------------------------------------


@kernel
def _finish_trick(c, s, g):  # type: ignore[no-untyped-def]
    """R5: decide the trick; the winner moves (R6.2) unless they announced (R7.4)."""
    P = c.num_players
    tn = s.trick_number[g]
    first = tn * P
    w = (
        s.leader[g] + winning_position(s.history[g, first : first + P], s.trump[g], s.lead_suit[g])
    ) % P
    s.tricks_won[g, w] += 1
    s.trick_number[g] = tn + 1
    s.leader[g] = w  # R3.3: the winner leads the next trick
    s.current_player[g] = w
    if c.nil_announcement and not c.announced_boat_moves and s.announced[g, w] == 1:
        _after_trick(c, s, g)
        return
    move_forward(c, s, g, w)
    if _after_move(c, s, g, w, np.int64(Pending.TRICK), np.bool_(True)):
        _after_trick(c, s, g)


@kernel
def _after_move(c, s, g, seat, pending, allow_dolphin):  # type: ignore[no-untyped-def]
    """After a move of `seat`'s boat: lapping (R9.2), then the dolphin (R6.3) where the
    move ended, if `allow_dolphin`. `pending` is what continues after a dolphin
    decision. Returns whether the game goes on at once (not won, no decision due)."""
    if has_lapped(c, s, g, seat):
        _end_game(c, s, g, seat)
        return False
    if not allow_dolphin:
        return True
    while dolphin_eligible(c, s, g, seat):
        if c.dolphin_optional:
            s.phase[g] = Phase.DOLPHIN
            s.pending[g] = pending
            s.current_player[g] = seat
            return False
        move_forward(c, s, g, seat)
        if has_lapped(c, s, g, seat):
            _end_game(c, s, g, seat)
            return False
        if not c.dolphin_chain:  # the bonus move does not trigger another
            break
    return True


@kernel
def _after_trick(c, s, g):  # type: ignore[no-untyped-def]
    """The next trick, its trump fixed now (R5.5), or the end of the round (R7.1)."""
    if s.trick_number[g] < TRICKS_PER_ROUND:
        s.phase[g] = Phase.PLAY
        s.lead_suit[g] = NO_SUIT
        s.trump[g] = trump_of(c, s, g)
    elif can_remove(c, s, g):
        s.phase[g] = Phase.REMOVE_ROUND_END  # the winner of the last trick removes a card
        s.current_player[g] = s.leader[g]
    else:
        _payouts(c, s, g, np.int64(0))


@kernel
def _payouts(c, s, g, start):  # type: ignore[no-untyped-def]
    """R7.3: announced players who won no trick move three times, in turn order from
    the round's starting player, from the turn-order rank `start` on; a game that
    waits for a dolphin decision stops here. Then the round ends."""
    if c.nil_announcement:
        P = c.num_players
        for r in range(start, P):
            seat = (s.starting_player[g] + r) % P
            if s.announced[g, seat] != 1 or s.tricks_won[g, seat] != 0:
                continue
            for _ in range(PAYOUT_STEPS):
                move_forward(c, s, g, seat)
                if has_lapped(c, s, g, seat):
                    _end_game(c, s, g, seat)
                    return
            # R7.3: the dolphin applies only where the third step ends.
            if not _after_move(c, s, g, seat, np.int64(Pending.PAYOUT), np.bool_(True)):
                return
    _end_round(c, s, g)


@kernel
def _end_round(c, s, g):  # type: ignore[no-untyped-def]
    """R7.5 / R9.4: the last trick's winner starts the next round, or truncate.

    The deal waits for the end of the step (`_settle`), when the new round's trump
    is known.
    """
    if s.round[g] >= c.max_rounds:
        s.truncated[g] = True
        s.phase[g] = Phase.GAME_OVER
        s.current_player[g] = NO_PLAYER
        if c.rank_reward:
            _rank_rewards(c, s, g)
        return
    s.round[g] += 1
    s.starting_player[g] = s.leader[g]


@kernel
def _end_game(c, s, g, seat):  # type: ignore[no-untyped-def]
    """R9.2 / R10: the game is won by `seat`; set the rewards."""
    P = c.num_players
    s.terminated[g] = True
    s.winner[g] = seat
    s.phase[g] = Phase.GAME_OVER
    s.current_player[g] = NO_PLAYER
    s.pending[g] = Pending.NONE
    if c.rank_reward:
        _rank_rewards(c, s, g)
        return
    for p in range(P):
        s.rewards[g, p] = -1.0 / (P - 1)
    s.rewards[g, seat] = 1.0


@kernel
def _rank_rewards(c, s, g):  # type: ignore[no-untyped-def]
    """R10 `rank`: rewards spread from +1 (furthest boat) to -1 (last), ties sharing."""
    P = c.num_players
    for p in range(P):
        ahead = 0
        tied = 0
        for q in range(P):
            if s.progress[g, q] > s.progress[g, p]:
                ahead += 1
            elif q != p and s.progress[g, q] == s.progress[g, p]:
                tied += 1
        rank = ahead + tied / 2.0
        s.rewards[g, p] = 1.0 - 2.0 * rank / (P - 1)
