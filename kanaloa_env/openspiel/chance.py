"""How a game's random events become OpenSpiel chance nodes.

Our engines draw every random number from the game's counter-based key
(`kanaloa_env.core.rng`), inside `init` and `step`. OpenSpiel wants each random event as
a chance node whose outcome is an action with its probability, so that a history of
actions replays a game exactly. A `ChanceModel` is that translation for one game: it
lists the outcomes of the chance node a state is at, records each outcome, and writes
the engine's position from the outcomes once they are all known, so that the engine's
own key never decides anything an OpenSpiel player sees.

The OpenSpiel state (`kanaloa_env.openspiel.game.OpenSpielState`) holds:

- `engine`: the engine's state, a batch of one (None until the set-up is complete);
- `pending`: a list describing the chance event under way (None at a decision node or
  at the end); its first entry names the event, the rest is the model's own record.

A model overrides `begin`, `outcomes`, `apply_outcome`, `outcome_name` and, where a
player's decision starts a chance event (a draw from a pile), `apply_action` and
`after_step`. The docstrings of `KanaloaChance` and `KahunaChance` say how each game's
events are modelled (docs/integrations.md, "OpenSpiel", has the same in prose).
"""

from __future__ import annotations

import functools
from bisect import bisect_left
from collections.abc import Callable, Sequence
from operator import itemgetter
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from ..core.kahuna import constants as kc
from ..core.kahuna.masks import refresh_game as kahuna_refresh
from ..core.kanaloa import constants as nc
from ..core.kanaloa.masks import refresh_game as kanaloa_refresh
from ..core.kernels import call

if TYPE_CHECKING:
    from .game import OpenSpielState

__all__ = ["ChanceModel", "KahunaChance", "KanaloaChance"]


class ChanceModel:
    """The chance events of one game as OpenSpiel chance nodes (subclass it).

    Class attributes:
        max_chance_outcomes: the largest chance action + 1 (OpenSpiel's
            `max_chance_outcomes`).
    """

    max_chance_outcomes: int = 1
    #: The text form (OpenSpiel parameters are bools, ints, floats and strings) of each
    #: `Config` field that has none, by field: its default text ...
    parameter_defaults: ClassVar[dict[str, Any]] = {}
    #: ... and the function that turns a parameter's value into the field's.
    parameter_decoders: ClassVar[dict[str, Callable[[Any], Any]]] = {}

    def utility_bounds(self, config: Any) -> tuple[float, float]:
        """The least and greatest return of a player (OpenSpiel's `min_utility` and
        `max_utility`) in a game of `config` (the engine's `Config`); the returns of a
        game sum to 0."""
        return -1.0, 1.0

    def begin(self, config: Any) -> list[Any]:
        """The `pending` record of a new game of `config` (the engine's `Config`): the
        set-up's first chance node."""
        raise NotImplementedError

    def outcomes(self, st: OpenSpielState) -> list[tuple[int, float]]:
        """(action, probability) of each possible outcome of `st`'s chance node, in
        increasing action order, probabilities summing to 1."""
        raise NotImplementedError

    def apply_outcome(self, st: OpenSpielState, outcome: int) -> None:
        """Record `outcome` (one of `outcomes(st)`), building or updating `st.engine`
        and clearing `st.pending` once the event is complete."""
        raise NotImplementedError

    def outcome_name(self, st: OpenSpielState, outcome: int) -> str:
        """`outcome` of `st`'s chance node in words ("deal red-7 to player_2")."""
        return f"chance outcome {outcome}"

    def is_possible(self, st: OpenSpielState, outcome: object) -> bool:
        """Whether `outcome` is an outcome of `st`'s chance node (a game may answer faster
        than by listing them)."""
        return any(a == outcome for a, _ in self.outcomes(st))

    def apply_action(self, st: OpenSpielState, action: int) -> None:
        """Apply the legal decision `action` of the player to act: by default the engine's
        step, then `after_step`. A model whose decisions start a chance event (a draw)
        sets `st.pending` instead and steps the engine once the outcome is known."""
        st.step_engine(action)
        self.after_step(st)

    def after_step(self, st: OpenSpielState) -> None:
        """Called after every engine step of `st` (the OpenSpiel state): start the
        chance event the step began (a new round's deal), hiding what the engine's key
        chose for it."""

    def max_chance_nodes(self, config: Any, max_decisions: int) -> int:
        """A bound on the chance nodes of one game of `config` (OpenSpiel's
        `MaxChanceNodesInHistory`); `max_decisions` is the game's decision bound."""
        return max_decisions

    def max_decisions(self, config: Any) -> int:
        """A bound on the decisions (player moves) of one game of `config`: OpenSpiel's
        `max_game_length`."""
        raise NotImplementedError


