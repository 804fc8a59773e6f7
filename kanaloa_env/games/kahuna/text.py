"""A readable text table of one Kahuna game: the AEC env's "ansi"/"human" view and the
terminal game's table, at most 80 columns wide.

```python
from kanaloa_env.core.kahuna import Config, init
from kanaloa_env.render import render_text               # any game's state
print(render_text(init(Config(), 1, seed=0)))             # ANSI colours
print(render_text(state, i=3, color=False, seat=1))       # game 3, plain, player 1's hand
```

From the top: a header (round, turn, phase, who is to act), the points of each
scoring, the flags of the turn (final turn, the opponent's skip, a hand-back); the
board as a table of the twelve islands (majority threshold, each player's bridges
there, the holder and whether a stone marks it); each player's bridges by line name
and the free lines; a table per player (bridges and stones on the board and in
supply, points, hand size, face-down discards); the face-up row, the pile size and
the face-up discards; the hands: the shown player's in full, the other's as its
known cards (K6.7) and `?` for the rest; with `legal`, the legal actions of the
player to act (numbers and names); once the game is over, the result.

Turn numbers are ordinals: "turn 41" is the 41st turn, the engine's `turn` (turns
completed) being 40. Player 0 is red and player 1 yellow, as in the picture
(`image.py`). Only what the shown player may know appears (K12): the other hand
beyond `known`, the other player's face-down discards and the pile never do.
"""

from __future__ import annotations

import numpy as np

from ...core.kahuna import cards
from ...core.kahuna.constants import (
    BRIDGES_PER_PLAYER,
    ISLAND_NAMES,
    LINE_NAMES,
    MAJORITY,
    NUM_ISLANDS,
    NUM_SCORINGS,
    Phase,
    action_name,
)
from ...core.kahuna.state import State
from ...drawing.terminal import BOLD, paint, strip_ansi, wrap
from .describe import (
    counts_at,
    down_count,
    game_and_seat,
    hand_size,
    holders,
    lines_in,
    result_sentence,
)

__all__ = ["PLAYER_FG", "render_text"]

# Player colours (ANSI foreground), matching `image.PLAYER_COLORS`: red and yellow.
PLAYER_FG = ("\x1b[91m", "\x1b[93m")
_ORDINAL = ("1st", "2nd", "3rd")


def render_text(
    state: State, i: int = 0, color: bool = True, seat: int | None = None, legal: bool = True
) -> str:
    """Render game `i` of a batch as a multi-line text table (see the module docstring).

    Args:
        state: a batch of games (or a `public_view` of one: the blanked cards count).
        i: which game of the batch, 0..B-1.
        color: ANSI colours (players in their colours, the player to act in bold);
            plain text when False.
        seat: whose hand to show, 0 or 1; default the player to act (none once the
            game is over).
        legal: list the legal actions when the hand shown is the player to act's
            (the terminal game lists its numbered moves instead).

    Returns:
        The table, lines joined by newlines, no trailing newline; no line is wider
        than 80 visible characters.

    Raises:
        TypeError: `state` is not a Kahuna `State`, or `i`/`seat` not an int.
        ValueError: `i` or `seat` out of range.
    """
    g, shown = game_and_seat(state, i, seat)
    v = _View(state, g, color)
    to_act = int(state.current_player[g])
    lines = v.header(to_act)
    lines += v.board()
    lines += v.bridge_lines()
    lines += v.player_table(to_act)
    lines += v.card_lines()
    if shown is not None:
        lines += v.hand_lines(shown)
    if to_act < 0:
        lines += wrap("Game over: ", result_sentence(state, g, v.who).split(), " ")
    elif legal and shown == to_act:
        lines += wrap("Legal: ", v.legal_actions(), " | ")
    return "\n".join(lines)


