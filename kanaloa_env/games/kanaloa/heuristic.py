"""A rule-based Kanaloa player: one compiled decision per game, run over a batch."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...core.batch import check_view_call
from ...core.kanaloa.constants import (
    ANNOUNCE,
    CARD_RANK,
    CARD_SUIT,
    DOLPHIN_DECLINE,
    DOLPHIN_TAKE,
    KANALOA,
    NO_ANNOUNCE,
    NUM_ACTIONS,
    NUM_CARD_TYPES,
    NUM_KANALOA,
    NUM_OCTOPUS,
    NUM_SUITS,
    NUM_TIKI,
    NUM_VALUES,
    OCTOPUS,
    REMOVE_BASE,
    TRICKS_PER_ROUND,
    Pending,
    Phase,
)
from ...core.kanaloa.route import (
    dolphin_eligible,
    has_lapped,
    lap_fields,
    leading_seat,
    move_forward,
    remove_slot,
    slot_ahead,
    trump_of,
)
from ...core.kanaloa.state import State
from ...core.kanaloa.tricks import winning_position
from ...core.kernels import call, kernel, popcount, small_kernel

# Copies of each card type in the play deck (R1.1, R1.2).
_COPIES = np.ones(NUM_CARD_TYPES, dtype=np.int64)
_COPIES[KANALOA] = NUM_KANALOA
_COPIES[OCTOPUS] = NUM_OCTOPUS
_NUM_REMOVE = ANNOUNCE - REMOVE_BASE  # 12 removal actions


@dataclass
class HeuristicBot:
    """A sensible rule-based player; needs the public game state (`uses_state = True`).

    Every decision is computed for the whole batch at once. What it does, by phase:

    **Playing a card.** For each legal card it asks two questions: does the card
    win the trick as it stands (`core.kanaloa.tricks.trick_winner` on the trick so far plus
    the card), and how likely is it to stay the winner once the players after it
    have played? The second is an estimate from the cards not yet seen (neither in
    its hand nor played this round): each later player holds a fraction of them
    and beats the card when it holds a Kanaloa, a higher card it may play (the suit
    to follow, or a trump when it is known or likely to lack that suit). Its "keep
    value" for a card is the chance that the card would win a trick if led now
    (high trumps and masters keep, low off-suit cards do not); the octopus is kept
    least, because it never wins and its removal helps its player.

    - It wins cheaply when the trick is worth it: among the cards that win with a
      good chance (`win_threshold`; certain when it plays last) it plays the one
      with the lowest keep value. When the trick matters (winning it laps the last
      boat, or its move gains two or more fields, or an opponent is about to lap)
      it settles for a lower chance (`matter_threshold`), and if nothing reaches
      that it plays its best chance.
    - It keeps Kanaloa for tricks that matter: a Kanaloa is used only when the
      trick matters, or when the round has at most one trick more left than it
      holds Kanaloa cards (they must be played by the end of the round). In
      self-play this beat also spending it whenever it plays last (a sure win).
    - Otherwise it throws its lowest keep-value card (the octopus, then low
      off-suit cards).
    - It lets an opponent who announced no tricks take an unimportant trick.
    - After announcing no tricks, while it has won none, it plays the highest
      card that cannot win, and when every legal card wins for now, the one most
      likely to be beaten.

    **Removing an ocean card** (after an octopus or at the end of a round). It
    tries every legal removal (`core.kanaloa.route.remove_slot` on a copy) and measures,
    for itself and for its best opponent, how many fields are still missing to lap
    the last boat. It picks the removal that maximises (best opponent's distance -
    own distance), ties broken by the smaller own distance. Behind, that removes a
    card between itself and the leader (its own distance shrinks, the leader's
    does not); leading, a card ahead of itself (its distance to lapping shrinks).

    **Announcing no tricks** (variant R3.2). Only with a hand that truly cannot
    win, and never as the starting player (who must lead the first trick): no
    Kanaloa, no card above `nil_max_value`, no trump (of the first trick) above
    `nil_max_trump_value`, at most `nil_max_suit` cards of a suit. With the
    defaults about 1% of hands qualify, and in heuristic self-play 62%, 80% and
    87% of the announcements succeed at 3, 4 and 5 players.

    **Dolphin.** It takes the bonus move, unless the move would make it the
    leading boat on a field whose colour is a clearly worse trump for its hand
    (the trump strength of its hand drops by at least `dolphin_trump_margin`)
    while at least three tricks of the round remain. A move that laps always
    goes.

    Attributes:
        win_threshold: chance to keep the trick needed to spend a winning card.
        matter_threshold: the same when the trick matters.
        nil_max_value, nil_max_trump_value, nil_max_suit: announce limits.
        dolphin_trump_margin: trump-strength loss for which the dolphin is declined.
    """

    win_threshold: float = 0.55
    matter_threshold: float = 0.3
    nil_max_value: int = 9
    nil_max_trump_value: int = 5
    nil_max_suit: int = 3
    dolphin_trump_margin: float = 2.5
    name: str = "heuristic"

    uses_state = True
    uses_observations = False
    game = "kanaloa"  # reads Kanaloa's state: callers reject it at another game's table

    def act(
        self,
        observations: np.ndarray,
        masks: np.ndarray,
        rng: np.random.Generator,
        *,
        view: State | None = None,
        seats: np.ndarray | None = None,
        **kwargs: object,
    ) -> np.ndarray:
        """(b,) int64 legal actions for a batch of decisions.

        Args:
            observations: (b, OBS_DIM) observations; not read (this bot uses `view`).
            masks: (b, 66) bool legal actions; every row needs one.
            rng: unused (the bot is deterministic); part of the protocol.
            view: `public_view(state, seats)` of the b games (no other hands).
            seats: (b,) the deciding seats, each game's `current_player`.
            kwargs: other callers' keywords, not read.

        Raises:
            TypeError: `view` or `seats` is missing, or `seats` is not integers.
            ValueError: shapes disagree, a seat is not at the table, or a mask row has
                no legal action.
        """
        view, seats, masks = check_view_call(
            "HeuristicBot", view, seats, masks, State, "kanaloa_env.core.kanaloa.State", NUM_ACTIONS
        )
        seats = seats.astype(np.intp)
        b = len(masks)
        if ((seats < 0) | (seats >= view.num_players)).any():
            raise ValueError(f"seats must be in 0..{view.num_players - 1}, got {seats.tolist()}")
        if b and not masks.any(axis=1).all():
            raise ValueError("every mask row needs at least one legal action")
        actions = np.empty(b, dtype=np.int64)
        call(
            _decide_all,
            view.config.rules,
            view.kernel_arrays(),
            seats.astype(np.int64),
            np.ascontiguousarray(masks),
            self.parameter_array(),
            actions,
        )
        return actions

    def parameter_array(self) -> np.ndarray:
        """(6,) float64: the bot's parameters as the compiled decision reads them."""
        return np.array(
            [
                self.win_threshold,
                self.matter_threshold,
                self.nil_max_value,
                self.nil_max_trump_value,
                self.nil_max_suit,
                self.dolphin_trump_margin,
            ],
            dtype=np.float64,
        )