_INITIAL: dict[tuple[str, Any], Any] = {}
_MAX_INITIAL = 32


def initial_state(game: Any, config: Any) -> Any:
    """A new copy of `game.init(config, 1, 0)`, the engine state a model's set-up writes
    its chance outcomes into (a batch of one). The engine's init is the same for a
    config every time (seed 0, game 0) and costs about 1 ms at batch size one; it runs
    once per config (the last 32 kept) and each game copies it (about 25 us).

    Args:
        game: the engine's `Game`.
        config: its `Config`.
    """
    key = (game.name, config)
    got = _INITIAL.get(key)
    if got is None:
        if len(_INITIAL) >= _MAX_INITIAL:
            _INITIAL.clear()
        got = _INITIAL[key] = game.init(config, 1, 0)
    return got.copy()


def _draw_counts(counts: Sequence[int]) -> list[tuple[int, float]]:
    """(item, count / total) for every item with a count: a uniform draw of one physical
    card among those left, told by its kind."""
    total = sum(counts)
    return [(k, c / total) for k, c in enumerate(counts) if c]


# ---- Kanaloa ---------------------------------------------------------------------

_CARD_COPIES = (1,) * nc.NUM_TIKI + (nc.NUM_KANALOA, nc.NUM_OCTOPUS)
_DECK_SIZE = sum(_CARD_COPIES)
# A deal's record keeps, besides the copies left of each kind, the sorted keys
# kind * _STRIDE + copies left of the kinds with copies: a deal's chance node lists its
# outcomes as the cached (kind, copies / cards left) pairs of those keys, without a
# Python loop over the 50 kinds at each of its 8P nodes.
_STRIDE = max(_CARD_COPIES) + 1
_DEAL_KEYS = tuple(k * _STRIDE + c for k, c in enumerate(_CARD_COPIES))


