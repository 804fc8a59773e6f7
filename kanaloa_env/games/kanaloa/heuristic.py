"""A rule-based Kanaloa player that acts on whole batches with numpy (no loop over games)."""

from __future__ import annotations

import sys
from dataclasses import dataclass

import numpy as np

from ...core.kanaloa import route
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
from ...core.kanaloa.state import State
from ...core.kanaloa.tricks import trick_winner

_LITTLE = sys.byteorder == "little"
# Copies of each card type in the play deck (R1.1, R1.2).
_COPIES = np.ones(NUM_CARD_TYPES, dtype=np.int16)
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

        Raises:
            TypeError: `view` or `seats` is missing, or `seats` is not integers.
            ValueError: shapes disagree, a seat is not at the table, or a mask row has
                no legal action.
        """
        if view is None or seats is None:
            raise TypeError(
                "HeuristicBot needs view=public_view(state, seats) and seats= (uses_state=True)"
            )
        masks = np.asarray(masks)
        seats = np.asarray(seats)
        if seats.dtype.kind not in "iu":  # a float seat would be truncated silently
            raise TypeError(f"seats must be integers, got dtype {seats.dtype}")
        seats = seats.astype(np.intp)
        b = len(masks)
        if masks.shape != (b, NUM_ACTIONS) or masks.dtype != bool:
            raise ValueError(f"masks must be a (b, {NUM_ACTIONS}) bool array, got {masks.shape}")
        if view.batch_size != b or seats.shape != (b,):
            raise ValueError(
                f"view ({view.batch_size} games), seats {seats.shape} and masks ({b} rows) disagree"
            )
        if ((seats < 0) | (seats >= view.num_players)).any():
            raise ValueError(f"seats must be in 0..{view.num_players - 1}, got {seats.tolist()}")
        if b and not masks.any(axis=1).all():
            raise ValueError("every mask row needs at least one legal action")
        actions = np.argmax(masks, axis=1).astype(np.int64)  # replaced in every phase below
        phase = view.phase
        groups = {
            self._play: np.flatnonzero(phase == Phase.PLAY),
            self._remove: np.flatnonzero(
                (phase == Phase.REMOVE_OCTOPUS) | (phase == Phase.REMOVE_ROUND_END)
            ),
            self._announce: np.flatnonzero(phase == Phase.ANNOUNCE),
            self._dolphin: np.flatnonzero(phase == Phase.DOLPHIN),
        }
        for handler, rows in groups.items():
            if rows.size:
                actions[rows] = handler(view, rows, seats[rows], masks[rows])
        return actions

    # ---- shared estimates ------------------------------------------------------

    def _card_info(self, view: State, rows: np.ndarray, seats: np.ndarray) -> _CardInfo:
        """Own hand, unseen cards and the trick so far of games `rows`."""
        P = view.num_players
        b = len(rows)
        r = np.arange(b)
        mine = _hand_counts(view.hands[rows, seats])
        hist = view.history[rows].astype(np.intp)
        flat = (r[:, None] * NUM_CARD_TYPES + hist)[hist >= 0]
        played = np.bincount(flat, minlength=b * NUM_CARD_TYPES).reshape(b, NUM_CARD_TYPES)
        unseen = np.maximum(_COPIES - mine - played, 0)
        trick_no = view.trick_number[rows].astype(np.intp)
        n_in = view.num_played[rows].astype(np.intp) - trick_no * P
        cols = trick_no[:, None] * P + np.arange(P)
        trick = np.where(np.arange(P) < n_in[:, None], hist[r[:, None], cols], OCTOPUS)
        # Unseen cards above each Tiki card in its suit: a later player beats it with one.
        tiki = unseen[:, :NUM_TIKI].reshape(b, NUM_SUITS, NUM_VALUES)
        above = np.flip(np.cumsum(np.flip(tiki, axis=2), axis=2), axis=2) - tiki
        return _CardInfo(
            mine=mine,
            unseen=unseen,
            unseen_total=np.maximum(unseen.sum(axis=1), 1),
            unseen_above=above.reshape(b, NUM_TIKI),
            unseen_suit=tiki.sum(axis=2),
            trick=trick,
            n_in=n_in,
            tricks_left=TRICKS_PER_ROUND - trick_no,
            trump=view.trump[rows].astype(np.intp),
            lead=view.lead_suit[rows].astype(np.intp),
            voids=view.voids[rows],
            seats=seats,
            num_players=P,
        )

    def _survival(
        self,
        info: _CardInfo,
        k: np.ndarray,
        card: np.ndarray,
        lead: np.ndarray,
        n_after: np.ndarray,
    ) -> np.ndarray:
        """Chance that `card`, winning in game row `k`, is not beaten by the next `n_after` players.

        Each later player is taken to hold each unseen card independently with
        probability (its hand size) / (unseen cards). It can play a trump only
        when it lacks the suit to follow: known from `voids`, else estimated as
        holding none of the unseen cards of that suit.
        """
        P = info.num_players
        q = info.tricks_left[k] / info.unseen_total[k]
        keep = np.clip(1.0 - q, 0.0, 1.0)
        kan = info.unseen[k, KANALOA].astype(np.float64)
        is_tiki = card < NUM_TIKI
        tcard = np.where(is_tiki, card, 0)
        suit = np.where(is_tiki, CARD_SUIT[tcard], -1)
        trump = info.trump[k]
        higher = info.unseen_above[k, tcard].astype(np.float64)
        lead_ok = lead >= 0
        lead_c = np.where(lead_ok, lead, 0)
        u_lead = info.unseen_suit[k, lead_c].astype(np.float64)
        u_trump = info.unseen_suit[k, trump].astype(np.float64)
        # Beaters of a player that follows suit: Kanaloa and higher cards of the suit.
        if_follow = kan + np.where(is_tiki, higher, 0.0)
        # Beaters of a player lacking the suit to follow: Kanaloa and trumps (higher
        # ones if the card is a trump itself); lacking trump when trump was led, Kanaloa only.
        if_void = kan + np.where(
            is_tiki & (lead != trump), np.where(suit == trump, higher, u_trump), 0.0
        )
        ok_void = keep**if_void
        ok_follow = keep**if_follow
        p_void_guess = np.where(lead_ok, keep**u_lead, 0.0)
        out = np.ones(len(k))
        for j in range(1, P):
            later = j <= n_after
            if not later.any():
                break
            seat_j = (info.seats[k] + j) % P
            known = ((info.voids[k, seat_j] >> lead_c) & 1).astype(bool) & lead_ok
            v = np.where(known, 1.0, p_void_guess)
            out *= np.where(later, ok_follow + v * (ok_void - ok_follow), 1.0)
        return np.where(card == OCTOPUS, 0.0, out)

    def _keep_values(self, info: _CardInfo, rows_b: int) -> np.ndarray:
        """(b, 50) how much each held card is worth keeping: its chance to win if led now."""
        k, card = np.nonzero(info.mine[:, :NUM_TIKI] > 0)
        keep = np.zeros((rows_b, NUM_CARD_TYPES))
        lead = CARD_SUIT[card].astype(np.intp)
        n_after = np.full(len(k), info.num_players - 1)
        surv = self._survival(info, k, card, lead, n_after)
        trump = CARD_SUIT[card] == info.trump[k]
        # Trumps keep extra value: they win tricks by trumping in once a suit runs out.
        keep[k, card] = surv + 0.25 * trump + CARD_RANK[card] / 100.0
        keep[:, KANALOA] = 2.0
        keep[:, OCTOPUS] = 0.05
        return keep

    # ---- phases ----------------------------------------------------------------

    def _play(
        self, view: State, rows: np.ndarray, seats: np.ndarray, masks: np.ndarray
    ) -> np.ndarray:
        P = view.num_players
        b = len(rows)
        info = self._card_info(view, rows, seats)
        keep = self._keep_values(info, b)
        k, card = np.nonzero(masks[:, :NUM_CARD_TYPES])
        # Does the card win the trick as it stands?
        cards = info.trick[k].copy()
        n_in = info.n_in[k]
        cards[np.arange(len(k)), n_in] = card
        lead_now = info.lead[k]
        lead = np.where(
            (lead_now < 0) & (card < NUM_TIKI), CARD_SUIT[np.minimum(card, NUM_TIKI - 1)], lead_now
        ).astype(np.intp)
        wins = trick_winner(cards, info.trump[k], lead) == n_in
        wins &= card != OCTOPUS  # R5.4; trick_winner's argmax would name a lone octopus
        n_after = P - 1 - n_in
        p_win = np.where(wins, self._survival(info, k, card, lead, n_after), 0.0)
        win = np.zeros((b, NUM_CARD_TYPES), dtype=bool)
        pw = np.zeros((b, NUM_CARD_TYPES))
        win[k, card] = wins
        pw[k, card] = p_win

        value, laps, threat = self._trick_value(view, rows, seats)
        matters = laps | threat | (value >= 2)
        n_kan = info.mine[:, KANALOA]
        kan_ok = matters | (info.tricks_left <= n_kan + 1)
        allowed = masks[:, :NUM_CARD_TYPES].copy()
        allowed[:, KANALOA] &= kan_ok
        thr = np.where(matters, self.matter_threshold, self.win_threshold)
        good = win & allowed & (pw >= thr[:, None])
        # An opponent who announced no tricks and holds the trick may keep it.
        let_nil = self._nil_opponent_winning(view, rows, info) & ~matters
        good &= ~let_nil[:, None]

        legal = masks[:, :NUM_CARD_TYPES]
        cheap = np.where(good, keep, np.inf).argmin(axis=1)
        best_try = np.where(win & legal, pw, -1.0).argmax(axis=1)
        discard = np.where(legal, keep, np.inf).argmin(axis=1)
        choice = np.where(good.any(axis=1), cheap, discard)
        go_for_it = ~good.any(axis=1) & matters & ~let_nil & (win & legal).any(axis=1)
        choice = np.where(go_for_it, best_try, choice)

        # Announced no tricks and none won yet: lose every trick (R7.3).
        nil = (view.announced[rows, seats] == 1) & (view.tricks_won[rows, seats] == 0)
        if nil.any():
            losers = legal & ~win
            dump = np.where(losers, keep, -np.inf).argmax(axis=1)
            weakest = np.where(legal, pw + keep / 100.0, np.inf).argmin(axis=1)
            choice = np.where(nil, np.where(losers.any(axis=1), dump, weakest), choice)
        return choice.astype(np.int64)

    def _trick_value(
        self, view: State, rows: np.ndarray, seats: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """What winning the trick is worth to each deciding player.

        Returns (value, laps, threat): fields its boat would gain (0 when it
        announced and may not move, R7.4), plus one for a dolphin it could take;
        whether the move laps the last boat (wins the game, R9.2); whether an
        opponent is within two fields of lapping (a trick to deny).
        """
        b = len(rows)
        r = np.arange(b)
        sim = view.take(rows)
        before = sim.progress[r, seats].astype(np.int64)
        route.move_forward_at(sim, r, seats)
        value = sim.progress[r, seats] - before
        value = value + route.dolphin_eligible_at(sim, r, seats)
        laps = route.has_lapped_at(sim, r, seats)
        moves = np.ones(b, dtype=bool)
        if not view.config.announced_boat_moves:
            moves = view.announced[rows, seats] != 1
        value = np.where(moves, value, 0)
        laps &= moves
        dist = _lap_distances(view.progress[rows].astype(np.int64), route.lap_length(view, rows))
        opp = view.announced[rows] != 1 if not view.config.announced_boat_moves else None
        opp_dist = np.where(np.arange(view.num_players) == seats[:, None], np.inf, dist)
        if opp is not None:
            opp_dist = np.where(opp, opp_dist, np.inf)
        threat = opp_dist.min(axis=1) <= 2
        return value, laps, threat

    def _nil_opponent_winning(self, view: State, rows: np.ndarray, info: _CardInfo) -> np.ndarray:
        """(b,) bool: the trick so far is held by an opponent whose no-tricks announcement stands."""
        if not view.config.nil_announcement:
            return np.zeros(len(rows), dtype=bool)
        P = view.num_players
        has = info.n_in > 0
        lead = np.where(info.lead >= 0, info.lead, 0)
        order = trick_winner(info.trick, info.trump, lead)
        holder = (view.leader[rows].astype(np.intp) + order) % P
        # A trick of specials only has no Tiki card yet; an octopus never holds it.
        holder_card = info.trick[np.arange(len(rows)), order]
        holds = has & (holder_card != OCTOPUS)
        nil = (view.announced[rows, holder] == 1) & (view.tricks_won[rows, holder] == 0)
        return holds & nil & (holder != info.seats)

    def _remove(
        self, view: State, rows: np.ndarray, seats: np.ndarray, masks: np.ndarray
    ) -> np.ndarray:
        P = view.num_players
        k, choice = np.nonzero(masks[:, REMOVE_BASE:ANNOUNCE])
        g = rows[k]
        sim = view.take(g)
        r = np.arange(len(k))
        slot = route.slot_ahead_at(sim, r, seats[k], choice)
        route.remove_slot_at(sim, r, slot)
        dist = _lap_distances(sim.progress.astype(np.int64), route.lap_length(sim, r))
        own = dist[r, seats[k]]
        others = np.where(np.arange(P) == seats[k][:, None], np.inf, dist).min(axis=1)
        score = np.full((len(rows), _NUM_REMOVE), -np.inf)
        # Lexicographic: the margin first, then the own distance (fields are small ints).
        score[k, choice] = (others - own) * 1000.0 - own
        return (REMOVE_BASE + score.argmax(axis=1)).astype(np.int64)

    def _announce(
        self, view: State, rows: np.ndarray, seats: np.ndarray, masks: np.ndarray
    ) -> np.ndarray:
        mine = _hand_counts(view.hands[rows, seats])
        held = mine[:, :NUM_TIKI] > 0
        value = np.where(held, CARD_RANK[:NUM_TIKI] + 1, 0)
        trump = CARD_SUIT[:NUM_TIKI][None, :] == view.trump[rows, None]
        per_suit = held.reshape(len(rows), NUM_SUITS, NUM_VALUES).sum(axis=2)
        hopeless = (
            (view.starting_player[rows] != seats)  # the starting player leads trick 1 (R3.3)
            & (mine[:, KANALOA] == 0)
            & (value.max(axis=1) <= self.nil_max_value)
            & (np.where(trump, value, 0).max(axis=1) <= self.nil_max_trump_value)
            & (per_suit.max(axis=1) <= self.nil_max_suit)
        )
        return np.where(hopeless, ANNOUNCE, NO_ANNOUNCE).astype(np.int64)

    def _dolphin(
        self, view: State, rows: np.ndarray, seats: np.ndarray, masks: np.ndarray
    ) -> np.ndarray:
        b = len(rows)
        r = np.arange(b)
        sim = view.take(rows)
        route.move_forward_at(sim, r, seats)
        laps = route.has_lapped_at(sim, r, seats)
        old_trump = route.trump_at(view, rows).astype(np.intp)
        new_trump = route.trump_at(sim, r).astype(np.intp)
        leads_after = route.leading_seat_at(sim, r) == seats
        mine = _hand_counts(view.hands[rows, seats])[:, :NUM_TIKI]
        # Trump strength of the hand per suit: each card counts 1 plus up to 1 for its value.
        strength = (
            (mine * (1.0 + CARD_RANK[:NUM_TIKI] / (NUM_VALUES - 1)))
            .reshape(b, NUM_SUITS, NUM_VALUES)
            .sum(axis=2)
        )
        loss = strength[r, old_trump] - strength[r, new_trump]
        tricks_left = TRICKS_PER_ROUND - view.trick_number[rows].astype(np.intp)
        this_round = view.pending[rows] == Pending.TRICK
        decline = (
            ~laps
            & leads_after
            & this_round
            & (tricks_left >= 3)
            & (loss >= self.dolphin_trump_margin)
        )
        return np.where(decline, DOLPHIN_DECLINE, DOLPHIN_TAKE).astype(np.int64)


@dataclass
class _CardInfo:
    """Per decision row: own cards, unseen cards and the trick so far."""

    mine: np.ndarray  # (b, 50) own card-type counts
    unseen: np.ndarray  # (b, 50) copies neither held nor played this round
    unseen_total: np.ndarray  # (b,)
    unseen_above: np.ndarray  # (b, 48) unseen cards of the same suit ranked higher
    unseen_suit: np.ndarray  # (b, 4) unseen Tiki cards per suit
    trick: np.ndarray  # (b, P) cards of the trick in play order, octopus-padded
    n_in: np.ndarray  # (b,) cards already in the trick
    tricks_left: np.ndarray  # (b,) tricks of the round not yet complete (= cards per hand)
    trump: np.ndarray  # (b,)
    lead: np.ndarray  # (b,) suit to follow, -1 none
    voids: np.ndarray  # (b, P) uint8 public voids
    seats: np.ndarray  # (b,)
    num_players: int


def _hand_counts(words: np.ndarray) -> np.ndarray:
    """(b,) uint64 hand bit sets -> (b, 50) int16 card-type counts."""
    w = np.ascontiguousarray(words, dtype=np.uint64)
    w = w if _LITTLE else w.byteswap()
    bits = np.unpackbits(w.view(np.uint8).reshape(-1, 8), axis=1, bitorder="little")
    out = np.empty((len(words), NUM_CARD_TYPES), dtype=np.int16)
    out[:, :NUM_TIKI] = bits[:, :NUM_TIKI]
    out[:, KANALOA] = bits[:, NUM_TIKI : NUM_TIKI + NUM_KANALOA].sum(axis=1)
    start = NUM_TIKI + NUM_KANALOA
    out[:, OCTOPUS] = bits[:, start : start + NUM_OCTOPUS].sum(axis=1)
    return out


def _lap_distances(progress: np.ndarray, lap: np.ndarray) -> np.ndarray:
    """(b, P) fields each boat still needs to lap the last other boat (R9.2)."""
    rows = np.arange(len(progress))
    last = progress.argmin(axis=1)
    rest = progress.copy()
    rest[rows, last] = np.iinfo(rest.dtype).max
    # The last boat's nearest other is the second-to-last; everyone else's is the last.
    others_min = np.where(
        np.arange(progress.shape[1]) == last[:, None],
        rest.min(axis=1)[:, None],
        progress[rows, last][:, None],
    )
    return lap[:, None] + 1 - (progress - others_min)