# The parameters as the kernels take them (`params`), by index.
_WIN, _MATTER, _NIL_VALUE, _NIL_TRUMP, _NIL_SUIT, _DOLPHIN_MARGIN = range(6)
_BIG = np.iinfo(np.int64).max
_INF = np.inf


@kernel
def _decide_all(c, s, seats, masks, params, out):  # type: ignore[no-untyped-def]
    mine = np.empty(NUM_CARD_TYPES, dtype=np.int64)
    unseen = np.empty(NUM_CARD_TYPES, dtype=np.int64)
    above = np.empty(NUM_TIKI, dtype=np.int64)
    suit_unseen = np.empty(NUM_SUITS, dtype=np.int64)
    trick = np.empty(c.num_players, dtype=np.int64)
    cards = np.empty(c.num_players, dtype=np.int64)
    keep = np.empty(NUM_CARD_TYPES, dtype=np.float64)
    pw = np.empty(NUM_CARD_TYPES, dtype=np.float64)
    win = np.empty(NUM_CARD_TYPES, dtype=np.bool_)
    dist = np.empty(c.num_players, dtype=np.int64)
    progress = np.empty(c.num_players, dtype=np.int32)
    work = (mine, unseen, above, suit_unseen, trick, cards, keep, pw, win, dist, progress)
    _decide_range(c, s, seats, masks, params, out, 0, len(seats), work)


