"""Kahuna at the terminal: the numbered legal moves, what a typed move names, the result.

Used through the game protocol by `python -m kanaloa_env.play --game kahuna` and by
the web page. A human types a move number or a short notation (`HELP_TEXT`). Each
move's label says in words what is played and which card pays ("place bridge
BARI-DUDA, pay DUDA"), then what the move does; its words before the note parse
back to the move, so what the list shows can be typed back.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from ...core.kahuna import cards
from ...core.kahuna.board import held_islands
from ...core.kahuna.constants import (
    ACTION_CARD,
    ACTION_CARD2,
    ACTION_KIND,
    ACTION_LINE,
    ACTION_SLOT,
    BRIDGES_PER_PLAYER,
    DISCARD_BASE,
    DRAW,
    END_PLAY,
    HAND_LIMIT,
    ISLAND_NAMES,
    LINE_NAMES,
    LINES,
    LINES_AT,
    NEIGHBOURS,
    PLACE_BASE,
    REMOVE_BASE,
    REMOVE_PAIRS,
    ROW_SLOTS,
    SKIP,
    TAKE_BASE,
    Kind,
    Phase,
    action_words,
)
from ...core.kahuna.state import State
from ...drawing.terminal import BOLD, paint
from ..moves import NUMBER, move_number
from ..protocol import Move
from .describe import claims_of_place, islands_in, result_sentence
from .text import PLAYER_FG

__all__ = [
    "HELP_TEXT",
    "final_lines",
    "label_head",
    "legal_moves",
    "notation",
    "parse_move",
    "turn_prompt",
]

# Words a typed move may contain around its parts (so that "place a bridge on ALOA-BARI,
# paying ALOA" and the engine's "place ALOA-BARI with ALOA" are understood too).
_FILLER = frozenset(
    {"a", "bridge", "on", "with", "paying", "pay", "slot", "from", "the", "pile", "face", "down"}
    | {"opponent's", "opponents", "card", "into"}
)
_COMMANDS = {
    "place": Kind.PLACE,
    "p": Kind.PLACE,
    "remove": Kind.REMOVE,
    "r": Kind.REMOVE,
    "discard": Kind.DISCARD,
    "d": Kind.DISCARD,
    "back": Kind.DISCARD,
    "end": Kind.END_PLAY,
    "e": Kind.END_PLAY,
    "take": Kind.TAKE,
    "t": Kind.TAKE,
    "draw": Kind.DRAW,
    "skip": Kind.SKIP,
    "s": Kind.SKIP,
}
_ISLAND = {name.lower(): x for x, name in enumerate(ISLAND_NAMES)}
_LINE = {frozenset(ends): n for n, ends in enumerate(LINES)}

HELP_TEXT = """\
How to answer: a move number from the list, or a move in short (any case):
  place ALOA-BARI ALOA (p)      a bridge on a free line, paying a card of
                                one end; the line alone if one card can pay
  remove ELAI-HUNA HUNA HUNA (r)  the opponent's bridge off, paying two
                                cards: both of one end or one of each end
  discard COCO (d)              a card face down (a hand-back in the draw phase)
  end (e)                       end play: go to the draw phase (to hand back
                                cards), or end a final turn
  take 0 (t), take COCO         the face-up card in slot 0..2; ends the turn
  draw                          the top card of the pile; ends the turn
  skip (s)                      draw nothing; ends the turn (not after a skip)
q quits. In short: hold an island with more than half of its lines (maj) to
claim it and put a stone on it; the opponent's bridges there go back. When the
cards run out, more stones score (1 point, then 2, at the end the difference)."""


def turn_prompt(state: State) -> str:
    """What the player to act in game 0 decides now, addressed to them.
    `state` is the batch of games."""
    if state.phase[0] == Phase.GAME_OVER:
        return "the game is over"
    if state.final_turns_left[0] > 0:
        return "your final turn: place or remove bridges, then end"
    legal = state.legal[0]
    if state.phase[0] == Phase.DRAW:
        if not legal[TAKE_BASE : SKIP + 1].any():
            return "your hand is full: hand back a card, then draw"
        return "you hand back cards, or end your turn by taking, drawing or skipping"
    return "you play cards (place, remove, discard) or end your turn by taking, drawing or skipping"


_NOTATION = {
    Kind.PLACE: "place {line} {x}",
    Kind.REMOVE: "remove {line} {x} {y}",
    Kind.DISCARD: "discard {x}",
    Kind.END_PLAY: "end",
    Kind.TAKE: "take {slot}",
    Kind.DRAW: "draw",
    Kind.SKIP: "skip",
}


def notation(state: State, action: int) -> str:
    """The short notation of `action` in game 0 (the start of its move label), which
    `parse_move` reads back: "place ALOA-BARI ALOA", "remove ELAI-HUNA HUNA HUNA",
    "discard COCO", "end", "take 0", "draw", "skip". The notation depends on the action
    alone: `state` is taken for the protocol's signature."""
    return action_words(action, _NOTATION)


