"""Scenarios: a JSON-compatible dict that describes one position completely
(KAHUNA-RULES.md, "Scenario format").

`from_scenario(sc)` builds a batch-1 `State`; `to_scenario(state, i)` dumps game
`i`. Lists come back in canonical order (bridges by line index; stones, hands and
discards by island index; pile and row in their real order, the pile top first),
so `to_scenario(from_scenario(s)) == s` for every valid `s` written that way.
Two keys are optional and written only when they carry information: `known`
(K6.7, default empty) and `key` (the game's random key, which fixes the later
reshuffles; written by `to_scenario(..., include_key=True)`).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np

from ..batch import check_index
from ..scenario_checks import bool_at, int_at, list_at, need, scenario_key
from . import cards, masks
from .board import held_islands
from .config import Config
from .constants import (
    BRIDGES_PER_PLAYER,
    CARDS_PER_ISLAND,
    FINAL_TURNS,
    HAND_LIMIT,
    ISLAND_NAMES,
    LINE_NAMES,
    MAX_PILE,
    MAX_STONES,
    NO_CARD,
    NO_PLAYER,
    NUM_ISLANDS,
    NUM_LINES,
    NUM_SCORINGS,
    PHASE_NAMES,
    ROW_SLOTS,
    SCORING_POINTS,
    Phase,
    island_from_name,
    line_from_name,
)
from .state import State

END_REASONS = ("final_scoring", "early_end", "truncated")
_KEYS = (
    "config",
    "starting_player",
    "bridges",
    "stones",
    "hands",
    "face_up",
    "pile",
    "discard_up",
    "discard_down",
    "known",
    "key",
    "scorings",
    "to_act",
    "phase",
    "handed_back",
    "last_turn_skipped",
    "final_turns_left",
    "turn",
    "winner",
    "end_reason",
)
_OPTIONAL = ("known", "key")
_CARD_KEYS = "hands/face_up/pile/discard_up/discard_down"


def end_reason(state: State, i: int) -> str | None:
    """Why game `i` is over ("final_scoring", "early_end", "truncated"), None while
    it runs. A terminated game with all three scorings ended by the final scoring.
    `state` is the batch of games."""
    if state.truncated[i]:
        return "truncated"
    if state.terminated[i]:
        return END_REASONS[0] if state.num_scorings[i] == NUM_SCORINGS else END_REASONS[1]
    return None


def to_scenario(state: State, i: int = 0, include_key: bool = False) -> dict[str, Any]:
    """Dump game `i` of a batch to a scenario dict (KAHUNA-RULES.md, "Scenario format").

    Args:
        state: a batch of `B` games.
        i: the game, 0..B-1.
        include_key: also write the game's random key (`key`), which fixes its
            later reshuffles, so that `from_scenario` continues the same game.

    Returns:
        A JSON-compatible dict; lists in canonical order, `known` only when some
        card is known, `config` with the non-default options only.

    Raises:
        TypeError: `i` is not an int.
        ValueError: `i` out of range, or `state` is a `public_view` (blanked cards
            are not a position).
    """
    i = check_index(i, state.batch_size, "to_scenario's game index i")
    if state.hidden_hand[i].any() or state.hidden_down[i].any():
        raise ValueError("a public view hides cards: it has no scenario")
    over = state.phase[i] == Phase.GAME_OVER

    def lines(word: int) -> list[str]:
        return [LINE_NAMES[n] for n in range(NUM_LINES) if int(word) >> n & 1]

    def islands(word: int) -> list[str]:
        return [ISLAND_NAMES[x] for x in range(NUM_ISLANDS) if int(word) >> x & 1]

    size = int(state.pile_size[i])
    sc: dict[str, Any] = {
        "config": state.config.overrides(),
        "starting_player": int(state.starting_player[i]),
        "bridges": [lines(b) for b in state.bridges[i]],
        "stones": [islands(s) for s in state.stones[i]],
        "hands": [cards.names_of(h) for h in state.hands[i]],
        "face_up": [None if c < 0 else ISLAND_NAMES[c] for c in state.face_up[i]],
        "pile": [ISLAND_NAMES[c] for c in state.pile[i, :size][::-1]],
        "discard_up": cards.names_of(state.discard_up[i]),
        "discard_down": [cards.names_of(d) for d in state.discard_down[i]],
    }
    if state.known[i].any():
        sc["known"] = [cards.names_of(k) for k in state.known[i]]
    if include_key:
        sc["key"] = int(state.key[i])
    winner = int(state.winner[i])
    sc.update(
        {
            "scorings": [
                [int(v) for v in row] for row in state.scorings[i, : state.num_scorings[i]]
            ],
            "to_act": None if over else int(state.current_player[i]),
            "phase": PHASE_NAMES[int(state.phase[i])],
            "handed_back": bool(state.handed_back[i]),
            "last_turn_skipped": bool(state.last_turn_skipped[i]),
            "final_turns_left": int(state.final_turns_left[i]) or None,
            "turn": int(state.turn[i]),
            "winner": None if winner < 0 else winner,
            "end_reason": end_reason(state, i),
        }
    )
    return sc


# ---- reading -------------------------------------------------------------------


def _islands(v: Any, key: str) -> list[int]:
    """A list of island names as indices; ValueError naming `key`."""
    try:
        return [island_from_name(n) for n in list_at(v, key)]
    except ValueError as e:
        if str(e).startswith("scenario key"):
            raise
        raise ValueError(f"scenario key '{key}': {e}") from None


def _per_player(sc: dict[str, Any], key: str) -> list[list[int]]:
    """A per-player pair of island-name lists."""
    v = list_at(need(sc, key), key, 2)
    return [_islands(v[p], f"{key}[{p}]") for p in range(2)]


def from_scenario(sc: dict[str, Any], seed: int | None = None) -> State:
    """Build a batch-1 `State` from a scenario dict.

    Args:
        sc: the scenario (KAHUNA-RULES.md, "Scenario format").
        seed: derives the game's random key (which fixes later reshuffles) when the
            scenario has no `key`; default 0.

    Raises:
        TypeError: `sc` is not a dict.
        ValueError: the scenario is inconsistent; the message names the key.
    """
    if not isinstance(sc, dict):
        raise TypeError(f"a scenario must be a dict, got {type(sc).__name__}")
    cfg, start = _read_config(sc)
    state = State.empty(cfg, 1)
    words = _read_board(sc, cfg, state)
    hands, row, pile = _read_cards(sc, state)
    n_scorings = _read_scorings(sc, cfg, state)
    cards_left = bool(pile) or any(c >= 0 for c in row)
    phase, over, turn, final, to_act, handed_back, skipped = _read_turn(
        sc, cfg, start, [len(h) for h in hands], cards_left, n_scorings
    )
    winner, reason = _read_end(sc, cfg, state, over, n_scorings, words, final, turn)
    state.starting_player[0] = start
    state.turn[0] = turn
    state.phase[0] = phase
    state.current_player[0] = NO_PLAYER if over else to_act
    state.final_turns_left[0] = final
    state.handed_back[0] = handed_back
    state.last_turn_skipped[0] = skipped
    if over:
        state.truncated[0] = reason == "truncated"
        state.terminated[0] = reason != "truncated"
        state.winner[0] = NO_PLAYER if winner is None else winner
    state.key[0] = scenario_key(sc.get("key"), seed)
    masks.refresh(state)
    return state


def _read_config(sc: dict[str, Any]) -> tuple[Config, int]:
    """The `config` and the `starting_player` (K2.2)."""
    unknown = [k for k in sc if k not in _KEYS]
    if unknown:
        raise ValueError(f"scenario keys {unknown} are unknown; allowed: {list(_KEYS)}")
    over_ = need(sc, "config")
    if not isinstance(over_, dict):
        raise ValueError("scenario key 'config' must be a dict of config overrides")
    try:
        cfg = Config.from_dict(over_)
    except (ValueError, TypeError) as e:
        raise ValueError(f"scenario key 'config': {e}") from None
    start = int_at(need(sc, "starting_player"), "starting_player", 0, 1)
    if cfg.first_player != "random" and start != cfg.first_player:
        raise ValueError(
            f"scenario key 'starting_player' must be {cfg.first_player} "
            f"(config first_player), got {start}"
        )

    return cfg, start


def _read_board(sc: dict[str, Any], cfg: Config, state: State) -> list[int]:
    """The board (K1.5, K1.6, K5.1) into `state`; the bridges' line sets."""
    bridges = list_at(need(sc, "bridges"), "bridges", 2)
    owner: dict[int, int] = {}
    words = [0, 0]
    for p in range(2):
        for j, name in enumerate(list_at(bridges[p], f"bridges[{p}]")):
            try:
                line = line_from_name(name)
            except ValueError as e:
                raise ValueError(f"scenario key 'bridges[{p}][{j}]': {e}") from None
            if line in owner:
                raise ValueError(f"scenario key 'bridges': line {name} is owned twice")
            owner[line] = p
            words[p] |= 1 << line
        if len(bridges[p]) > BRIDGES_PER_PLAYER:
            raise ValueError(
                f"scenario key 'bridges': player {p} has {len(bridges[p])} bridges, "
                f"more than {BRIDGES_PER_PLAYER} (K1.5)"
            )
    state.bridges[0] = words
    held = held_islands(state.bridges[0])
    stones = _per_player(sc, "stones")
    taken: set[int] = set()
    for p in range(2):
        for x in stones[p]:
            if x in taken:
                raise ValueError(f"scenario key 'stones': two stones on {ISLAND_NAMES[x]}")
            taken.add(x)
            if not held[p] >> x & 1:
                raise ValueError(
                    f"scenario key 'stones': player {p} has a stone on {ISLAND_NAMES[x]} "
                    "without holding it (K5.1, K5.4)"
                )
            state.stones[0, p] |= np.uint16(1 << x)
        if len(stones[p]) > cfg.stones_per_player:
            raise ValueError(
                f"scenario key 'stones': player {p} has {len(stones[p])} stones, more than "
                f"stones_per_player = {cfg.stones_per_player}"
            )
        if cfg.stones_per_player == MAX_STONES and held[p] != state.stones[0, p]:
            x = next(x for x in range(NUM_ISLANDS) if (held[p] ^ state.stones[0, p]) >> x & 1)
            raise ValueError(
                f"scenario key 'stones': with 12 stones player {p} holds {ISLAND_NAMES[x]} "
                "and must have a stone there (K5.6)"
            )
    return words