@kernel
def _decide_range(c, s, seats, masks, params, out, lo, hi, work):  # type: ignore[no-untyped-def]
    """out[i] = the action of game i's player `seats[i]`, to act, with mask row
    `masks[i]`, for i in lo..hi-1. It reads the player's own hand and public facts only,
    so the full state and its public view give the same actions (the GPU's heuristic
    reads the full state). `work`: the work arrays, the per-player ones (`trick`,
    `cards`, `dist`, `progress`) `c.num_players` long (a trick's cards)."""
    mine, dist, progress = work[0], work[9], work[10]
    for i in range(lo, hi):
        phase = s.phase[i]
        mask = masks[i]
        if phase == Phase.PLAY:
            out[i] = _play(c, s, i, seats[i], mask, params, work)
        elif phase == Phase.REMOVE_OCTOPUS or phase == Phase.REMOVE_ROUND_END:
            out[i] = _remove(c, s, i, seats[i], mask, dist, progress)
        elif phase == Phase.ANNOUNCE:
            out[i] = _announce(s, i, seats[i], params, mine)
        elif phase == Phase.DOLPHIN:
            out[i] = _dolphin(c, s, i, seats[i], params, mine)
        else:  # (no decision: the first legal action)
            out[i] = 0
            for a in range(NUM_ACTIONS):
                if mask[a]:
                    out[i] = a
                    break


# ---- shared estimates ------------------------------------------------------------


@kernel
def _hand_counts(hand, mine):  # type: ignore[no-untyped-def]
    """Card-type counts (50,) of a hand bit set into `mine`."""
    for card in range(NUM_TIKI):
        mine[card] = (hand >> card) & 1
    mine[KANALOA] = popcount((hand >> NUM_TIKI) & 7)
    mine[OCTOPUS] = popcount(hand >> (NUM_TIKI + NUM_KANALOA))


@kernel
def _card_info(c, s, g, seat, mine, unseen, above, suit_unseen, trick):  # type: ignore[no-untyped-def]
    """Own cards, unseen cards (neither held nor played this round) and the trick so
    far, into the work arrays; returns the cards already in the trick."""
    P = c.num_players
    _hand_counts(np.int64(s.hands[g, seat]), mine)
    for t in range(NUM_CARD_TYPES):
        unseen[t] = _COPIES[t] - mine[t]
    for j in range(s.num_played[g]):
        unseen[s.history[g, j]] -= 1
    for t in range(NUM_CARD_TYPES):
        unseen[t] = max(unseen[t], 0)
    first = s.trick_number[g] * P
    n_in = s.num_played[g] - first
    for p in range(P):
        trick[p] = s.history[g, first + p] if p < n_in else OCTOPUS
    # Unseen cards above each Tiki card in its suit: a later player beats it with one.
    for suit in range(NUM_SUITS):
        total = 0
        for v in range(NUM_VALUES - 1, -1, -1):
            card = suit * NUM_VALUES + v
            above[card] = total
            total += unseen[card]
        suit_unseen[suit] = total
    return n_in