def _effects(state: State, action: int) -> str:
    """What a PLACE or REMOVE does to the majorities, for its label: the islands it
    claims, the opposing bridges that go back, the stones the opponent loses."""
    a = int(action)
    p = int(state.current_player[0])
    q = 1 - p
    theirs = int(state.bridges[0, q])
    parts = []
    if ACTION_KIND[a] == Kind.PLACE:
        claimed = claims_of_place(state, a)
        if not claimed:
            return ""
        parts.append("claims " + " and ".join(ISLAND_NAMES[z] for z in claimed))
        off = theirs & int(np.bitwise_or.reduce(LINES_AT[claimed]))
        if off:
            parts.append(f"{off.bit_count()} of theirs off")
        left = theirs & ~off
    else:
        left = theirs & ~(1 << int(ACTION_LINE[a]))
    lost = islands_in(int(state.stones[0, q]) & ~int(held_islands(np.array(left, dtype=np.uint32))))
    if lost:
        parts.append("they lose " + " and ".join(ISLAND_NAMES[z] for z in lost))
    return ", ".join(parts)


def label_head(state: State, action: int) -> str:
    """The words of the label of move `action` in game 0 of `state`, before its note, for
    a newcomer and parsed back by `parse_move`: "place bridge BARI-DUDA, pay DUDA", "remove opponent's bridge
    ELAI-HUNA, pay HUNA+HUNA", "discard ALOA" ("hand back ALOA" in the draw phase),
    "end play" ("end final turn"), "take COCO from slot 0", "draw from the pile",
    "skip the draw"."""
    a = int(action)
    kind = Kind(int(ACTION_KIND[a]))
    x, y = int(ACTION_CARD[a]), int(ACTION_CARD2[a])
    line = LINE_NAMES[ACTION_LINE[a]]
    if kind == Kind.PLACE:
        return f"place bridge {line}, pay {ISLAND_NAMES[x]}"
    if kind == Kind.REMOVE:
        return f"remove opponent's bridge {line}, pay {ISLAND_NAMES[x]}+{ISLAND_NAMES[y]}"
    if kind == Kind.DISCARD:
        verb = "hand back" if state.phase[0] == Phase.DRAW else "discard"
        return f"{verb} {ISLAND_NAMES[x]}"
    if kind == Kind.END_PLAY:
        return "end final turn" if state.final_turns_left[0] > 0 else "end play"
    if kind == Kind.TAKE:
        s = int(ACTION_SLOT[a])
        card = int(state.face_up[0, s])
        return f"take {ISLAND_NAMES[card]} from slot {s}" if card >= 0 else f"take {s}"
    return "draw from the pile" if kind == Kind.DRAW else "skip the draw"


def legal_moves(state: State, color: bool = False) -> list[Move]:
    """The legal actions of the player to act in game 0 of `state` (in ANSI colours if
    `color`), numbered from 1, with labels that say the move and the card it pays with
    (`label_head`) and add what the move does: "place bridge BARI-DUDA, pay DUDA  (claims
    BARI, 1 of theirs off, they lose ALOA)". Empty once the game is over."""
    if not isinstance(state, State):
        raise TypeError(f"state must be a Kahuna State, got {type(state).__name__}")
    moves = []
    in_draw = state.phase[0] == Phase.DRAW
    final = state.final_turns_left[0] > 0
    for n, a in enumerate(np.flatnonzero(state.legal[0]).tolist(), start=1):
        kind = Kind(int(ACTION_KIND[a]))
        note = ""
        if kind in (Kind.PLACE, Kind.REMOVE):
            note = _effects(state, a)
        elif kind == Kind.DISCARD:
            note = "face down, to make room for a card" if in_draw else "face down, no other effect"
        elif kind == Kind.END_PLAY:
            note = "" if final else "to the draw phase, to hand back cards"
        elif kind == Kind.TAKE:
            note = "ends your turn"
        elif kind == Kind.DRAW:
            note = f"{int(state.pile_size[0])} cards there, face down; ends your turn"
        else:
            note = "take no card; ends your turn"
        label = paint(label_head(state, a), BOLD, color) + (f"  ({note})" if note else "")
        moves.append(Move(n, a, label))
    return moves