def _read_cards(sc: dict[str, Any], state: State) -> tuple[list[list[int]], list[int], list[int]]:
    """The cards (K1.4, K2.1, K6.7) into `state`; the hands, the row and the pile."""
    hands = _per_player(sc, "hands")
    for p in range(2):
        if len(hands[p]) > HAND_LIMIT:
            raise ValueError(
                f"scenario key 'hands': player {p} holds {len(hands[p])} cards, more than "
                f"{HAND_LIMIT} (K2.3)"
            )
    row_in = list_at(need(sc, "face_up"), "face_up", ROW_SLOTS)
    row = [
        NO_CARD if c is None else _islands([c], f"face_up[{s}]")[0] for s, c in enumerate(row_in)
    ]
    pile = _islands(need(sc, "pile"), "pile")
    discard_up = _islands(need(sc, "discard_up"), "discard_up")
    discard_down = _per_player(sc, "discard_down")
    count = Counter(
        [
            *hands[0],
            *hands[1],
            *[c for c in row if c >= 0],
            *pile,
            *discard_up,
            *discard_down[0],
            *discard_down[1],
        ]
    )
    for x in range(NUM_ISLANDS):
        if count[x] != CARDS_PER_ISLAND:
            raise ValueError(
                f"scenario keys {_CARD_KEYS}: island {ISLAND_NAMES[x]} has {count[x]} cards; "
                f"every island has {CARDS_PER_ISLAND} (K1.4)"
            )
    if pile and NO_CARD in row:
        raise ValueError(
            "scenario key 'face_up': a slot is empty while the pile is not (K6.1 refills it)"
        )
    if len(pile) > MAX_PILE:  # (implied by the two checks above; kept for the array)
        raise ValueError(f"scenario key 'pile' holds more than {MAX_PILE} cards")
    state.hands[0] = [cards.word_of(h) for h in hands]
    state.face_up[0] = row
    state.pile[0, : len(pile)] = pile[::-1]  # stored bottom first
    state.pile_size[0] = len(pile)
    state.discard_up[0] = cards.word_of(discard_up)
    state.discard_down[0] = [cards.word_of(d) for d in discard_down]
    if "known" in sc:
        known = _per_player(sc, "known")
        for p in range(2):
            if Counter(known[p]) - Counter(hands[p]):
                raise ValueError(
                    f"scenario key 'known': known[{p}] is not part of player {p}'s hand (K6.7)"
                )
        state.known[0] = [cards.word_of(k) for k in known]
    return hands, row, pile


