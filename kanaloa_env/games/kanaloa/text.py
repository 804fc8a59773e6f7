"""A readable text table of one game: the AEC env's "ansi"/"human" view and the play CLI's.

```python
from kanaloa_env.core.kanaloa import Config, init
from kanaloa_env.render import render_text              # any game's state
print(render_text(init(Config(), 1, seed=0)))            # ANSI colours
print(render_text(state, i=3, color=False, seat=2))      # game 3, plain, player 2's hand
```

The route is drawn in sailing order as one cell per field (its colour, `~` for a
dolphin, `*` for the start field) with the boats standing on it below; then one row
per player (field, progress over the last boat, fields still needed to lap the last
other boat, tricks, announcement), the trump, the current trick, whose turn it is
with the hand and legal actions, or the result once the game is over.
"""

from __future__ import annotations

import numpy as np

from ...core.kanaloa.constants import (
    ANNOUNCE,
    CARD_NAMES,
    CARD_TYPE_BITS,
    NO_ANNOUNCE,
    NO_SUIT,
    NUM_CARD_TYPES,
    NUM_TIKI,
    NUM_VALUES,
    OCTOPUS,
    REMOVE_BASE,
    SUIT_NAMES,
    TRICKS_PER_ROUND,
    Phase,
    action_name,
)
from ...core.kanaloa.state import State
from ...drawing.terminal import BOLD, paint, wrap

__all__ = ["render_text"]

# Suit colours: foreground for card names, background (+ readable text) for fields.
_FG = ("\x1b[94m", "\x1b[91m", "\x1b[92m", "\x1b[96m")  # bright blue, red, green, cyan
_BG = ("\x1b[97;44m", "\x1b[97;41m", "\x1b[30;42m", "\x1b[30;46m")
_SPECIAL_FG = "\x1b[95m"  # Kanaloa and octopus: magenta
_LETTER = ("B", "R", "G", "T")  # blue, red, green, turquoise
_TURN = {
    Phase.ANNOUNCE: "decides whether to announce no tricks",
    Phase.PLAY: "plays a card",
    Phase.REMOVE_OCTOPUS: "removes a free ocean card (octopus, R4.4)",
    Phase.REMOVE_ROUND_END: "removes a free ocean card (end of round, R7.1)",
    Phase.DOLPHIN: "takes or declines the dolphin move (R6.3)",
}


def render_text(
    state: State, i: int = 0, color: bool = True, seat: int | None = None, legal: bool = True
) -> str:
    """Render game `i` of a batch as a multi-line text table.

    Args:
        state: a batch of games.
        i: which game of the batch, 0..B-1.
        color: ANSI colours (coloured route fields and cards); plain text when False.
        seat: whose hand to show; default the player to act (none once the game is
            over).
        legal: list the legal actions when the hand shown is the player to act's
            (the terminal game lists its numbered moves instead).

    Returns:
        The table, lines joined by newlines, no trailing newline.

    Raises:
        TypeError: `state` is not a `State`, or `i`/`seat` not an int.
        ValueError: `i` or `seat` out of range.
    """
    if not isinstance(state, State):
        raise TypeError(
            f"state must be a kanaloa_env.core.kanaloa.State, got {type(state).__name__}"
        )
    B, P = state.batch_size, state.num_players
    for name, value, hi in (("game index i", i, B), ("seat", seat, P)):
        if value is None and name == "seat":
            continue
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
            raise TypeError(f"{name} must be an int in 0..{hi - 1}, got {value!r}")
        if not 0 <= value < hi:
            raise ValueError(f"{name} must be in 0..{hi - 1}, got {value}")
    g = int(i)
    v = _View(state, g, color)
    phase = Phase(int(state.phase[g]))
    to_act = int(state.current_player[g])
    lines = [v.header()]
    lines += v.route_lines()
    lines += v.player_lines(to_act)
    lines += v.trick_lines()
    if phase == Phase.GAME_OVER:
        lines += v.result_lines()
        if seat is not None:
            lines += wrap(f"Hand of player_{seat}: ", v.hand(seat), " ")
        return "\n".join(lines)
    lines.append(f"{v.bold(f'player_{to_act}')} to act: {_TURN[phase]}")
    shown = to_act if seat is None else int(seat)
    lines += wrap(f"Hand of player_{shown}: ", v.hand(shown), " ")
    if legal and shown == to_act:
        lines += wrap("Legal: ", v.legal_actions(to_act), " | ")
    return "\n".join(lines)