@functools.lru_cache(maxsize=64)
def _deal_pairs(left: int) -> tuple[Any, ...]:
    """By key kind * _STRIDE + copies: the outcome (kind, copies / left) of a deal with
    `left` cards left (None for no copies)."""
    return tuple(
        (key // _STRIDE, (key % _STRIDE) / left) if key % _STRIDE else None
        for key in range(nc.NUM_CARD_TYPES * _STRIDE)
    )


def _new_deal() -> list[Any]:
    """The record of a deal's progress: copies left per kind, kinds dealt, keys."""
    return [list(_CARD_COPIES), [], list(_DEAL_KEYS)]


_FIRST_BIT = (*range(nc.NUM_TIKI), nc.NUM_TIKI, nc.NUM_TIKI + nc.NUM_KANALOA)


DEFAULT_DECK_TEXT = "default"


def deck_text(deck: Sequence[Sequence[str]]) -> str:
    """An ocean deck as one OpenSpiel parameter: cards joined by "/", a card's two fields
    by "+", a field in RULES.md's notation with "(start)" written "_start" (OpenSpiel's
    game strings give brackets and commas a meaning): "blue_start+red/red+blue*/..."."""
    return "/".join("+".join(f.replace("(start)", "_start") for f in card) for card in deck)


def parse_deck_text(text: Any) -> Any:
    """The ocean deck a `deck_text` names ("default": the engine's default deck);
    TypeError for a non-string; the engine's `Config` checks the deck itself."""
    if not isinstance(text, str):
        raise TypeError(f"ocean_deck must be a string like {DEFAULT_DECK_TEXT!r}, got {text!r}")
    if text == DEFAULT_DECK_TEXT:
        return nc_default_deck()
    cards = [card.split("+") for card in text.split("/")]
    return tuple(tuple(f.replace("_start", "(start)") for f in card) for card in cards)


def nc_default_deck() -> Any:
    from ..core.kanaloa.ocean import DEFAULT_OCEAN_DECK

    return DEFAULT_OCEAN_DECK


def kanaloa_card_name(kind: int) -> str:
    """A card kind (0..49, the play actions' numbering) in our notation ("red-7")."""
    return nc.action_name(int(kind)).removeprefix("play ")


class KanaloaChance(ChanceModel):
    """Kanaloa's random events (RULES.md R2, R3.1) as chance nodes.

    - The route (R2.1, R2.2), slot by slot: outcome `2 * card + flip`, the deck field
      code of the slot's first field in sailing order (the engine's `route` entry). The
      engine draws the cards left out uniformly among those without the start field and
      orders the route uniformly with independent orientations; so each sequence of
      distinct cards that holds the start card is equally likely, and slot n (m slots
      left) holds the start card with probability 1/m until it is placed, each unused
      other card sharing the rest; each orientation has probability 1/2.
    - The first starting player (R2.4): one of P, uniform.
    - Each round's deal (R3.1), card by card as OpenSpiel's hearts deals: card j of the
      deal goes to player j % P; an outcome is a card kind 0..49 (the play actions'
      numbering, 48 Kanaloa, 49 octopus), with probability copies left / cards left. Which
      physical copy of a Kanaloa or octopus card a player holds carries no meaning; the
      copies go to the hands from the lowest bit up in seat order (as `from_scenario`).
      The 53 - 8P cards not dealt stay undrawn: nothing ever shows them.

    The route and starting player are written into a state from the engine's `init`
    (every other set-up array does not depend on the key); a deal is written into
    `hands` and the legal mask refreshed by the engine's own `refresh_game`. While a
    round's deal is under way, the new round's hands are empty in the engine state.

    Args:
        game: the engine's `Game` (`kanaloa_env.games.get_game("kanaloa")`).
    """

    max_chance_outcomes = max(nc.NUM_CARD_TYPES, 2 * nc.MAX_OCEAN_CARDS, nc.MAX_PLAYERS)
    parameter_defaults: ClassVar[dict[str, Any]] = {"ocean_deck": DEFAULT_DECK_TEXT}
    parameter_decoders: ClassVar[dict[str, Callable[[Any], Any]]] = {"ocean_deck": parse_deck_text}

    def __init__(self, game: Any) -> None:
        self.game = game

    def begin(self, config: Any) -> list[Any]:
        """`["route", []]` for any `config`: a game starts by laying out the route."""
        return ["route", []]

    def _route_counts(self, config: Any, placed: Sequence[int]) -> list[tuple[int, float]]:
        K, N = config.deck.num_cards, config.route_cards
        start = config.deck.start_card
        used = {code // 2 for code in placed}
        left = N - len(placed)
        others = [c for c in range(K) if c != start and c not in used]
        out: list[tuple[int, float]] = []
        if start in used:
            p_start, p_other = 0.0, 1.0 / len(others)
        else:
            p_start = 1.0 / left
            p_other = (1.0 - p_start) / len(others) if others else 0.0
        for card in range(K):
            p = p_start if card == start else (p_other if card in others else 0.0)
            if p > 0:
                out += [(2 * card, p / 2), (2 * card + 1, p / 2)]
        return out

    def outcomes(self, st: OpenSpielState) -> list[tuple[int, float]]:
        """(action, probability) of the outcomes of `st`'s chance node: route slot
        codes, the starting player, or the card kinds left to deal (see the class)."""
        stage = st.pending[0]
        if stage == "route":
            return self._route_counts(st.config, st.pending[1])
        if stage == "first":
            P = st.config.num_players
            return [(p, 1.0 / P) for p in range(P)]
        # The deal: the pairs of the kinds with copies left, by their keys (itemgetter
        # picks them in C; a deal never gets down to one kind, 53 - 8P >= 13 cards stay).
        pending = st.pending
        keys = pending[-1]
        pairs = _deal_pairs(_DECK_SIZE - len(pending[-2]))
        return list(itemgetter(*keys)(pairs)) if len(keys) > 1 else [pairs[keys[0]]]

    def apply_outcome(self, st: OpenSpielState, outcome: int) -> None:
        """Record `outcome` of `st`'s chance node; the last card of a deal writes the
        hands into `st.engine` (the set-up's deal builds it first) and ends the event."""
        pending, cfg = st.pending, st.config
        stage = pending[0]
        if stage == "route":
            pending[1].append(outcome)
            if len(pending[1]) == cfg.route_cards:
                st.pending = ["first", pending[1]]
            return
        if stage == "first":
            st.pending = ["setup_deal", pending[1], outcome, *_new_deal()]
            return
        counts, dealt, keys = pending[-3], pending[-2], pending[-1]
        counts[outcome] -= 1
        dealt.append(outcome)
        at = bisect_left(keys, outcome * _STRIDE)
        if counts[outcome]:
            keys[at] -= 1
        else:
            del keys[at]
        if len(dealt) < nc.HAND_SIZE * cfg.num_players:
            return
        if stage == "setup_deal":
            self._set_up(st, pending[1], pending[2])
        self._write_hands(st, dealt)
        st.pending = None

    def _set_up(self, st: OpenSpielState, route: list[int], first: int) -> None:
        cfg = st.config
        s = initial_state(self.game, cfg)
        codes = np.array(route, dtype=np.int64)
        s.route[0, 0::2] = codes
        s.route[0, 1::2] = codes ^ 1
        start = int(np.flatnonzero(cfg.deck.start[s.route[0]])[0])
        s.boat_field[0, :] = start
        s.starting_player[0] = s.leader[0] = s.current_player[0] = first
        st.engine = s
        st.round = int(s.round[0])

    def _write_hands(self, st: OpenSpielState, dealt: list[int]) -> None:
        s, P = st.engine, st.config.num_players
        taken = [0] * nc.NUM_CARD_TYPES
        hands = [0] * P
        for p in range(P):
            for k in sorted(dealt[p::P]):  # card j to player j % P
                hands[p] |= 1 << (_FIRST_BIT[k] + taken[k])
                taken[k] += 1
        s.hands[0, :] = hands
        call(kanaloa_refresh, st.config.kernel_rules(0), s.kernel_arrays(), 0)

    def is_possible(self, st: OpenSpielState, outcome: object) -> bool:
        """Whether `outcome` is an outcome of `st`'s chance node (during a deal: a card
        kind with copies left, without listing the outcomes)."""
        pending = st.pending
        if pending[0] in ("setup_deal", "deal"):
            counts = pending[-3]
            return isinstance(outcome, int) and 0 <= outcome < len(counts) and counts[outcome] > 0
        if pending[0] == "route" and type(outcome) is int:
            # `_route_counts`' positive probabilities, without listing them: an unused
            # card, and another card than the start card only while the start card is
            # placed or more than one slot is left.
            deck = st.config.deck
            if not 0 <= outcome < 2 * deck.num_cards:
                return False
            used = {code // 2 for code in pending[1]}
            if outcome // 2 in used:
                return False
            left = st.config.route_cards - len(pending[1])
            return outcome // 2 == deck.start_card or deck.start_card in used or left > 1
        return super().is_possible(st, outcome)

    def outcome_name(self, st: OpenSpielState, outcome: int) -> str:
        """`outcome` of `st`'s chance node in words ("deal red-7 to player_2")."""
        stage = st.pending[0]
        if stage == "route":
            card, flip = divmod(outcome, 2)
            return f"route slot {len(st.pending[1])}: ocean card {card}{' turned' if flip else ''}"
        if stage == "first":
            return f"player_{outcome} starts"
        p = len(st.pending[-2]) % st.config.num_players
        return f"deal {kanaloa_card_name(outcome)} to player_{p}"

    def after_step(self, st: OpenSpielState) -> None:
        """When the engine step of `st` began a new round, empty the hands the engine
        dealt from its key and start that round's deal as chance nodes."""
        s = st.engine
        round_ = s.round.item()
        if round_ != st.round and not s.done.item():
            s.hands[0, :] = 0  # the engine's own deal of the new round is not the game's
            s.legal[0, :] = False
            st.pending = ["deal", *_new_deal()]
        st.round = round_

    def max_decisions(self, config: Any) -> int:
        """A bound on one game's decisions, from `config`'s players and rounds."""
        # A round: P announcements, 8P cards, 2 octopus and 1 round-end removals, a
        # dolphin decision per trick and per payout (R3.2, R4.4, R6.3, R7).
        P = config.num_players
        return config.max_rounds * (P + 8 * P + 3 + 8 + P)

    def max_chance_nodes(self, config: Any, max_decisions: int) -> int:
        """The route's slots, the starting player and every round's deal of `config`
        (`max_decisions` is not needed)."""
        return config.route_cards + 1 + config.max_rounds * nc.HAND_SIZE * config.num_players


# ---- Kahuna ----------------------------------------------------------------------

_ISLANDS = np.arange(kc.NUM_ISLANDS)


def count_word(islands: Sequence[int]) -> int:
    """The engine's count word (2 bits per island) of a multiset of islands."""
    return sum(1 << (2 * int(x)) for x in islands)


def pile_counts(s: Any) -> list[int]:
    """The cards of each island 0..11 in the engine's face-down pile."""
    counts = [0] * kc.NUM_ISLANDS
    for x in s.pile[0, : s.pile_size.item()].tolist():  # (at most 15: a Python loop is faster)
        counts[x] += 1
    return counts


class KahunaChance(ChanceModel):
    """Kahuna's random events (KAHUNA-RULES.md K2, K6, K7.3) as chance nodes.

    - The set-up (K2.1): 9 cards dealt one at a time, 3 to player 0, 3 to player 1,
      then face-up slots 0, 1, 2; an outcome is an island 0..11 with probability
      cards of it left / cards left (24 cards, two per island). The 15 others form the
      pile, whose order nothing has fixed yet.
    - The starting player (K2.2), with `first_player="random"`: 0 or 1, 1/2 each.
    - Every card that comes off the face-down pile: a DRAW (K6.2) and the refill of a
      taken face-up slot (K6.1) are each followed by a chance node whose outcome is the
      island that comes off the pile, with probability its cards in the pile / the
      pile's size. The engine shuffles the pile in advance (its key orders it); drawing
      the top of a uniformly shuffled pile and drawing uniformly from the pile at the
      moment are the same distribution, and only the second keeps future cards out of
      the state, so the outcome is swapped onto the top of the engine's pile and the
      engine's own step then takes it.
    - The reshuffle after a scoring (K7.3): the new face-up row, slot by slot, drawn
      from the shuffled discards the same way; the rest form the new pile. (The engine
      deals its own row first; those three cards are held aside, counted with the pile,
      while chance deals the row.)

    During a chance node the engine state is the position before the event: after a
    DRAW or TAKE, before the card moves (the decision is in the history; its chance node
    comes next); during a reshuffle's row, the row's slots are empty and the pile shows
    the reshuffled cards but those three.

    Args:
        game: the engine's `Game` (`kanaloa_env.games.get_game("kahuna")`).
    """

    max_chance_outcomes = kc.NUM_ISLANDS
    # OpenSpiel reads first_player=0 as an int, which a string parameter refuses: the
    # seats are named as our agents are, "player_0" and "player_1".
    parameter_defaults: ClassVar[dict[str, Any]] = {"first_player": "random"}
    parameter_decoders: ClassVar[dict[str, Callable[[Any], Any]]] = {
        "first_player": lambda v: {"player_0": 0, "player_1": 1}.get(v, v)
    }

    def __init__(self, game: Any) -> None:
        self.game = game

    def begin(self, config: Any) -> list[Any]:
        """`["setup", []]` for any `config`: a game starts by dealing the set-up."""
        return ["setup", []]

    def outcomes(self, st: OpenSpielState) -> list[tuple[int, float]]:
        """(island, probability) of the outcomes of `st`'s chance node (the coin's
        player, 0 or 1, for the starting player); see the class."""
        stage = st.pending[0]
        if stage == "setup":
            counts = [kc.CARDS_PER_ISLAND] * kc.NUM_ISLANDS
            for x in st.pending[1]:
                counts[x] -= 1
            return _draw_counts(counts)
        if stage == "coin":
            return [(0, 0.5), (1, 0.5)]
        counts = pile_counts(st.engine)  # "draw", "take", "row"
        if stage == "row":
            for x in st.pending[2]:
                counts[x] += 1
        return _draw_counts(counts)

    def is_possible(self, st: OpenSpielState, outcome: object) -> bool:
        """Whether `outcome` is an outcome of `st`'s chance node (for a card off the
        pile: an island in the pile, without counting the pile's islands)."""
        if st.pending[0] in ("draw", "take"):
            s = st.engine
            return outcome in s.pile[0, : s.pile_size.item()].tolist()
        return super().is_possible(st, outcome)

    def apply_outcome(self, st: OpenSpielState, outcome: int) -> None:
        """Record `outcome` of `st`'s chance node: the set-up's cards, the coin, the card
        off the pile (then the engine steps the pending DRAW or TAKE) or a row slot."""
        stage = st.pending[0]
        if stage == "setup":
            dealt = st.pending[1]
            dealt.append(outcome)
            if len(dealt) < 2 * kc.START_HAND + kc.ROW_SLOTS:
                return
            if st.config.rules.random_first:
                st.pending = ["coin", dealt]
                return
            self._set_up(st, dealt, int(st.config.rules.first_player))
        elif stage == "coin":
            self._set_up(st, st.pending[1], outcome)
        elif stage in ("draw", "take"):
            action = st.pending[1]
            self._to_top(st.engine, outcome)
            st.pending = None
            st.step_engine(action)
            self.after_step(st)
            return
        else:  # "row": slot j of the reshuffled row, from the pile and the held cards
            s = st.engine
            _, slot, held = st.pending
            if outcome in held:
                held.remove(outcome)
            else:  # a pile card joins the row; a held card takes its place in the pile
                self._to_top(s, outcome)
                s.pile[0, int(s.pile_size[0]) - 1] = held.pop()
            s.face_up[0, slot] = outcome
            if held:
                st.pending = ["row", slot + 1, held]
                return
            call(kahuna_refresh, st.config.kernel_rules(0), s.kernel_arrays(), 0)
        st.pending = None

    @staticmethod
    def _to_top(s: Any, island: int) -> None:
        """Swap a card of `island` to the top of the engine's pile."""
        size = s.pile_size.item()
        pile = s.pile[0]
        cards = pile[:size].tolist()
        where = size - 1 - cards[::-1].index(island)  # the topmost card of the island
        pile[where], pile[size - 1] = cards[size - 1], island

    def _set_up(self, st: OpenSpielState, dealt: list[int], first: int) -> None:
        cfg = st.config
        s = initial_state(self.game, cfg)
        h = kc.START_HAND
        s.hands[0, 0] = count_word(dealt[:h])
        s.hands[0, 1] = count_word(dealt[h : 2 * h])
        s.face_up[0, :] = dealt[2 * h :]
        counts = np.full(kc.NUM_ISLANDS, kc.CARDS_PER_ISLAND, dtype=np.int64)
        np.subtract.at(counts, dealt, 1)
        rest = np.repeat(_ISLANDS, counts)
        s.pile[0, :] = kc.NO_CARD
        s.pile[0, : len(rest)] = rest
        s.pile_size[0] = len(rest)
        s.starting_player[0] = s.current_player[0] = first
        call(kahuna_refresh, cfg.kernel_rules(0), s.kernel_arrays(), 0)
        st.engine = s
        st.round = 0

    def apply_action(self, st: OpenSpielState, action: int) -> None:
        """Apply `action` of the player to act in `st`: a DRAW or TAKE with cards in the
        pile starts the chance node of the card that comes off it; any other action
        steps the engine."""
        s = st.engine
        if int(s.pile_size[0]) > 0 and (
            action == kc.DRAW or kc.TAKE_BASE <= action < kc.TAKE_BASE + kc.ROW_SLOTS
        ):
            st.pending = ["draw" if action == kc.DRAW else "take", action]
            return
        st.step_engine(action)
        self.after_step(st)

    def after_step(self, st: OpenSpielState) -> None:
        """When the engine step of `st` scored and reshuffled (K7.3), set the engine's
        new row aside and start the row's chance nodes."""
        s = st.engine
        scorings = s.num_scorings.item()
        if scorings != st.round and not s.done.item():
            # K7.3: the engine dealt the new row from its key. Chance deals it again from
            # the reshuffled cards: the pile's and these three, held aside meanwhile (the
            # pile has no room for all 24 cards).
            held = sorted(int(x) for x in s.face_up[0] if x >= 0)
            s.face_up[0, :] = kc.NO_CARD
            s.legal[0, :] = False
            st.pending = ["row", 0, held]
        st.round = scorings

    def outcome_name(self, st: OpenSpielState, outcome: int) -> str:
        """`outcome` of `st`'s chance node in words ("draw ALOA from the pile")."""
        stage = st.pending[0]
        island = kc.ISLAND_NAMES[outcome]
        if stage == "setup":
            n = len(st.pending[1])
            h = kc.START_HAND
            where = f"player_{n // h}" if n < 2 * h else f"face-up slot {n - 2 * h}"
            return f"deal {island} to {where}"
        if stage == "coin":
            return f"player_{outcome} starts"
        if stage == "draw":
            return f"draw {island} from the pile"
        if stage == "take":
            return f"refill slot {st.pending[1] - kc.TAKE_BASE} with {island}"
        return f"reshuffled row slot {st.pending[1]}: {island}"

    def max_decisions(self, config: Any) -> int:
        """A bound on one game's decisions, from `config`'s turn limit."""
        # A turn: at most 5 cards spent or discarded (a hand holds at most 5, K2.3), the
        # end of play, at most 5 hand-backs and the draw (K3.2, K6.4); 2 final turns.
        return (config.max_turns + kc.FINAL_TURNS) * (kc.HAND_LIMIT * 2 + 2)

    def max_chance_nodes(self, config: Any, max_decisions: int) -> int:
        """The set-up's deal and coin, a card off the pile per turn and the reshuffled
        rows, for `config`'s turn limit (`max_decisions` is not needed)."""
        setup = 2 * kc.START_HAND + kc.ROW_SLOTS + 1
        return setup + config.max_turns + kc.NUM_SCORINGS * kc.ROW_SLOTS