def parse_move(text: str, state: State) -> int:
    """The action that `text`, a typed line, names for the player to act in game 0 of
    `state`.

    Accepts a move number from `legal_moves` or the notation of `HELP_TEXT`
    (case-insensitive; a line may be written either way round, `ALOA-BARI` or
    `bari aloa`; the engine's action names and `describe_action`'s words are read
    too).

    Raises:
        ValueError: with the reason the input names no legal move (not understood,
            an unknown island, a line that does not exist, a card not in the hand, a
            line that is not free, ...).
    """
    if not isinstance(text, str):
        raise TypeError(f"a typed move must be a str, got {type(text).__name__}")
    if not isinstance(state, State):
        raise TypeError(f"state must be a Kahuna State, got {type(state).__name__}")
    actions = np.flatnonzero(state.legal[0])  # move k is actions[k - 1], as in legal_moves
    n = len(actions)
    if n == 0:
        raise ValueError("the game is over: there is no move to make")
    word = text.strip().lower()
    choose = f"type a move number 1..{n}"
    k = move_number(word, n, "a move like 'take 0'")
    if k is not None:
        return int(actions[k])
    word = re.sub(r"\bhand\s+back\b", "back", word)
    tokens = [t for t in re.split(r"[\s,+\-]+", word) if t and t not in _FILLER]
    if not tokens or tokens[0] not in _COMMANDS:
        raise ValueError(
            f"not understood: {text.strip()!r}; {choose}, or a move like 'place aloa-bari aloa', "
            "'remove elai-huna huna huna', 'discard coco', 'end', 'take 0', 'draw' or 'skip' "
            "(h for help)"
        )
    kind = _COMMANDS[tokens[0]]
    args = tokens[1:]
    if kind == Kind.END_PLAY and set(args) <= {"play", "turn", "final"}:
        args = []
    if kind == Kind.SKIP and args == ["draw"]:
        args = []
    candidates = _candidates(kind, args, state)
    legal = [a for a in candidates if state.legal[0, a]]
    if len(legal) == 1:
        return legal[0]
    if len(legal) > 1:
        options = " or ".join(repr(notation(state, a)) for a in legal)
        raise ValueError(f"which one? {options}")
    reasons = list(dict.fromkeys(_why_not(state, a) for a in candidates))
    if len(reasons) == 1:
        raise ValueError(reasons[0])
    # A line named without its cards, and no pair of cards in hand pays for it.
    n = int(ACTION_LINE[candidates[0]])
    a_end, b_end = (ISLAND_NAMES[e] for e in LINES[n])
    held = " ".join(cards.names_of(int(state.hands[0, int(state.current_player[0])]))) or "nothing"
    if kind == Kind.PLACE:
        what = f"placing on {LINE_NAMES[n]} needs a {a_end} or {b_end} card"
    else:
        what = f"removing {LINE_NAMES[n]} needs two {a_end}, two {b_end} or one of each"
    raise ValueError(f"{what}; you hold {held}")


def _islands(args: list[str]) -> list[int]:
    out = []
    for t in args:
        if t not in _ISLAND:
            raise ValueError(f"unknown island {t!r}; islands are {', '.join(ISLAND_NAMES)}")
        out.append(_ISLAND[t])
    return out


def _line(a: int, b: int) -> int:
    n = _LINE.get(frozenset((a, b)))
    if n is None:
        if a == b:
            raise ValueError(f"a line joins two islands, got {ISLAND_NAMES[a]} twice")
        near = ", ".join(ISLAND_NAMES[z] for z in islands_in(int(NEIGHBOURS[a])))
        raise ValueError(
            f"no line joins {ISLAND_NAMES[a]} and {ISLAND_NAMES[b]}; "
            f"{ISLAND_NAMES[a]}'s lines go to {near}"
        )
    return n