@kernel
def _survival(c, s, g, seat, unseen, above, suit_unseen, card, lead, n_after):  # type: ignore[no-untyped-def]
    """Chance that `card`, winning, is not beaten by the next `n_after` players.

    Each later player is taken to hold each unseen card independently with
    probability (its hand size) / (unseen cards). It can play a trump only when it
    lacks the suit to follow: known from `voids`, else estimated as holding none of
    the unseen cards of that suit.
    """
    P = c.num_players
    total = 0
    for t in range(NUM_CARD_TYPES):
        total += unseen[t]
    q = (TRICKS_PER_ROUND - s.trick_number[g]) / max(total, 1)
    keep = min(max(1.0 - q, 0.0), 1.0)
    kan = float(unseen[KANALOA])
    is_tiki = card < NUM_TIKI
    tcard = card if is_tiki else 0
    suit = CARD_SUIT[tcard] if is_tiki else -1
    trump = s.trump[g]
    higher = float(above[tcard])
    lead_ok = lead >= 0
    lead_c = lead if lead_ok else 0
    u_lead = float(suit_unseen[lead_c])
    u_trump = float(suit_unseen[trump])
    # Beaters of a player that follows suit: Kanaloa and higher cards of the suit.
    if_follow = kan + (higher if is_tiki else 0.0)
    # Beaters of a player lacking the suit to follow: Kanaloa and trumps (higher ones
    # if the card is a trump itself); lacking trump when trump was led, Kanaloa only.
    if is_tiki and lead != trump:
        if_void = kan + (higher if suit == trump else u_trump)
    else:
        if_void = kan + 0.0
    ok_void = keep**if_void
    ok_follow = keep**if_follow
    p_void_guess = keep**u_lead if lead_ok else 0.0
    out = 1.0
    for j in range(1, P):
        if j > n_after:
            break
        seat_j = (seat + j) % P
        known = lead_ok and (s.voids[g, seat_j] >> lead_c) & 1 == 1
        v = 1.0 if known else p_void_guess
        out *= ok_follow + v * (ok_void - ok_follow)
    return 0.0 if card == OCTOPUS else out


@kernel
def _keep_values(c, s, g, seat, mine, unseen, above, suit_unseen, keep):  # type: ignore[no-untyped-def]
    """How much each held card is worth keeping, into `keep` (50,): its chance to win if
    led now; trumps keep extra value (they win tricks by trumping in once a suit runs
    out); Kanaloa 2, the octopus 0.05."""
    P = c.num_players
    for card in range(NUM_CARD_TYPES):
        keep[card] = 0.0
    for card in range(NUM_TIKI):
        if mine[card] > 0:
            surv = _survival(
                c,
                s,
                g,
                seat,
                unseen,
                above,
                suit_unseen,
                card,
                np.int64(CARD_SUIT[card]),
                np.int64(P - 1),
            )
            trump = 0.25 if CARD_SUIT[card] == s.trump[g] else 0.0
            keep[card] = surv + trump + CARD_RANK[card] / 100.0
    keep[KANALOA] = 2.0
    keep[OCTOPUS] = 0.05


@kernel
def _lap_distances(c, progress, lap, dist):  # type: ignore[no-untyped-def]
    """Fields each boat still needs to lap the last other boat (R9.2), into `dist` (P,)."""
    P = c.num_players
    last = 0
    for p in range(1, P):
        if progress[p] < progress[last]:
            last = p
    second = _BIG
    for p in range(P):
        if p != last:
            second = min(second, np.int64(progress[p]))
    # The last boat's nearest other is the second-to-last; everyone else's is the last.
    for p in range(P):
        nearest = second if p == last else np.int64(progress[last])
        dist[p] = lap + 1 - (np.int64(progress[p]) - nearest)


@kernel
def _trick_value(c, s, g, seat, dist):  # type: ignore[no-untyped-def]
    """What winning the trick is worth to the deciding player: (value, laps, threat):
    fields its boat would gain (0 when it announced and may not move, R7.4), plus one
    for a dolphin it could take; whether the move laps the last boat (wins, R9.2);
    whether an opponent is within two fields of lapping (a trick to deny)."""
    P = c.num_players
    field, before = s.boat_field[g, seat], s.progress[g, seat]
    move_forward(c, s, g, seat)  # tried, then taken back
    value = np.int64(s.progress[g, seat]) - before
    value += 1 if dolphin_eligible(c, s, g, seat) else 0
    laps = has_lapped(c, s, g, seat)
    s.boat_field[g, seat], s.progress[g, seat] = field, before
    moves = c.announced_boat_moves or s.announced[g, seat] != 1
    if not moves:
        value, laps = 0, False
    _lap_distances(c, s.progress[g], lap_fields(s, g), dist)
    nearest = _INF
    for p in range(P):
        if p != seat and (c.announced_boat_moves or s.announced[g, p] != 1):
            nearest = min(nearest, float(dist[p]))
    return value, laps, nearest <= 2