def _read_scorings(sc: dict[str, Any], cfg: Config, state: State) -> int:
    """The scorings done (K7.2, K7.5) into `state`; their number."""
    scorings = list_at(need(sc, "scorings"), "scorings")
    if len(scorings) > NUM_SCORINGS:
        raise ValueError(f"scenario key 'scorings' holds at most {NUM_SCORINGS} scorings")
    for k, pts in enumerate(scorings):
        if (
            not isinstance(pts, list)
            or len(pts) != 2
            or any(isinstance(v, bool) or not isinstance(v, int) for v in pts)
        ):
            raise ValueError(f"scenario key 'scorings[{k}]' must be two ints, got {pts!r}")
        worth = SCORING_POINTS[k] if k < len(SCORING_POINTS) else None
        if worth is not None and sorted(pts) not in ([0, 0], [0, worth]):
            raise ValueError(
                f"scenario key 'scorings[{k}]' must be [{worth}, 0], [0, {worth}] or [0, 0] "
                f"(K7.2), got {pts}"
            )
        if worth is None and (min(pts) != 0 or max(pts) > cfg.stones_per_player):
            raise ValueError(
                f"scenario key 'scorings[2]' must be [d, 0] or [0, d] with d in "
                f"0..{cfg.stones_per_player} (K7.5), got {pts}"
            )
        state.scorings[0, k] = pts
    n_scorings = len(scorings)
    state.num_scorings[0] = n_scorings
    return n_scorings