def _candidates(kind: Kind, args: list[str], state: State) -> list[int]:
    """The actions a parsed move may mean (several when a part was left out), in index
    order; ValueError when the words name none."""
    if kind in (Kind.END_PLAY, Kind.DRAW, Kind.SKIP):
        if args:
            raise ValueError(f"{kind.name.lower().replace('_play', '')} takes nothing after it")
        return [{Kind.END_PLAY: END_PLAY, Kind.DRAW: DRAW, Kind.SKIP: SKIP}[kind]]
    if kind == Kind.TAKE:
        # "take 0", "take coco" or "take COCO from slot 0" (describe_action's words)
        numbers = [t for t in args if NUMBER.fullmatch(t)]
        names = _islands([t for t in args if not NUMBER.fullmatch(t)])
        if len(numbers) > 1 or len(names) > 1 or not args:
            raise ValueError("take what? 'take 0', 'take 1', 'take 2' or 'take ISLAND'")
        if numbers:
            s = int(numbers[0])
            if not 0 <= s < ROW_SLOTS:
                raise ValueError(f"the face-up slots are 0, 1 and 2, got {s}")
            if names and state.face_up[0, s] != names[0]:
                raise ValueError(f"slot {s} does not show {ISLAND_NAMES[names[0]]}")
            return [TAKE_BASE + s]
        x = names[0]
        slots = [s for s in range(ROW_SLOTS) if state.face_up[0, s] == x]
        if not slots:
            raise ValueError(f"{ISLAND_NAMES[x]} is not in the face-up row")
        return [TAKE_BASE + slots[0]]  # two equal slots: either take is the same card
    if kind == Kind.DISCARD:
        if len(args) != 1:
            raise ValueError("discard which card? e.g. 'discard coco'")
        return [DISCARD_BASE + _islands(args)[0]]
    if kind == Kind.PLACE:
        if len(args) not in (2, 3):
            raise ValueError("place where? e.g. 'place aloa-bari aloa' (line, then the card)")
        isl = _islands(args)
        n = _line(isl[0], isl[1])
        ends = LINES[n]
        if len(isl) == 2:
            return [PLACE_BASE + 2 * n, PLACE_BASE + 2 * n + 1]
        if isl[2] not in ends:
            raise ValueError(
                f"the card must name an end of {LINE_NAMES[n]}: "
                f"{ISLAND_NAMES[ends[0]]} or {ISLAND_NAMES[ends[1]]}"
            )
        return [PLACE_BASE + 2 * n + ends.index(isl[2])]
    # REMOVE
    if len(args) not in (2, 4):
        raise ValueError(
            "remove what? e.g. 'remove elai-huna huna huna' (the line, then two cards)"
        )
    isl = _islands(args)
    n = _line(isl[0], isl[1])
    a_end, b_end = LINES[n]
    base = REMOVE_BASE + REMOVE_PAIRS * n
    if len(isl) == 2:
        return [base, base + 1, base + 2]
    pair = sorted(isl[2:])
    if pair == [a_end, a_end]:
        return [base]
    if pair == [b_end, b_end]:
        return [base + 1]
    if pair == [a_end, b_end]:
        return [base + 2]
    raise ValueError(
        f"the two cards must name ends of {LINE_NAMES[n]}: two {ISLAND_NAMES[a_end]}, "
        f"two {ISLAND_NAMES[b_end]} or one of each"
    )