@kernel
def _nil_opponent_winning(c, s, g, seat, trick, n_in):  # type: ignore[no-untyped-def]
    """Whether the trick so far is held by an opponent whose no-tricks announcement stands."""
    if not c.nil_announcement or n_in == 0:
        return False
    P = c.num_players
    lead = max(s.lead_suit[g], 0)
    order = winning_position(trick, s.trump[g], lead)
    holder = (s.leader[g] + order) % P
    # A trick of specials only has no Tiki card yet; an octopus never holds it.
    if trick[order] == OCTOPUS or holder == seat:
        return False
    return s.announced[g, holder] == 1 and s.tricks_won[g, holder] == 0


@small_kernel
def _first_min(values, ok, n):  # type: ignore[no-untyped-def]
    """The first index of the least `values[i]` among `ok[i]` (0 when none is ok)."""
    best, at = _INF, 0
    for i in range(n):
        if ok[i] and values[i] < best:
            best, at = values[i], i
    return at


# ---- phases ------------------------------------------------------------------


@kernel
def _play(c, s, g, seat, mask, params, work):  # type: ignore[no-untyped-def]
    """The card seat `seat` plays in game g (`HeuristicBot`, "Playing a card");
    `work`: `_decide_range`'s work arrays."""
    mine, unseen, above, suit_unseen = work[0], work[1], work[2], work[3]
    trick, cards, keep, pw, win, dist = work[4], work[5], work[6], work[7], work[8], work[9]
    P = c.num_players
    n_in = _card_info(c, s, g, seat, mine, unseen, above, suit_unseen, trick)
    _keep_values(c, s, g, seat, mine, unseen, above, suit_unseen, keep)
    trump = s.trump[g]
    lead_now = s.lead_suit[g]
    any_win = False
    for card in range(NUM_CARD_TYPES):
        win[card], pw[card] = False, 0.0
        if not mask[card]:
            continue
        # Does the card win the trick as it stands?
        for p in range(P):
            cards[p] = trick[p]
        cards[n_in] = card
        lead = np.int64(CARD_SUIT[card]) if lead_now < 0 and card < NUM_TIKI else lead_now
        # (R5.4: an octopus never wins, though a lone one would be the trick's first card)
        wins = winning_position(cards, trump, lead) == n_in and card != OCTOPUS
        if wins:
            win[card] = True
            any_win = True
            pw[card] = _survival(
                c, s, g, seat, unseen, above, suit_unseen, card, lead, P - 1 - n_in
            )
    value, laps, threat = _trick_value(c, s, g, seat, dist)
    matters = laps or threat or value >= 2
    kan_ok = matters or TRICKS_PER_ROUND - s.trick_number[g] <= mine[KANALOA] + 1
    thr = params[_MATTER] if matters else params[_WIN]
    # An opponent who announced no tricks and holds the trick may keep it.
    let_nil = _nil_opponent_winning(c, s, g, seat, trick, n_in) and not matters
    # The cheapest card that wins with a good chance; the best chance; the card least
    # worth keeping.
    cheap, cheap_keep, any_good = 0, _INF, False
    best_try, best_pw = 0, -1.0
    for card in range(NUM_CARD_TYPES):
        if not mask[card]:
            continue
        allowed = kan_ok or card != KANALOA
        if win[card] and allowed and pw[card] >= thr and not let_nil:
            any_good = True
            if keep[card] < cheap_keep:
                cheap, cheap_keep = card, keep[card]
        if win[card] and pw[card] > best_pw:
            best_try, best_pw = card, pw[card]
    choice = cheap if any_good else _first_min(keep, mask, NUM_CARD_TYPES)
    if not any_good and matters and not let_nil and any_win:
        choice = best_try
    # Announced no tricks and none won yet: lose every trick (R7.3).
    if s.announced[g, seat] == 1 and s.tricks_won[g, seat] == 0:
        dump, dump_keep, any_loser = 0, -_INF, False
        weakest, weakest_score = 0, _INF
        for card in range(NUM_CARD_TYPES):
            if not mask[card]:
                continue
            if not win[card]:
                any_loser = True
                if keep[card] > dump_keep:
                    dump, dump_keep = card, keep[card]
            score = pw[card] + keep[card] / 100.0
            if score < weakest_score:
                weakest, weakest_score = card, score
        choice = dump if any_loser else weakest
    return choice