class _View:
    """Pieces of the table for game `g` (a helper of `render_text`)."""

    def __init__(self, state: State, g: int, color: bool) -> None:
        self.s, self.g, self.color = state, g, color
        self.P = state.num_players
        self.deck = state.config.deck
        self.slots = np.flatnonzero(state.present[g])
        # Present fields in sailing order; compact index = position in this list.
        self.fields = [int(f) for n in self.slots for f in (2 * n, 2 * n + 1)]
        self.compact = {f: k for k, f in enumerate(self.fields)}
        self.lap = len(self.fields)

    # -- colour helpers --
    def paint(self, text: str, code: str) -> str:
        return paint(text, code, self.color)

    def bold(self, text: str) -> str:
        return self.paint(text, BOLD)

    def suit(self, s: int) -> str:
        return self.paint(SUIT_NAMES[s], _FG[s])

    def card(self, c: int) -> str:
        name = CARD_NAMES[c]
        return self.paint(name, _FG[c // NUM_VALUES] if c < NUM_TIKI else _SPECIAL_FG)

    # -- sections --
    def header(self) -> str:
        s, g = self.s, self.g
        lead = int(s.lead_suit[g])
        parts = [
            self.bold("Kanaloa"),
            f"{self.P} players",
            f"round {int(s.round[g])}/{s.config.max_rounds}",
            f"trick {min(int(s.trick_number[g]) + 1, TRICKS_PER_ROUND)}/{TRICKS_PER_ROUND}",
            f"trump {self.suit(int(s.trump[g]))}",
            f"lead {self.suit(lead) if lead != NO_SUIT else '-'}",
        ]
        return " | ".join(parts)

    def route_lines(self) -> list[str]:
        s, g, deck = self.s, self.g, self.deck
        cells, numbers = [], []
        for k, f in enumerate(self.fields):
            code = int(s.route[g, f])
            col = int(deck.color[code])
            mark = "~" if deck.dolphin[code] else "*" if deck.start[code] else " "
            cells.append(self.paint(_LETTER[col] + mark, _BG[col]) + " ")
            numbers.append(f"{k:<3d}")
        stacks: dict[int, list[int]] = {}
        for p in range(self.P):
            stacks.setdefault(self.compact[int(s.boat_field[g, p])], []).append(p)
        depth = max(len(v) for v in stacks.values())
        boat_rows = []
        for row in range(depth):
            cols = []
            for k in range(self.lap):
                here = stacks.get(k, [])
                cols.append(f"{here[row]:<3d}" if row < len(here) else "   ")
            boat_rows.append("".join(cols).rstrip())
        removed = self.deck.num_cards - len(self.slots)
        title = (
            f"Route: {self.lap} fields, {len(self.slots)} cards, {removed} removed; "
            "sailing ->; ~ dolphin, * start"
        )
        label = ("field ", "      ", "boats ")
        out = [title, label[0] + "".join(numbers).rstrip(), label[1] + "".join(cells).rstrip()]
        out += [(label[2] if r == 0 else label[1]) + line for r, line in enumerate(boat_rows)]
        return out

    def player_lines(self, to_act: int) -> list[str]:
        s, g, P = self.s, self.g, self.P
        prog = s.progress[g].astype(np.int64)
        last = int(prog.min())
        announce = s.config.nil_announcement
        head = "   player    field  ahead of last  to lap  tricks" + (
            "  announced" if announce else ""
        )
        out = [head]
        winner = int(s.winner[g])
        for p in range(P):
            others = np.delete(prog, p)
            need = self.lap + 1 - (int(prog[p]) - int(others.min()))  # R9.2
            marker = ">" if p == to_act else "W" if p == winner else " "
            row = (
                f" {marker} player_{p}  {self.compact[int(s.boat_field[g, p])]:>5d}  "
                f"{int(prog[p]) - last:>+13d}  {need:>6d}  {int(s.tricks_won[g, p]):>6d}"
            )
            if announce:
                a = int(s.announced[g, p])
                row += f"  {('-', 'no', 'YES')[a + 1]:>9s}"
            out.append(row)
        return out

    def trick_lines(self) -> list[str]:
        s, g, P = self.s, self.g, self.P
        tn = int(s.trick_number[g])
        n = int(s.num_played[g]) - tn * P
        leader = int(s.leader[g])
        if n <= 0:
            return [f"Trick: none played yet (player_{leader} leads)"]
        plays = [
            f"player_{(leader + j) % P} {self.card(int(s.history[g, tn * P + j]))}"
            for j in range(n)
        ]
        return wrap(f"Trick (led by player_{leader}): ", plays, ", ")

    def hand(self, p: int) -> list[str]:
        word = int(self.s.hands[self.g, p])
        cards = [
            c
            for c in range(NUM_CARD_TYPES)
            for _ in range((word & int(CARD_TYPE_BITS[c])).bit_count())
        ]
        return [self.card(c) for c in cards] or ["(empty)"]

    def legal_actions(self, p: int) -> list[str]:
        s, g = self.s, self.g
        # Removal k (DESIGN.md): the k-th remaining card after the one the boat stands on.
        own = int(s.boat_field[g, p]) // 2
        after = [int(n) for n in self.slots if n > own] + [int(n) for n in self.slots if n < own]
        parts = []
        for a in np.flatnonzero(s.legal[g]).tolist():
            if a <= OCTOPUS:
                parts.append(f"{a} {self.card(a)}")
            elif REMOVE_BASE <= a < ANNOUNCE:
                n = after[a - REMOVE_BASE]
                f = self.compact[2 * n]
                card = int(s.route[g, 2 * n]) // 2
                parts.append(f"{a} remove fields {f}-{f + 1} (card {card})")
            elif a in (ANNOUNCE, NO_ANNOUNCE):
                parts.append(f"{a} {action_name(a)}")
            else:
                parts.append(f"{a} {action_name(a).split()[0]} dolphin")
        return parts

    def result_lines(self) -> list[str]:
        s, g = self.s, self.g
        if s.terminated[g]:
            w = int(s.winner[g])
            head = (
                f"Game over: {self.bold(f'player_{w}')} won by lapping the last boat "
                f"(R9.2) in round {int(s.round[g])}"
            )
        else:
            head = f"Game over: stopped after max_rounds={s.config.max_rounds} (truncated, R9.4)"
        rewards = [f"player_{p} {r:+.2f}" for p, r in enumerate(s.rewards[g].tolist())]
        return [head, *wrap("Rewards of the last step: ", rewards, ", ")]