def _read_turn(
    sc: dict[str, Any],
    cfg: Config,
    start: int,
    hand_sizes: list[int],
    cards_left: bool,
    n_scorings: int,
) -> tuple[int, bool, int, int, Any, bool, bool]:
    """Whose decision, which phase (K3, K6, K7.4, K9.1): phase, over, turn,
    final_turns_left, to_act, handed_back, last_turn_skipped."""
    phase_name = need(sc, "phase")
    if phase_name not in PHASE_NAMES:
        raise ValueError(f"scenario key 'phase' must be one of {PHASE_NAMES}, got {phase_name!r}")
    phase = PHASE_NAMES.index(phase_name)
    over = phase == Phase.GAME_OVER
    turn = int_at(need(sc, "turn"), "turn", 0, cfg.max_turns + FINAL_TURNS)
    final = need(sc, "final_turns_left")
    if final is not None and (isinstance(final, bool) or final not in (1, 2)):
        raise ValueError(f"scenario key 'final_turns_left' must be null, 1 or 2, got {final!r}")
    final = final or 0
    to_act = need(sc, "to_act")
    if over:
        if to_act is not None:
            raise ValueError("scenario key 'to_act' must be null exactly when the game is over")
    else:
        want = start ^ (turn & 1)
        if to_act is None or to_act != want or isinstance(to_act, bool):
            raise ValueError(
                f"scenario key 'to_act' must be {want} (starting_player XOR turn mod 2; "
                f"null only when the game is over), got {to_act!r}"
            )
    handed_back = bool_at(need(sc, "handed_back"), "handed_back")
    skipped = bool_at(need(sc, "last_turn_skipped"), "last_turn_skipped")
    if handed_back and (phase != Phase.DRAW or hand_sizes[start ^ (turn & 1)] >= HAND_LIMIT):
        raise ValueError(
            "scenario key 'handed_back': only in the DRAW phase, after a hand-back left the "
            "hand with at most 4 cards (K6.4)"
        )
    if skipped and turn == 0:
        raise ValueError("scenario key 'last_turn_skipped': no turn before turn 0 (K6.3)")
    if final:
        if cards_left or n_scorings != len(SCORING_POINTS):
            raise ValueError(
                "scenario key 'final_turns_left': final turns follow the third exhaustion: "
                "2 scorings done and no card left to draw (K7.4)"
            )
        if phase == Phase.DRAW:
            raise ValueError("scenario key 'phase': a final turn has no DRAW phase (K3.3)")
        if skipped:
            raise ValueError(
                "scenario key 'last_turn_skipped': the turn before the final turns drew (K7.1)"
            )
        if turn > cfg.max_turns + FINAL_TURNS - final:
            raise ValueError(
                f"scenario key 'turn': the final turns begin at turn <= max_turns "
                f"({cfg.max_turns}), so turn {turn} is too late (K9.1)"
            )
    elif not over:
        if not cards_left:
            raise ValueError(
                "scenario key 'pile': pile and row are empty in a running game outside the "
                "final turns (K6.6)"
            )
        if turn >= cfg.max_turns:
            raise ValueError(
                f"scenario key 'turn': a game outside its final turns is truncated at "
                f"max_turns = {cfg.max_turns} (K9.1), got {turn}"
            )
    if not over and n_scorings == NUM_SCORINGS:
        raise ValueError("scenario key 'scorings': 3 scorings only once the game is over (K7.5)")
    return phase, over, turn, final, to_act, handed_back, skipped