def _why_not(state: State, action: int) -> str:
    """Why `action` is not legal for the player to act in game 0, for a human."""
    p = int(state.current_player[0])
    q = 1 - p
    kind = Kind(int(ACTION_KIND[action]))
    phase = Phase(int(state.phase[0]))
    final = state.final_turns_left[0] > 0
    hand = cards.counts(state.hands[0, p])
    size = int(hand.sum())
    x, y = int(ACTION_CARD[action]), int(ACTION_CARD2[action])
    line = int(ACTION_LINE[action])
    if final and kind not in (Kind.PLACE, Kind.REMOVE, Kind.END_PLAY):
        return "this is a final turn: only place, remove and end (K3.3)"
    if phase == Phase.DRAW and kind in (Kind.PLACE, Kind.REMOVE, Kind.END_PLAY):
        return "you ended play: now hand back cards, or take, draw or skip"
    if kind == Kind.PLACE:
        owner = [o for o in (p, q) if int(state.bridges[0, o]) >> line & 1]
        if owner == [p]:
            return f"{LINE_NAMES[line]} already holds your bridge"
        if owner == [q]:
            return (
                f"{LINE_NAMES[line]} holds the opponent's bridge: remove it first "
                f"(two cards of its ends)"
            )
        if int(state.bridges[0, p]).bit_count() >= BRIDGES_PER_PLAYER:
            return "you have no bridge left in your supply (K1.5)"
        if hand[x] == 0:
            return f"you hold no {ISLAND_NAMES[x]} card"
    if kind == Kind.REMOVE:
        if int(state.bridges[0, p]) >> line & 1:
            return f"{LINE_NAMES[line]} is your own bridge: only the opponent's can be removed"
        if not int(state.bridges[0, q]) >> line & 1:
            return f"there is no bridge of the opponent on {LINE_NAMES[line]}"
        need = cards.counts(np.array(cards.word_of([x, y]), dtype=np.uint32))
        if (need > hand).any():
            return (
                f"removing with {ISLAND_NAMES[x]}+{ISLAND_NAMES[y]} needs those two cards in hand"
            )
    if kind == Kind.DISCARD:
        if hand[x] == 0:
            return f"you hold no {ISLAND_NAMES[x]} card"
        if phase == Phase.DRAW:
            return f"you may hand back cards only with {HAND_LIMIT} cards in hand (K6.4)"
        return (
            f"discarding {ISLAND_NAMES[x]} is not allowed now "
            f"(discard_rule={state.config.discard_rule!r}, K4.4)"
        )
    if kind == Kind.END_PLAY:
        return "you are not playing cards now"
    if kind in (Kind.TAKE, Kind.DRAW, Kind.SKIP):
        if kind == Kind.SKIP and state.handed_back[0]:
            return "you handed back a card: now take or draw (K6.4)"
        if kind == Kind.SKIP and state.last_turn_skipped[0]:
            return "the opponent skipped last turn: you must take or draw (K6.3)"
        if kind != Kind.SKIP and size >= HAND_LIMIT:
            how = "hand back a card" if phase == Phase.DRAW else "end play, then hand back a card"
            return f"your hand is full ({HAND_LIMIT} cards): {how} first (K6.4)"
        if kind == Kind.TAKE and state.face_up[0, int(ACTION_SLOT[action])] < 0:
            return f"slot {int(ACTION_SLOT[action])} is empty"
        if kind == Kind.DRAW and state.pile_size[0] == 0:
            return "the pile is empty: take a face-up card"
    return "that move is not legal now"


def final_lines(state: State, names: Sequence[str], color: bool = False) -> list[str]:
    """The end of game 0 of `state` for the terminal: the winner (or a draw) and why, the
    points of each scoring and the stones and bridges on the board, the players called
    by `names`, in ANSI colours if `color`."""

    def who(p: int) -> str:
        return paint(names[p], PLAYER_FG[p], color)

    if len(names) != 2:
        raise ValueError(f"names must name both seats, got {list(names)!r}")
    sentence = result_sentence(state, 0, who) or "the game is not over"
    out = [paint(f"Game over: {sentence}.", BOLD, color)]
    n = int(state.num_scorings[0])
    width = max(12, *(len(nm) for nm in names))
    out.append(f"  {'points':<{width}}   1st   2nd   3rd  total   stones  bridges")
    for p in (0, 1):
        pts = "".join(
            f"{int(state.scorings[0, k, p]):>6}" if k < n else f"{'-':>6}" for k in range(3)
        )
        name = paint(f"{names[p]:<{width}}", PLAYER_FG[p], color)
        out.append(
            f"  {name}{pts}  {int(state.scorings[0, :, p].sum()):>5}  "
            f"{int(state.stones[0, p]).bit_count():>7}  {int(state.bridges[0, p]).bit_count():>7}"
        )
    return out