@kernel
def _remove(c, s, g, seat, mask, dist, progress):  # type: ignore[no-untyped-def]
    """The removal that maximises (best opponent's distance to lapping - own distance),
    ties broken by the smaller own distance."""
    P = c.num_players
    best, best_score = 0, -_INF
    for k in range(_NUM_REMOVE):
        if not mask[REMOVE_BASE + k]:
            continue
        # Tried on the state, then taken back.
        for p in range(P):
            progress[p] = s.progress[g, p]
        present = s.present_slots[g]
        slot = slot_ahead(c, s, g, seat, np.int64(k))
        remove_slot(c, s, g, slot)
        _lap_distances(c, s.progress[g], lap_fields(s, g), dist)
        for p in range(P):
            s.progress[g, p] = progress[p]
        s.present_slots[g] = present
        s.present[g, slot] = True
        own = dist[seat]
        others = _INF
        for p in range(P):
            if p != seat:
                others = min(others, float(dist[p]))
        # Lexicographic: the margin first, then the own distance (fields are small ints).
        score = (others - own) * 1000.0 - own
        if score > best_score:
            best, best_score = k, score
    return REMOVE_BASE + best


@kernel
def _announce(s, g, seat, params, mine):  # type: ignore[no-untyped-def]
    """R3.2: announce only with a hand that truly cannot win, never as the starting
    player (who leads the first trick, R3.3)."""
    _hand_counts(np.int64(s.hands[g, seat]), mine)
    top, top_trump, most = 0, 0, 0
    for suit in range(NUM_SUITS):
        n = 0
        for v in range(NUM_VALUES):
            if mine[suit * NUM_VALUES + v] > 0:
                n += 1
                top = max(top, v + 1)
                if suit == s.trump[g]:
                    top_trump = max(top_trump, v + 1)
        most = max(most, n)
    hopeless = (
        s.starting_player[g] != seat
        and mine[KANALOA] == 0
        and top <= params[_NIL_VALUE]
        and top_trump <= params[_NIL_TRUMP]
        and most <= params[_NIL_SUIT]
    )
    return ANNOUNCE if hopeless else NO_ANNOUNCE


@kernel
def _strength(mine, suit):  # type: ignore[no-untyped-def]
    """Trump strength of the hand in `suit`: each card counts 1 plus up to 1 for its
    value. (Summed in numpy's pairwise order for 12 terms: 8 partial sums paired,
    then the rest, so that the comparisons give what numpy's sum gives.)"""
    pairs = (_worth(mine, suit, 0) + _worth(mine, suit, 1)) + (
        _worth(mine, suit, 2) + _worth(mine, suit, 3)
    )
    total = pairs + (
        (_worth(mine, suit, 4) + _worth(mine, suit, 5))
        + (_worth(mine, suit, 6) + _worth(mine, suit, 7))
    )
    for v in range(8, NUM_VALUES):
        total += _worth(mine, suit, v)
    return total


@kernel
def _dolphin(c, s, g, seat, params, mine):  # type: ignore[no-untyped-def]
    """R6.3: take the bonus move unless it makes this boat the leader on a field whose
    colour is a clearly worse trump for the hand while three or more tricks remain."""
    old_trump = trump_of(c, s, g)
    field, before = s.boat_field[g, seat], s.progress[g, seat]
    move_forward(c, s, g, seat)  # tried, then taken back
    laps = has_lapped(c, s, g, seat)
    new_trump = trump_of(c, s, g)
    leads_after = leading_seat(c, s, g) == seat
    s.boat_field[g, seat], s.progress[g, seat] = field, before
    _hand_counts(np.int64(s.hands[g, seat]), mine)
    loss = _strength(mine, old_trump) - _strength(mine, new_trump)
    decline = (
        not laps
        and leads_after
        and s.pending[g] == Pending.TRICK
        and TRICKS_PER_ROUND - s.trick_number[g] >= 3
        and loss >= params[_DOLPHIN_MARGIN]
    )
    return DOLPHIN_DECLINE if decline else DOLPHIN_TAKE


@small_kernel
def _worth(mine, suit, v):  # type: ignore[no-untyped-def]
    """A term of `_strength`: the count of card value v in `suit` times its weight."""
    return mine[suit * NUM_VALUES + v] * (1.0 + CARD_RANK[v] / (NUM_VALUES - 1))