class _View:
    """Pieces of the table for game `g` (a helper of `render_text`)."""

    def __init__(self, state: State, g: int, color: bool) -> None:
        self.s, self.g, self.color = state, g, color

    def paint(self, text: str, code: str) -> str:
        return paint(text, code, self.color)

    def who(self, p: int) -> str:
        return self.paint(f"player_{p}", PLAYER_FG[p])

    def header(self, to_act: int) -> list[str]:
        s, g = self.s, self.g
        final = int(s.final_turns_left[g])
        over = to_act < 0
        turn = int(s.turn[g])
        parts = [
            self.paint("Kahuna", BOLD),
            f"round {int(s.round[g])}/{NUM_SCORINGS}",
            f"{turn} turns played" if over else f"turn {turn + 1}",
        ]
        if over:
            parts.append("game over")
        else:
            phase = "final turn" if final else f"{Phase(int(s.phase[g])).name.lower()} phase"
            parts += [phase, self.paint(f"player_{to_act}", BOLD + PLAYER_FG[to_act]) + " to act"]
        n = int(s.num_scorings[g])
        done = [
            f"{_ORDINAL[k]} {int(s.scorings[g, k, 0])}:{int(s.scorings[g, k, 1])}" for k in range(n)
        ]
        totals = s.scorings[g].sum(axis=0).astype(int)
        scored = ", ".join(done) if done else "none yet"
        lines = [
            " | ".join(parts),
            f"Points {self.who(0)} {totals[0]}, {self.who(1)} {totals[1]}  (scorings: {scored})",
        ]
        flags = []
        if final and not over:
            flags.append(
                f"final turn {3 - final} of 2: place, remove or end; no discard, no draw (K3.3)"
            )
        if not over and s.last_turn_skipped[g] and not final:
            flags.append(f"player_{1 - to_act} skipped last turn: no skip now (K6.3)")
        if s.handed_back[g]:
            flags.append("a card was handed back: take or draw, no skip (K6.4)")
        lines += [f"Note: {f}" for f in flags]
        return lines

    def board(self) -> list[str]:
        counts = counts_at(self.s, self.g)
        hold = holders(self.s, self.g)
        stones = [int(self.s.stones[self.g, p]) for p in (0, 1)]
        head = f"{'island':<6}{'maj':>4}{'p0':>4}{'p1':>4}  held by"
        cells = [f"{head:<37}"]
        for x in range(NUM_ISLANDS):
            c0 = self.paint(f"{counts[0, x]:>4}", PLAYER_FG[0]) if counts[0, x] else "   -"
            c1 = self.paint(f"{counts[1, x]:>4}", PLAYER_FG[1]) if counts[1, x] else "   -"
            h = hold[x]
            if h < 0:
                held = "-"
            else:
                mark = "stone" if stones[h] >> x & 1 else "unmarked"
                held = f"{self.who(h)} {mark}"
            plain = f"{ISLAND_NAMES[x]:<6}{MAJORITY[x]:>4}{c0}{c1}  {held}"
            width = 37 + len(plain) - len(strip_ansi(plain))
            cells.append(f"{plain:<{width}}")
        # Two columns of six islands each, the header over both.
        rows = [cells[0] + "  " + head]
        rows += [(cells[1 + r] + "  " + cells[7 + r]).rstrip() for r in range(6)]
        return ["Board (maj: bridges needed to hold; p0, p1: bridges at the island)", *rows]

    def bridge_lines(self) -> list[str]:
        s, g = self.s, self.g
        out = []
        for p in (0, 1):
            lines = [LINE_NAMES[n] for n in lines_in(int(s.bridges[g, p]))]
            out += wrap(f"Bridges of {self.who(p)} ({len(lines)}): ", lines, " ")
        free = ~(int(s.bridges[g, 0]) | int(s.bridges[g, 1]))
        free_lines = [LINE_NAMES[n] for n in lines_in(free)]
        out += wrap(f"Free lines ({len(free_lines)}): ", free_lines, " ")
        return out

    def player_table(self, to_act: int) -> list[str]:
        s, g = self.s, self.g
        per = s.config.stones_per_player
        out = ["             bridges        stones"]
        out.append("   player    board supply  board supply  points  hand  face-down")
        winner = int(s.winner[g])
        for p in (0, 1):
            b = int(s.bridges[g, p]).bit_count()
            st = int(s.stones[g, p]).bit_count()
            marker = ">" if p == to_act else "W" if p == winner and to_act < 0 else " "
            pts = int(s.scorings[g, :, p].sum())
            out.append(
                f" {marker} {self.who(p)}  {b:>5} {BRIDGES_PER_PLAYER - b:>6}  {st:>5} "
                f"{per - st:>6}  {pts:>6}  {hand_size(s, g, p):>4}  {down_count(s, g, p):>9}"
            )
        return out

    def card_lines(self) -> list[str]:
        s, g = self.s, self.g
        row = [
            f"{k} {ISLAND_NAMES[int(c)] if c >= 0 else '(empty)'}"
            for k, c in enumerate(s.face_up[g])
        ]
        up = cards.names_of(int(s.discard_up[g]))
        return [
            f"Face-up row: {' | '.join(row)}   Pile: {int(s.pile_size[g])} cards",
            *wrap(f"Discards face up ({len(up)}): ", up, " "),
        ]

    def hand_lines(self, shown: int) -> list[str]:
        s, g = self.s, self.g
        other = 1 - shown
        hand = cards.names_of(int(s.hands[g, shown]))
        known = cards.names_of(int(s.known[g, shown]))
        out = wrap(f"Hand of {self.who(shown)}: ", hand or ["(empty)"], " ")
        out += wrap(f"  {self.who(other)} knows: ", known, " ")
        down = int(s.discard_down[g, shown])
        if down:
            out += wrap("  own face-down discards: ", cards.names_of(down), " ")
        theirs = cards.names_of(int(s.known[g, other]))
        unknown = hand_size(s, g, other) - len(theirs)
        out += wrap(
            f"Hand of {self.who(other)} ({hand_size(s, g, other)} cards): ",
            theirs + ["?"] * unknown or ["(empty)"],
            " ",
        )
        return out

    def legal_actions(self) -> list[str]:
        return [f"{a} {action_name(a)}" for a in np.flatnonzero(self.s.legal[self.g]).tolist()]
