"""Kahuna's decisions in words: what an action means and what one step did.

Used through the game protocol by records, replay, terminal play and the text view.
`describe_step` compares the states before and after a decision and tells, in
order: the decision, each claim (K5.2, K5.3) with the stone placed or missing and
the opposing bridges it sends back, the stones the opponent loses (K5.4), the
refilled face-up slot, the end of the turn, an exhaustion with its scoring (K7.2)
and reshuffle (K7.3) or the start of the final turns (K7.4), the third scoring
(K7.5) and the end of the game with its winner and reason (K8, K9).

Point of view: what both players see. Records and replays are public, and the
terminal game prints a bot's steps to the human, so by default a DRAW never names
the card drawn and a face-down DISCARD or hand-back never names its island
(K4.5, K6.2). Pass `seat=p` to describe the step for player `p`, who also sees
their own draws and discards.

```python
from kanaloa_env.games.kahuna.describe import describe_action, describe_step
describe_action(state, 9)                  # "place a bridge on BARI-DUDA, paying DUDA"
describe_step(before, 9, after)            # ["player 0 places a bridge on BARI-DUDA, ...", ...]
```
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from ...core.kahuna import cards
from ...core.kahuna.board import held_islands, island_counts
from ...core.kahuna.constants import (
    ACTION_CARD,
    ACTION_CARD2,
    ACTION_KIND,
    ACTION_LINE,
    ACTION_SLOT,
    DEGREE,
    ISLAND_NAMES,
    LINE_A,
    LINE_B,
    LINE_NAMES,
    LINES_AT,
    MAJORITY,
    NUM_ACTIONS,
    NUM_ISLANDS,
    NUM_LINES,
    Kind,
    Phase,
    action_words,
)
from ...core.kahuna.scenario import end_reason
from ...core.kahuna.state import State

__all__ = [
    "check_game_index",
    "claims_of_place",
    "counts_at",
    "describe_action",
    "describe_step",
    "down_count",
    "game_and_seat",
    "hand_size",
    "holders",
    "islands_in",
    "lines_in",
    "result_sentence",
]

_ORDINAL = ("first", "second", "third")


def check_game_index(state: object, i: object, name: str = "i") -> int:
    """`i` as an int game index of the Kahuna batch `state`, else TypeError/ValueError
    naming it `name`."""
    if not isinstance(state, State):
        raise TypeError(
            f"state must be a kanaloa_env.core.kahuna.State, got {type(state).__name__}"
        )
    B = state.batch_size
    if isinstance(i, bool) or not isinstance(i, (int, np.integer)):
        raise TypeError(f"{name} must be an int in 0..{B - 1}, got {i!r}")
    if not 0 <= i < B:
        raise ValueError(f"{name} must be in 0..{B - 1}, got {i}")
    return int(i)


def game_and_seat(state: State, i: int, seat: int | None) -> tuple[int, int | None]:
    """Game `i`'s index and the seat whose hand a view shows: `seat` (0 or 1), by
    default the player to act (None once the game is over); TypeError/ValueError
    for a bad `state`, `i` or `seat`."""
    g = check_game_index(state, i, "game index i")
    if seat is not None:
        if isinstance(seat, bool) or not isinstance(seat, (int, np.integer)):
            raise TypeError(f"seat must be None or an int in 0..1, got {seat!r}")
        if seat not in (0, 1):
            raise ValueError(f"seat must be in 0..1, got {seat}")
    to_act = int(state.current_player[g])
    return g, (int(seat) if seat is not None else (to_act if to_act >= 0 else None))


def _check_action(action: object) -> int:
    if isinstance(action, bool) or not isinstance(action, (int, np.integer)):
        raise TypeError(f"action must be an int in 0..{NUM_ACTIONS - 1}, got {action!r}")
    if not 0 <= action < NUM_ACTIONS:
        raise ValueError(f"action must be in 0..{NUM_ACTIONS - 1}, got {action}")
    return int(action)


def lines_in(line_set: int) -> list[int]:
    """The lines of `line_set`, a line bit set (K1.2), in index order."""
    return [n for n in range(NUM_LINES) if int(line_set) >> n & 1]


def islands_in(island_set: int) -> list[int]:
    """The islands of `island_set`, an island bit set (K1.1), in index order."""
    return [x for x in range(NUM_ISLANDS) if int(island_set) >> x & 1]


def _count_at(line_set: int, x: int) -> int:
    return (int(line_set) & int(LINES_AT[x])).bit_count()


def claims_of_place(state: State, action: int, i: int = 0) -> list[int]:
    """The islands a PLACE `action` by the player to act in game `i` would claim
    (K5.2): each end where the new bridge brings their count to the threshold, the
    card's island first. Empty for any other action.
    `state` is the batch of games."""
    a = _check_action(action)
    if ACTION_KIND[a] != Kind.PLACE:
        return []
    p = int(state.current_player[i])
    line, x = int(ACTION_LINE[a]), int(ACTION_CARD[a])
    other = int(LINE_A[line]) + int(LINE_B[line]) - x
    mine = int(state.bridges[i, p]) | 1 << line
    return [y for y in (x, other) if _count_at(mine, y) == int(MAJORITY[y])]


def _names(islands: Sequence[int]) -> str:
    return ", ".join(ISLAND_NAMES[x] for x in islands)


def _line_list(lines: Sequence[int]) -> str:
    return ", ".join(LINE_NAMES[n] for n in lines)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


_BRIDGE_WORDS = {
    Kind.PLACE: "place a bridge on {line}, paying {x}",
    Kind.REMOVE: "remove the opponent's bridge on {line}, paying {x}+{y}",
}


def describe_action(state: State, action: int, i: int = 0) -> str:
    """What `action` means for the player to act in game `i`, in words.

    "place a bridge on ALOA-BARI, paying ALOA", "remove the opponent's bridge on
    ELAI-HUNA, paying HUNA+HUNA", "discard COCO face down" (in the DRAW phase "hand
    back COCO face down"), "end play" ("end the final turn" in a final turn), "take
    BARI from slot 0" (the island shown in the slot), "draw from the pile", "skip
    the draw". Legal or not: the words say what the action would do.

    Raises:
        TypeError: `state` not a Kahuna `State`, `action` or `i` not an int.
        ValueError: `action` outside 0..152 or `i` outside the batch.
    """
    g = check_game_index(state, i)
    a = _check_action(action)
    kind = Kind(int(ACTION_KIND[a]))
    if kind in _BRIDGE_WORDS:
        return action_words(a, _BRIDGE_WORDS)
    if kind == Kind.DISCARD:
        verb = "hand back" if state.phase[g] == Phase.DRAW else "discard"
        return f"{verb} {ISLAND_NAMES[int(ACTION_CARD[a])]} face down"
    if kind == Kind.END_PLAY:
        return "end the final turn" if state.final_turns_left[g] > 0 else "end play"
    if kind == Kind.TAKE:
        s = int(ACTION_SLOT[a])
        card = int(state.face_up[g, s])
        return f"take {ISLAND_NAMES[card]} from slot {s}" if card >= 0 else f"take slot {s} (empty)"
    return "draw from the pile" if kind == Kind.DRAW else "skip the draw"


def result_sentence(state: State, i: int, who: Callable[[int], str]) -> str:
    """How game `i` ended, in one sentence (`who(p)` names player p): the winner or a
    draw and the reason: the final scoring with the tie-breaks of K8.1, the early end
    (K8.2) or truncation (K9.1). Empty while the game runs.
    `state` is the batch of games."""
    reason = end_reason(state, i)
    if reason is None:
        return ""
    if reason == "truncated":
        return (
            f"the game stops after {int(state.turn[i])} turns (max_turns="
            f"{state.config.max_turns}, K9.1): no winner"
        )
    w = int(state.winner[i])
    if reason == "early_end":
        bare = [p for p in (0, 1) if state.bridges[i, p] == 0]
        if len(bare) == 2:
            return "neither player has a bridge on the board: the game is a draw (early end, K8.2)"
        return (
            f"{who(bare[0])} has no bridge on the board: {who(1 - bare[0])} wins (early end, K8.2)"
        )
    totals = state.scorings[i].sum(axis=0).astype(int).tolist()
    third = state.scorings[i, 2].astype(int).tolist()
    bridges = [int(state.bridges[i, p]).bit_count() for p in (0, 1)]
    if w < 0:
        return (
            f"the game is a draw: {totals[0]}:{totals[1]} points and {bridges[0]}:{bridges[1]} "
            "bridges on the board (K8.1)"
        )
    lo = 1 - w
    if totals[w] != totals[lo]:
        return f"{who(w)} wins the game with {totals[w]} points to {totals[lo]}"
    if third[w] != third[lo]:
        return (
            f"{who(w)} wins the game: {totals[w]} points each, more in the third scoring "
            f"({third[w]} to {third[lo]}, K8.1)"
        )
    return (
        f"{who(w)} wins the game: {totals[w]} points each, more bridges on the board "
        f"({bridges[w]} to {bridges[lo]}, K8.1)"
    )


def _scoring_sentence(after: State, i: int, k: int, who: Callable[[int], str]) -> str:
    """Scoring `k` (0-based) of game `i`, done in `after`: stones and points."""
    stones = [int(after.stones[i, p]).bit_count() for p in (0, 1)]
    pts = after.scorings[i, k].astype(int).tolist()
    head = f"{_ORDINAL[k]} scoring, stones {stones[0]}:{stones[1]}"
    if pts[0] == pts[1]:
        gain = "nobody scores"
    else:
        w = 0 if pts[0] > pts[1] else 1
        gain = f"{who(w)} gets {_plural(pts[w], 'point')}"
    totals = after.scorings[i].sum(axis=0).astype(int).tolist()
    return f"{head}: {gain} (points {totals[0]}:{totals[1]})"


def describe_step(
    before: State,
    action: int,
    after: State,
    i: int = 0,
    names: Sequence[str] | None = None,
    *,
    seat: int | None = None,
) -> list[str]:
    """Sentences telling what one decision in game `i` did (see the module docstring).

    Args:
        before, after: the states around the decision (`after = step(before, ...)`).
        action: the action taken by `before.current_player[i]`.
        i: the game of the batch.
        names: display names per seat (default `"player p"`).
        seat: describe for this player, who also sees their own draws and face-down
            discards; None (default) describes what both players see.

    Raises:
        TypeError / ValueError: a state that is not Kahuna's, or a bad `i`, `action`,
            `names` or `seat`.
    """
    g = check_game_index(before, i)
    check_game_index(after, i)
    a = _check_action(action)
    if names is not None and (
        isinstance(names, str) or len(names) != 2 or not all(isinstance(n, str) for n in names)
    ):
        raise TypeError(f"names must be two strings, one per seat, got {names!r}")
    if seat is not None and (
        isinstance(seat, bool) or not isinstance(seat, (int, np.integer)) or seat not in (0, 1)
    ):
        raise ValueError(f"seat must be None, 0 or 1, got {seat!r}")

    def who(p: int) -> str:
        return names[p] if names is not None else f"player {p}"

    p = int(before.current_player[g])
    if p < 0:
        raise ValueError(f"game {g} of `before` is over: no decision to describe")
    q = 1 - p
    kind = Kind(int(ACTION_KIND[a]))
    x, y = int(ACTION_CARD[a]), int(ACTION_CARD2[a])
    line = int(ACTION_LINE[a])
    sees = seat == p
    out: list[str] = []
    if kind == Kind.PLACE:
        out.append(f"{who(p)} places a bridge on {LINE_NAMES[line]}, paying {ISLAND_NAMES[x]}")
        out += _claims(before, a, after, g, who)
    elif kind == Kind.REMOVE:
        out.append(
            f"{who(p)} removes {who(q)}'s bridge on {LINE_NAMES[line]}, paying "
            f"{ISLAND_NAMES[x]}+{ISLAND_NAMES[y]}"
        )
    elif kind == Kind.DISCARD:
        card = ISLAND_NAMES[x] if sees else "a card"
        verb = "hands back" if before.phase[g] == Phase.DRAW else "discards"
        out.append(f"{who(p)} {verb} {card} face down")
    elif kind == Kind.END_PLAY:
        if before.final_turns_left[g] > 0:
            out.append(f"{who(p)} ends the final turn")
        else:
            out.append(f"{who(p)} ends play (draw phase: hand back cards, then draw or skip)")
    elif kind == Kind.TAKE:
        s = int(ACTION_SLOT[a])
        out.append(f"{who(p)} takes {ISLAND_NAMES[int(before.face_up[g, s])]} from slot {s}")
        n = int(before.pile_size[g])
        if n == 0:
            out.append(f"slot {s} stays empty: the pile is empty")
        else:
            top = int(before.pile[g, n - 1])
            shown = ISLAND_NAMES[top] if top >= 0 else "a new card"
            out.append(f"{shown} is turned up from the pile into slot {s} ({n - 1} left)")
    elif kind == Kind.DRAW:
        n = int(before.pile_size[g])
        top = int(before.pile[g, n - 1]) if n else -1
        card = ISLAND_NAMES[top] if sees and top >= 0 else "a card"
        out.append(f"{who(p)} draws {card} from the pile ({n - 1} left)")
    else:
        out.append(f"{who(p)} skips the draw")

    # Stone losses (K5.4) follow a claim's removals or a two-card removal.
    lost = islands_in(int(before.stones[g, q]) & ~int(after.stones[g, q]))
    for z in lost:
        out.append(f"{who(q)} no longer holds {ISLAND_NAMES[z]}: the stone goes back (K5.4)")

    out += _turn_end(before, after, g, who)
    if after.done[g] and not before.done[g]:
        out.append(result_sentence(after, g, who))
    return out


def _claims(before: State, a: int, after: State, g: int, who: Callable[[int], str]) -> list[str]:
    """The claims of a PLACE (K5.2, K5.3): stone or none, and the bridges sent back."""
    p = int(before.current_player[g])
    q = 1 - p
    out = []
    removed = int(before.bridges[g, q]) & ~int(after.bridges[g, q])
    new_stones = int(after.stones[g, p]) & ~int(before.stones[g, p])
    for z in claims_of_place(before, a, g):
        lines = f"{MAJORITY[z]} of its {DEGREE[z]} lines"
        if new_stones >> z & 1:
            out.append(f"{who(p)} claims {ISLAND_NAMES[z]} ({lines}) and puts a stone on it")
        else:
            out.append(
                f"{who(p)} claims {ISLAND_NAMES[z]} ({lines}) but has no stone left: "
                f"{ISLAND_NAMES[z]} stays unmarked (K5.3)"
            )
        here = lines_in(removed & int(LINES_AT[z]))
        removed &= ~int(LINES_AT[z])
        if here:
            bridges = "bridge" if len(here) == 1 else "bridges"
            verb = "goes" if len(here) == 1 else "go"
            out.append(f"{who(q)}'s {bridges} on {_line_list(here)} {verb} back (K5.3)")
    return out


def _turn_end(before: State, after: State, g: int, who: Callable[[int], str]) -> list[str]:
    """The end of a turn: an exhaustion with its scoring and reshuffle (K7.1-K7.3) or
    the start of the final turns (K7.4), the end of a final turn and the third scoring
    (K7.5), and who acts next while the game goes on."""
    if after.turn[g] == before.turn[g]:
        return []
    p = int(before.current_player[g])
    final = before.final_turns_left[g] > 0
    k0, k1 = int(before.num_scorings[g]), int(after.num_scorings[g])
    out = []
    if final:
        which = "first" if before.final_turns_left[g] == 2 else "last"
        out.append(f"end of the {which} final turn (turn {int(after.turn[g])})")
        if k1 > k0:
            out.append(_scoring_sentence(after, g, k0, who))
        elif not after.done[g]:
            out.append(f"{who(1 - p)} plays the last turn")
        return out
    out.append(f"end of turn {int(after.turn[g])}")
    if k1 > k0 or after.final_turns_left[g] > 0:
        out.append(
            f"the cards are exhausted: the pile and the face-up row are empty "
            f"({_ORDINAL[k0]} time, K7.1)"
        )
    if k1 > k0:
        out.append(_scoring_sentence(after, g, k0, who))
        row = [ISLAND_NAMES[int(c)] for c in after.face_up[g] if c >= 0]
        pooled = int(after.pile_size[g]) + len(row)
        out.append(
            f"the {pooled} discarded cards are shuffled into a new pile; "
            f"{', '.join(row)} are turned face up (K7.3)"
        )
    if after.final_turns_left[g] > 0:
        out.append(
            f"final turns (K7.4): {who(1 - p)} plays one more turn, then {who(p)}; "
            "then the third scoring"
        )
    elif not after.done[g]:
        nxt = f"{who(int(after.current_player[g]))} to act (turn {int(after.turn[g]) + 1})"
        if len(out) == 1:  # a plain end of turn: one sentence
            out[0] += f": {nxt}"
        else:
            out.append(nxt)
    return out


def hand_size(state: State, i: int, p: int) -> int:
    """Cards in player p's hand in game i, counting those a `public_view` blanked.
    `state` is the batch of games."""
    return int(cards.size(state.hands[i, p])) + int(state.hidden_hand[i, p])


def down_count(state: State, i: int, p: int) -> int:
    """Player p's face-down discards in game `i` of `state` since the last reshuffle,
    counting blanked ones."""
    return int(cards.size(state.discard_down[i, p])) + int(state.hidden_down[i, p])


def counts_at(state: State, i: int) -> np.ndarray:
    """(2, 12) bridges of each player at each island in game `i`.
    `state` is the batch of games."""
    return island_counts(state.bridges[i]).astype(int)


def holders(state: State, i: int) -> list[int]:
    """The holder of each island in game `i` (K5.1): 0, 1 or -1 for nobody.
    `state` is the batch of games."""
    held = held_islands(state.bridges[i])
    return [0 if held[0] >> x & 1 else 1 if held[1] >> x & 1 else -1 for x in range(NUM_ISLANDS)]
