"""A rule-based Kahuna player that acts on whole batches with numpy (no loop over games)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from ...core.kahuna import cards
from ...core.kahuna.board import held_islands, island_counts
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
    NUM_ISLANDS,
    NUM_LINES,
    REMOVE_BASE,
    ROW_SLOTS,
    SKIP,
    TAKE_BASE,
    Kind,
    Phase,
)
from ...core.kahuna.state import State

_PLAY, _DRAW_PHASE = int(Phase.PLAY), int(Phase.DRAW)
_CARD_ACTIONS = DISCARD_BASE  # PLACE and REMOVE: the actions that spend cards on the board
_LINE_BIT = (np.uint32(1) << np.arange(NUM_LINES, dtype=np.uint32)).astype(np.uint32)
_ISLAND_BIT = (np.uint16(1) << np.arange(NUM_ISLANDS, dtype=np.uint16)).astype(np.uint16)
_LINE_SHIFT = np.arange(NUM_LINES, dtype=np.uint32)
_MAJ = MAJORITY.astype(np.int16)
_LINES_AT = LINES_AT.astype(np.uint32)
_OTHER_END = (LINE_A.astype(np.int16) + LINE_B).astype(np.intp)  # a + b - x: the end not x
_MAX_DEGREE = int(DEGREE.max())
# _AT_LINE[x, j], _AT_FAR[x, j]: island x's j-th line and that line's far end; rows
# shorter than the largest degree are padded with line NUM_LINES (a column of zeros
# that `_bits` appends) and island 0.
_AT_LINE = np.full((NUM_ISLANDS, _MAX_DEGREE), NUM_LINES, dtype=np.intp)
_AT_FAR = np.zeros((NUM_ISLANDS, _MAX_DEGREE), dtype=np.intp)
for _x in range(NUM_ISLANDS):
    _lines_at_x = np.flatnonzero((LINES_AT[_x] >> np.arange(NUM_LINES)) & 1)
    _AT_LINE[_x, : len(_lines_at_x)] = _lines_at_x
    _AT_FAR[_x, : len(_lines_at_x)] = _OTHER_END[_lines_at_x] - _x
_IS_PLACE = ACTION_KIND[:_CARD_ACTIONS] == Kind.PLACE
_SPENT = np.where(_IS_PLACE, 1, 2)[:_CARD_ACTIONS]  # cards each PLACE / REMOVE pays


@dataclass
class HeuristicBot:
    """A rule-based Kahuna player; needs the public game state (`uses_state = True`).

    Every decision of the batch is computed at once, with numpy on the bit sets of
    the state (no loop over games). It reads only what the deciding player may know
    (`public_view`: its own hand, the opponent's hand only as far as `known` shows,
    K6.7, the pile's size but not its order, K12) and never steps the view: the
    effect of an action is worked out on copies of the bridge and stone sets.

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

    The defaults were tuned in self-play tournaments against earlier versions (seat
    balanced, 2000 to 4000 games each); `rng` is not used: the bot is deterministic.

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
        **kwargs: object,
    ) -> np.ndarray:
        """(b,) int64 legal actions for a batch of b decisions.

        Args:
            observations: (b, OBS_DIM) observations; not read (this bot uses `view`).
            masks: (b, 153) bool legal actions; every row needs one.
            rng: unused (the bot is deterministic); part of the protocol.
            view: `public_view(state, seats)` of the b games (never stepped).
            seats: (b,) the deciding seats, each game's `current_player`.

        Raises:
            TypeError: `view` or `seats` is missing, or `seats` is not integers.
            ValueError: shapes disagree, a seat is not 0 or 1 or not the player to
                act, a game is over, or a mask row has no legal action.
        """
        if view is None or seats is None:
            raise TypeError(
                "HeuristicBot needs view=public_view(state, seats) and seats= (uses_state=True)"
            )
        if not isinstance(view, State):
            raise TypeError(f"view must be a Kahuna State, got {type(view).__name__}")
        masks = np.asarray(masks)
        seats = np.asarray(seats)
        if seats.dtype.kind not in "iu":  # a float seat would be truncated silently
            raise TypeError(f"seats must be integers, got dtype {seats.dtype}")
        seats = seats.astype(np.intp)
        b = len(masks)
        if masks.shape != (b, NUM_ACTIONS) or masks.dtype != bool:
            raise ValueError(
                f"masks must be a (b, {NUM_ACTIONS}) bool array, got {masks.dtype} {masks.shape}"
            )
        if view.batch_size != b or seats.shape != (b,):
            raise ValueError(
                f"view ({view.batch_size} games), seats {seats.shape} and masks ({b} rows) disagree"
            )
        if ((seats < 0) | (seats > 1)).any():
            raise ValueError(f"seats must be 0 or 1, got {np.unique(seats).tolist()}")
        if (view.current_player != seats).any():
            raise ValueError("seats must be each game's player to act (view.current_player)")
        if b and not masks.any(axis=1).all():
            raise ValueError("every mask row needs at least one legal action")
        actions = np.argmax(masks, axis=1).astype(np.int64)  # replaced below in every row
        if b == 0:
            return actions
        ctx = _Context.build(self, view, seats)
        phase = view.phase
        final = view.final_turns_left > 0
        # PLAY: the best card action while it gains enough; otherwise the turn ends.
        undecided = phase == _DRAW_PHASE
        play = np.flatnonzero(phase == _PLAY)
        if play.size:
            best, gain = self._best_card_action(ctx, play, masks[play])
            go = gain > np.where(final[play], 0.0, self.play_threshold)
            actions[play[go]] = best[go]
            stop = play[~go]
            actions[stop[final[stop]]] = END_PLAY  # K3.3: a final turn ends with END_PLAY
            undecided[stop[~final[stop]]] = True
        rows = np.flatnonzero(undecided)
        if rows.size:
            actions[rows] = self._end_turn(ctx, rows, masks[rows])
        return actions

    # ---- the value of a position -------------------------------------------------

    def _value(
        self,
        ctx: _Context,
        k: np.ndarray,
        mb: np.ndarray,
        ob: np.ndarray,
        ms: np.ndarray,
        os_: np.ndarray,
        hand: np.ndarray,
    ) -> np.ndarray:
        """(n,) value in stones, for the player deciding in row `k[i]` of `ctx`, of the
        position with its bridges `mb`, the opponent's `ob` (uint32 line sets), stones
        `ms`, `os_` (uint16 island sets) and its hand `hand` (count words), all (n,)."""
        cm = island_counts(mb).astype(np.int16)  # (n, 12)
        co = island_counts(ob).astype(np.int16)
        free = ~(mb | ob) & np.uint32(ALL_LINES)
        cf = island_counts(free).astype(np.int16)
        nm = np.bitwise_count(mb).astype(np.intp)
        no = np.bitwise_count(ob).astype(np.intp)
        sm = np.bitwise_count(ms).astype(np.int16)
        so = np.bitwise_count(os_).astype(np.int16)
        hm, ho = held_islands(mb), held_islands(ob)
        value = (sm - so).astype(np.float64)
        value += self.unmarked_value * (
            np.bitwise_count(hm & ~ms).astype(np.float64)
            - np.bitwise_count(ho & ~os_).astype(np.float64)
        )
        value += self.bridge_value * (nm - no)
        danger = np.asarray(self.danger, dtype=np.float64)
        last = len(danger)
        early = ctx.early[k]
        value += early * (_at(danger, no, last) - _at(danger, nm, last))
        # The races: islands nobody holds, where a side has the free lines it needs.
        need_m = _MAJ - cm
        need_o = _MAJ - co
        open_m = (need_m >= 1) & (need_m <= cf) & (nm < BRIDGES_PER_PLAYER)[:, None]
        open_o = (need_o >= 1) & (need_o <= cf) & (no < BRIDGES_PER_PLAYER)[:, None]
        race = np.asarray(self.race_values, dtype=np.float64)
        span = len(race)
        # A side that needs more bridges than the other where both can still win.
        m_behind = np.where(open_o & (need_o < need_m), self.behind_factor, 1.0)
        o_behind = np.where(open_m & (need_m < need_o), self.behind_factor, 1.0)
        value += ctx.mine_next[k] * (_at(race, need_m, span) * open_m * m_behind).sum(axis=1)
        value -= ctx.theirs_next[k] * (_at(race, need_o, span) * open_o * o_behind).sum(axis=1)
        # Cards that pay for a bridge at island x: x's own, and the far ends of x's
        # free lines (K4.1).
        fbits = _bits(free)
        unseen = ctx.unseen[k]
        u = ctx.num_unseen[k][:, None]
        r_unseen = _paying(fbits, unseen)
        # The opponent's claims on its next turn.
        r_known = _paying(fbits, ctx.their_known[k])
        hidden = ctx.their_hidden[k][:, None]
        p1 = _at_least(1, r_known, hidden, r_unseen, u)
        p2 = _at_least(2, r_known, hidden, r_unseen, u)
        p_theirs = np.where(need_o == 1, p1, self.double_weight * p2 * (need_o == 2)) * open_o
        cost = self._claim_worth(ctx, k, so, mb, ms, early, danger)
        value -= ctx.theirs_next[k] * (p_theirs * cost).sum(axis=1)
        # Removals that would break the player's islands held with no bridge to spare.
        # (A card of x or of the far end of one of the player's lines at x.)
        mbits = _bits(mb)
        b_known = _paying(mbits, ctx.their_known[k])
        b_unseen = _paying(mbits, unseen)
        tight = (cm == _MAJ) & ((ms[:, None] & _ISLAND_BIT) != 0)
        p_break = _at_least(2, b_known, hidden, b_unseen, u) * tight
        value -= ctx.theirs_next[k] * self.break_weight * p_break.sum(axis=1)
        # The player's own claims on its next turn (the opponent moves first).
        mine = cards.counts(hand).astype(np.float32)
        r_mine = _paying(fbits, mine)
        r_row = _paying(fbits, ctx.face_up[k])
        draw = np.minimum(r_unseen / np.maximum(u, 1.0), 1.0)
        p_one = np.where(r_mine >= 1, 1.0, np.where(r_row >= 1, self.take_chance, draw))
        p_two = np.where(r_mine >= 2, 1.0, np.where(r_mine >= 1, np.maximum(draw, 0.0), 0.0))
        p_mine = np.where(need_m == 1, p_one, self.double_weight * p_two * (need_m == 2)) * open_m
        gain = self._claim_worth(ctx, k, sm, ob, os_, early, danger)
        # One card pays for one claim, and about one card comes per turn: only the
        # best two claims count (a sum over islands would count a card many times).
        top = np.sort(p_mine * gain, axis=1)
        own = top[:, -1] + self.second_weight * top[:, -2]
        value += ctx.mine_next[k] * self.own_weight * own
        return value

    def _claim_worth(
        self,
        ctx: _Context,
        k: np.ndarray,
        claimer_stones: np.ndarray,
        victim_bridges: np.ndarray,
        victim_stones: np.ndarray,
        early: np.ndarray,
        danger: np.ndarray,
    ) -> np.ndarray:
        """(n, 12) what a claim at each island is worth to the claimer (K5.3): its stone
        while its supply lasts, the stones the victim loses when its bridges there go
        back (K5.4), and the change in the victim's early-end danger (K8.2)."""
        left = victim_bridges[:, None] & ~_LINES_AT  # (n, 12) the victim's bridges after
        lost = np.bitwise_count(victim_stones[:, None] & ~held_islands(left))
        stone = claimer_stones < ctx.stones_per_player
        last = len(danger)
        before = _at(danger, np.bitwise_count(victim_bridges).astype(np.intp), last)
        after = _at(danger, np.bitwise_count(left).astype(np.intp), last)
        return stone[:, None] + lost + early[:, None] * (after - before[:, None])

    # ---- playing cards -------------------------------------------------------------

    def _best_card_action(
        self, ctx: _Context, rows: np.ndarray, masks: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """The best legal PLACE or REMOVE of each row and its gain (-inf where none is
        legal): value after less value before, less the cards' cost. (b,) each."""
        k, a = np.nonzero(masks[:, :_CARD_ACTIONS])
        b = len(rows)
        best = np.zeros(b, dtype=np.int64)
        gain = np.full(b, -np.inf)
        if k.size == 0:
            return best, gain
        g = rows[k]
        mb, ob, ms, os_ = _apply(ctx, g, a)
        spent = cards.ONE[ACTION_CARD[a]] + np.where(
            ACTION_CARD2[a] >= 0, cards.ONE[np.maximum(ACTION_CARD2[a], 0)], 0
        ).astype(np.uint32)
        hand = ctx.hand[g] - spent
        after = self._value(ctx, g, mb, ob, ms, os_, hand)
        score = after - ctx.before[g] - ctx.card_cost[g] * _SPENT[a]
        table = np.full((b, _CARD_ACTIONS), -np.inf)
        table[k, a] = score
        best = table.argmax(axis=1).astype(np.int64)
        gain = table[np.arange(b), best]
        return best, gain

    # ---- ending the turn -----------------------------------------------------------

    def _card_worth(self, ctx: _Context, rows: np.ndarray) -> np.ndarray:
        """(b, 12) the worth of one more card of each island: the best gain of a bridge
        it pays for (K4.1) or of a removal it completes a pair for (K4.2) on the board
        as it is, never below 0."""
        b = len(rows)
        mb, ob = ctx.mb[rows], ctx.ob[rows]
        free = ~(mb | ob) & np.uint32(ALL_LINES)
        can_place = np.bitwise_count(mb) < BRIDGES_PER_PLAYER
        fbits = ((free[:, None] >> _LINE_SHIFT) & np.uint32(1)).astype(bool) & can_place[:, None]
        obits = ((ob[:, None] >> _LINE_SHIFT) & np.uint32(1)).astype(bool)
        # Place candidates: action 2l (card of end a) stands for the line; removals a+b.
        kp, lp = np.nonzero(fbits)
        kr, lr = np.nonzero(obits)
        k = np.concatenate([kp, kr])
        act = np.concatenate([2 * lp, REMOVE_BASE + 3 * lr + 2])
        worth = np.zeros((b, NUM_ISLANDS))
        if k.size == 0:
            return worth
        g = rows[k]
        after = self._value(ctx, g, *_apply(ctx, g, act), ctx.hand[g])
        gain = np.maximum(after - ctx.before[g], 0.0)
        line = ACTION_LINE[act].astype(np.intp)
        ends = np.stack([LINE_A[line], LINE_B[line]], axis=1).astype(np.intp)
        is_place = np.arange(len(k)) < len(kp)
        held = cards.counts(ctx.hand[g]).astype(np.int16)
        rr = np.arange(len(k))
        for e in range(2):
            x = ends[:, e]
            other = ends[:, 1 - e]
            # A removal with this card: another card of either end must be in hand.
            pairs = (held[rr, other] + held[rr, x]) >= 1
            ok = is_place | pairs
            np.maximum.at(worth, (k[ok], x[ok]), gain[ok])
        return worth

    def _end_turn(self, ctx: _Context, rows: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """TAKE, DRAW, SKIP, END_PLAY or a hand-back for games `rows` whose player ends
        its turn (K6)."""
        b = len(rows)
        r = np.arange(b)
        worth = self._card_worth(ctx, rows)
        slots = ctx.slots[rows]  # (b, 3) islands, -1 empty
        filled = slots >= 0
        slot_worth = np.where(filled, worth[r[:, None], np.maximum(slots, 0)], -np.inf)
        best_slot = slot_worth.argmax(axis=1)
        take_worth = slot_worth[r, best_slot]
        unseen = ctx.unseen[rows]
        draw_worth = (unseen * worth).sum(axis=1) / np.maximum(unseen.sum(axis=1), 1.0)
        has_pile = ctx.pile_size[rows] > 0
        new_worth = np.maximum(take_worth, np.where(has_pile, draw_worth, -np.inf))
        take = TAKE_BASE + best_slot
        prefer_take = filled.any(axis=1) & (
            ~has_pile | (take_worth >= draw_worth + self.take_margin)
        )
        choice = np.where(prefer_take, take, DRAW)
        # A full hand: swap its least useful card (hand it back, K6.4) or skip.
        held = cards.counts(ctx.hand[rows]) > 0
        worst = np.where(held, worth, np.inf).argmin(axis=1)
        worst_worth = worth[r, worst]
        full = cards.size(ctx.hand[rows]) >= HAND_LIMIT
        swap = (new_worth - worst_worth > self.swap_margin) | ~masks[:, SKIP]
        in_play = ctx.phase[rows] == _PLAY
        full_choice = np.where(
            swap, np.where(in_play, END_PLAY, DISCARD_BASE + worst), SKIP
        ).astype(np.int64)
        choice = np.where(full, full_choice, choice)
        return _legal_or_fallback(choice, masks)


@dataclass
class _Context:
    """Per decision row: the position from the deciding player's side and the weights
    that depend on the moment of the game."""

    mb: np.ndarray  # (b,) uint32 own bridges
    ob: np.ndarray  # (b,) uint32 the opponent's bridges
    ms: np.ndarray  # (b,) uint16 own stones
    os_: np.ndarray  # (b,) uint16 the opponent's stones
    hand: np.ndarray  # (b,) uint32 own hand (count word)
    unseen: np.ndarray  # (b, 12) float32 cards of each island the player has not seen
    num_unseen: np.ndarray  # (b,) float32
    their_known: np.ndarray  # (b, 12) float32 the opponent's cards known to the player
    their_hidden: np.ndarray  # (b,) float32 the opponent's other cards
    face_up: np.ndarray  # (b, 12) float32 face-up cards per island
    slots: np.ndarray  # (b, 3) island of each face-up slot, -1 empty
    pile_size: np.ndarray  # (b,)
    phase: np.ndarray  # (b,)
    mine_next: np.ndarray  # (b,) 1 while the player has another turn, else 0
    theirs_next: np.ndarray  # (b,) 1 while the opponent has another turn, else 0
    early: np.ndarray  # (b,) weight of the early-end danger (K8.2)
    card_cost: np.ndarray  # (b,) value of a card kept in hand
    stones_per_player: int
    before: np.ndarray  # (b,) value of the position as it is

    @classmethod
    def build(cls, bot: HeuristicBot, view: State, seats: np.ndarray) -> _Context:
        b = view.batch_size
        r = np.arange(b)
        q = 1 - seats
        hand = view.hands[r, seats]
        their_known = cards.counts(view.hands[r, q]).astype(np.float32)
        face_up = np.zeros((b, NUM_ISLANDS), dtype=np.float32)
        for s in range(ROW_SLOTS):
            x = view.face_up[:, s].astype(np.intp)
            np.add.at(face_up, (r[x >= 0], x[x >= 0]), 1.0)
        seen = (
            cards.counts(hand + view.discard_up + view.discard_down[r, seats]).astype(np.float32)
            + their_known
            + face_up
        )
        unseen = np.maximum(2.0 - seen, 0.0).astype(np.float32)
        final_left = view.final_turns_left.astype(np.intp)
        cards_left = view.pile_size.astype(np.intp) + (view.face_up >= 0).sum(axis=1)
        # K8.2: from round 2 on; in round 1 fully only once the scoring is near.
        early = np.where(
            view.num_scorings > 0, 1.0, np.where(cards_left <= 4, 1.0, bot.early_round1)
        )
        if not view.config.early_end:
            early = np.zeros(b)
        ctx = cls(
            mb=view.bridges[r, seats],
            ob=view.bridges[r, q],
            ms=view.stones[r, seats],
            os_=view.stones[r, q],
            hand=hand,
            unseen=unseen,
            num_unseen=unseen.sum(axis=1),
            their_known=their_known,
            their_hidden=view.hidden_hand[r, q].astype(np.float32),
            face_up=face_up,
            slots=view.face_up.astype(np.intp),
            pile_size=view.pile_size.astype(np.intp),
            phase=view.phase,
            mine_next=(final_left == 0).astype(np.float64),
            theirs_next=(final_left != 1).astype(np.float64),
            early=early.astype(np.float64),
            card_cost=np.where(final_left > 0, 0.0, bot.card_cost),
            stones_per_player=view.config.stones_per_player,
            before=np.zeros(b),
        )
        ctx.before = bot._value(ctx, r, ctx.mb, ctx.ob, ctx.ms, ctx.os_, ctx.hand)
        return ctx


def _apply(
    ctx: _Context, g: np.ndarray, a: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The bridges and stones (mine, theirs, my stones, their stones), each (n,), after
    PLACE or REMOVE action `a[i]` in row `g[i]` of `ctx`: a PLACE claims at the card's
    island, then at the other end (K5.2, K5.3); then the opponent's stone losses (K5.4)."""
    mb, ob, ms, os_ = ctx.mb[g], ctx.ob[g], ctx.ms[g], ctx.os_[g]
    line = ACTION_LINE[a].astype(np.intp)
    bit = _LINE_BIT[line]
    place = ACTION_KIND[a] == Kind.PLACE
    mb = np.where(place, mb | bit, mb)
    ob = np.where(place, ob, ob & ~bit)
    x = ACTION_CARD[a].astype(np.intp)
    for end in (x, _OTHER_END[line] - x):
        at = _LINES_AT[end]
        claim = place & (np.bitwise_count(mb & at) == _MAJ[end])
        room = np.bitwise_count(ms) < ctx.stones_per_player
        ms = np.where(claim & room, ms | _ISLAND_BIT[end], ms)
        ob = np.where(claim, ob & ~at, ob)
    os_ = os_ & held_islands(ob)
    return mb, ob, ms, os_


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


def _at(table: np.ndarray, index: np.ndarray, size: int) -> np.ndarray:
    """`table[index]`, 0 past its end and below 0."""
    i = np.asarray(index)
    inside = (i >= 0) & (i < size)
    return np.where(inside, table[np.clip(i, 0, size - 1)], 0.0)


def _bits(lines: np.ndarray) -> np.ndarray:
    """(n, 28) float32 0/1: the lines of each (n,) uint32 line set, and a last column
    of zeros (the padding of `_AT_LINE`)."""
    out = np.zeros((len(lines), NUM_LINES + 1), dtype=np.float32)
    out[:, :NUM_LINES] = (lines[:, None] >> _LINE_SHIFT) & np.uint32(1)
    return out


def _paying(lines: np.ndarray, cards_: np.ndarray) -> np.ndarray:
    """(n, 12): for each island x, the cards among `cards_` (n, 12 counts per island)
    that are of x itself or of the far end of one of the lines `lines` (n, 28, from
    `_bits`) at x: the cards that pay for a bridge on those lines at x (K4.1), or
    pair up with an x card to remove one (K4.2)."""
    c = cards_.astype(np.float32)
    # A gather over each island's lines rather than a (27, 12) matmul: 75 against
    # 115 ms for 40000 rows (10 calls each, 2 cores at load 13), as BLAS threads lose
    # on a loaded machine.
    return c + (lines[:, _AT_LINE] * c[:, _AT_FAR]).sum(axis=2)


def _at_least(
    need: int, known: np.ndarray, hidden: np.ndarray, useful: np.ndarray, unseen: np.ndarray
) -> np.ndarray:
    """Chance that a hand holds at least `need` useful cards: `known` of them are
    certain, the `hidden` other cards are each useful with chance useful / unseen
    (a binomial estimate of drawing from the unseen cards). Shapes broadcast."""
    p = np.clip(useful / np.maximum(unseen, 1.0), 0.0, 1.0)
    miss = need - known
    none = (1.0 - p) ** hidden
    one = hidden * p * (1.0 - p) ** np.maximum(hidden - 1.0, 0.0)
    p1 = 1.0 - none
    p2 = np.maximum(p1 - one, 0.0)
    return np.where(miss <= 0, 1.0, np.where(miss == 1, p1, p2))


def _legal_or_fallback(choice: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """`choice` where legal; else the first legal of DRAW, TAKE 0..2, SKIP, END_PLAY,
    then any legal action (the rows that reach this are rare corner cases)."""
    r = np.arange(len(choice))
    ok = masks[r, choice]
    if ok.all():
        return choice.astype(np.int64)
    order = [DRAW, *range(TAKE_BASE, TAKE_BASE + ROW_SLOTS), SKIP, END_PLAY]
    fallback = np.argmax(masks, axis=1)
    for a in reversed(order):
        fallback = np.where(masks[:, a], a, fallback)
    return np.where(ok, choice, fallback).astype(np.int64)