def _read_end(
    sc: dict[str, Any],
    cfg: Config,
    state: State,
    over: bool,
    n_scorings: int,
    words: list[int],
    final: int,
    turn: int,
) -> tuple[Any, Any]:
    """The end (K7.5, K8, K9.1): the winner and the end reason, checked."""
    winner = need(sc, "winner")
    reason = need(sc, "end_reason")
    bare = [w == 0 for w in words]
    if not over:
        if winner is not None:
            raise ValueError("scenario key 'winner' must be null while the game runs")
        if reason is not None:
            raise ValueError("scenario key 'end_reason' must be null while the game runs")
        if cfg.early_end and n_scorings and any(bare):
            raise ValueError(
                "scenario key 'bridges': a player without bridges in round 2 or 3 has lost "
                "(K8.2, early_end on)"
            )
    else:
        if winner is not None and (isinstance(winner, bool) or winner not in (0, 1)):
            raise ValueError(f"scenario key 'winner' must be 0, 1 or null, got {winner!r}")
        if reason not in END_REASONS:
            raise ValueError(
                f"scenario key 'end_reason' must be one of {END_REASONS} once the game is over, "
                f"got {reason!r}"
            )
        want_winner = _check_end(reason, cfg, state, n_scorings, bare, final, turn)
        if winner != want_winner:
            raise ValueError(
                f"scenario key 'winner' must be {want_winner} for end_reason {reason!r} in this "
                f"position (K8), got {winner!r}"
            )
    return winner, reason


def _check_end(
    reason: str,
    cfg: Config,
    state: State,
    n_scorings: int,
    bare: list[bool],
    final: int,
    turn: int,
) -> int | None:
    """Check that a finished position fits `reason`; return the winner it implies."""
    if reason == "final_scoring":
        if n_scorings != NUM_SCORINGS or final:
            raise ValueError(
                "scenario key 'end_reason': final_scoring needs all 3 scorings and no final "
                "turn left (K7.5)"
            )
        n = np.bitwise_count(state.stones[0]).astype(int)
        third = [max(n[0] - n[1], 0), max(n[1] - n[0], 0)]
        if state.scorings[0, 2].tolist() != third:
            raise ValueError(
                f"scenario key 'scorings': the third scoring must be {third}, the difference of "
                "the stones on the board (K7.5)"
            )
        return _winner_k8_1(state)
    if reason == "early_end":
        if not cfg.early_end or not n_scorings or not any(bare) or n_scorings == NUM_SCORINGS:
            raise ValueError(
                "scenario key 'end_reason': early_end needs early_end on, 1 or 2 scorings done "
                "and a player without bridges (K8.2)"
            )
        return None if all(bare) else int(bare[0])
    if n_scorings == NUM_SCORINGS or final or turn < cfg.max_turns:
        raise ValueError(
            f"scenario key 'end_reason': truncated needs turn >= max_turns ({cfg.max_turns}), "
            "outside the final turns, before the third scoring (K9.1)"
        )
    return None


def _winner_k8_1(state: State) -> int | None:
    """K8.1's winner of the single game of `state`, None for a draw."""
    sc = state.scorings[0].astype(int)
    keys = (sc.sum(axis=0), sc[2], np.bitwise_count(state.bridges[0]).astype(int))
    for k in keys:
        if k[0] != k[1]:
            return 0 if k[0] > k[1] else 1
    return None
