"""A slow, plain-Python reference for Kahuna's rules, written from KAHUNA-RULES.md alone.

It reads and writes positions in the spec's scenario format ("Scenario format" in
KAHUNA-RULES.md: island and line names, canonical list order, `config` holding only the
overrides of `DEFAULTS`, `known` always present, `key` never present) and shares no code with
`kanaloa_env`, so a property test comparing it with the batched engine at every decision
catches a slip in either. Standard library only; one position at a time; clarity over speed.

What it covers, by rule id:

- Components and tables: `ISLANDS` (K1.1), `LINES` (K1.2), `DEGREE`, `MAJ`, `NEIGHBOURS`
  (K1.3, derived from the line list), bridge supply (K1.5), stone supply (K1.6).
- `deal(cards, starting_player)`: the start position of a shuffled deck (K2.1, K2.2).
- `legal_actions(sc)`: the legal action indices of the player to act (K3.2, K3.3, K4.1, K4.2,
  K4.4 with every `discard_rule`, K6.1-K6.4, the action table); empty once the game is over
  (K8.3).
- `step(sc, action)`: the whole position after a decision, the step's rewards and whether a
  reshuffle dealt a new pile and row: placing and removing (K4), claims and stone losses (K5),
  taking, drawing, skipping and handing back (K6, with the public memory `known` K6.7),
  exhaustion, scorings, reshuffles and final turns (K7), the end of the game and its winner
  (K8.1, K8.2), truncation (K9.1) and rewards (K10.1).
- `check(sc)`: the spec's list of rejected scenarios ("Rejected with a ValueError naming the
  key") plus structural checks (types, names, list lengths).
- Helpers: `holder`, `line_counts`, `owner`, `bridge_supply`, `stone_supply`, `config`,
  `overrides`, `normalised`, `comparable` (what a comparison with the engine should compare),
  `action_index`, `describe`, `spent_cards`, `play`.

Action indices (the spec's action table, `Discrete(153)`): 0-53 PLACE, 54-134 REMOVE,
135-146 DISCARD (hand-back in the DRAW phase), 147 END_PLAY, 148-150 TAKE, 151 DRAW, 152 SKIP.

Readings where the spec says nothing explicit (each one is marked "Reading:" at its code):

- A reshuffle (K7.3) is random, so a `step` that returns `reshuffled=True` lays the
  reshuffled cards out in sorted order: `face_up` holds the first three, `pile` the rest. A
  caller compares `face_up + pile` as a multiset.
- The early-end check after scorings 1 and 2 (K8.2 "right after scorings 1 and 2 (K7.3)") runs
  after the reshuffle, so the finished position holds the new pile and row.
- A face-up 2-card removal forgets one known copy per spent card (K6.7), so x+x forgets two.
- Hand-backs in the DRAW phase follow K6.4 alone, whatever the `discard_rule` (K4.4 is about
  the PLAY phase).
- At the end of a turn the order is K6.5's: exhaustion and scoring (K7), the early-end check
  that follows a scoring (K8.2), then truncation (K9.1). A scoring turn that reaches max_turns
  is scored and reshuffled (`reshuffled` True) and then truncated, unless K8.2 ended the game.
- `check` rejects an unknown key (`key` included: no random key is modelled) and a finished
  game without an `end_reason`, beyond the spec's list.
- A finished game keeps the values the ending step left in every field the spec does not tie to
  the end: `turn` counts the turn that just ended (if one did), `last_turn_skipped` is what that
  turn set, `final_turns_left` is 2 or 1 when an early end interrupts a final turn and null
  after the third scoring (no final turn is left), `handed_back` is False (it is rejected
  outside the DRAW phase).
"""

from __future__ import annotations

import operator
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

Scenario = dict[str, Any]

# ---- components (K1) -----------------------------------------------------------------

ISLANDS: tuple[str, ...] = (
    "ALOA",
    "BARI",
    "COCO",
    "DUDA",
    "ELAI",
    "FAAA",
    "GOLA",
    "HUNA",
    "IFFI",
    "JOJO",
    "KAHU",
    "LALE",
)  # K1.1, indexed alphabetically
ISLAND_INDEX: dict[str, int] = {x: i for i, x in enumerate(ISLANDS)}

LINES: tuple[tuple[str, str], ...] = (
    ("ALOA", "BARI"),
    ("ALOA", "DUDA"),
    ("ALOA", "HUNA"),
    ("BARI", "COCO"),
    ("BARI", "DUDA"),
    ("BARI", "ELAI"),
    ("BARI", "FAAA"),
    ("COCO", "FAAA"),
    ("COCO", "GOLA"),
    ("COCO", "KAHU"),
    ("DUDA", "ELAI"),
    ("DUDA", "HUNA"),
    ("ELAI", "FAAA"),
    ("ELAI", "HUNA"),
    ("ELAI", "IFFI"),
    ("ELAI", "JOJO"),
    ("FAAA", "GOLA"),
    ("FAAA", "JOJO"),
    ("GOLA", "JOJO"),
    ("GOLA", "KAHU"),
    ("HUNA", "IFFI"),
    ("HUNA", "LALE"),
    ("IFFI", "JOJO"),
    ("IFFI", "KAHU"),
    ("IFFI", "LALE"),
    ("JOJO", "KAHU"),
    ("KAHU", "LALE"),
)  # K1.2: (a, b) with a the alphabetically first end, in sorted order
LINE_NAMES: tuple[str, ...] = tuple(f"{a}-{b}" for a, b in LINES)
LINE_INDEX: dict[str, int] = {name: i for i, name in enumerate(LINE_NAMES)}

# K1.3, derived from the line list (the test compares them with the spec's table).
LINES_AT: dict[str, tuple[int, ...]] = {
    x: tuple(i for i, ends in enumerate(LINES) if x in ends) for x in ISLANDS
}
DEGREE: dict[str, int] = {x: len(LINES_AT[x]) for x in ISLANDS}
MAJ: dict[str, int] = {x: DEGREE[x] // 2 + 1 for x in ISLANDS}
NEIGHBOURS: dict[str, tuple[str, ...]] = {
    x: tuple(sorted((b if a == x else a) for a, b in (LINES[i] for i in LINES_AT[x])))
    for x in ISLANDS
}

CARDS_PER_ISLAND = 2  # K1.4
BRIDGES_PER_PLAYER = 25  # K1.5
HAND_LIMIT = 5  # K2.3
SLOTS = 3  # K2.1
DEAL = 3  # K2.1: cards per hand and face up at set-up

# ---- actions (the spec's action table) ------------------------------------------------

PLACE_BASE = 0
REMOVE_BASE = 54
DISCARD_BASE = 135
END_PLAY = 147
TAKE_BASE = 148
DRAW = 151
SKIP = 152
NUM_ACTIONS = 153

# ---- config (K1.6, K2.2, K4.4, K8.2, K9.1) ----------------------------------------------

DEFAULTS: dict[str, Any] = {
    "stones_per_player": 10,
    "first_player": "random",
    "discard_rule": "any_time",
    "early_end": True,
    "max_turns": 200,
}
DISCARD_RULES = ("any_time", "no_legal_play", "unplayable_cards")

KEYS = (
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
PHASES = ("play", "draw", "game_over")
END_REASONS = ("final_scoring", "early_end", "truncated")
FIRST_SCORINGS = ([1, 0], [0, 1], [0, 0])  # K7.2
SECOND_SCORINGS = ([2, 0], [0, 2], [0, 0])  # K7.2


def _is_int(v: object) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def config(sc: Scenario) -> dict[str, Any]:
    """The full config of a scenario: `DEFAULTS` updated by its `config` overrides, checked."""
    over = sc.get("config", {})
    if not isinstance(over, dict):
        raise TypeError(f"config must be a dict of overrides, got {type(over).__name__}")
    for k in over:
        if k not in DEFAULTS:
            raise ValueError(f"config: unknown option {k!r}; allowed: {sorted(DEFAULTS)}")
    cfg = {**DEFAULTS, **over}
    s = cfg["stones_per_player"]
    if not _is_int(s) or not 10 <= s <= 12:
        raise ValueError(f"config: stones_per_player must be an int in 10..12 (K1.6), got {s!r}")
    if cfg["first_player"] not in ("random", 0, 1) or isinstance(cfg["first_player"], bool):
        raise ValueError(
            f"config: first_player must be 'random', 0 or 1 (K2.2), got {cfg['first_player']!r}"
        )
    if cfg["discard_rule"] not in DISCARD_RULES:
        raise ValueError(
            f"config: discard_rule must be one of {DISCARD_RULES} (K4.4), "
            f"got {cfg['discard_rule']!r}"
        )
    if not isinstance(cfg["early_end"], bool):
        raise ValueError(f"config: early_end must be a bool (K8.2), got {cfg['early_end']!r}")
    m = cfg["max_turns"]
    if not _is_int(m) or m < 1:
        raise ValueError(f"config: max_turns must be an int >= 1 (K9.1), got {m!r}")
    return cfg


def overrides(cfg: dict[str, Any]) -> dict[str, Any]:
    """The scenario's `config` value for a full config: only the keys that differ from DEFAULTS."""
    return {k: v for k, v in cfg.items() if v != DEFAULTS[k]}


# ---- reading a position ----------------------------------------------------------------


def _line(line: int | str | tuple[str, str]) -> int:
    """A line index from an index, a name ("ALOA-BARI") or an (a, b) pair in either order."""
    if _is_int(line):
        assert isinstance(line, int)
        if not 0 <= line < len(LINES):
            raise ValueError(f"line index must be in 0..{len(LINES) - 1}, got {line}")
        return line
    if isinstance(line, str):
        if line not in LINE_INDEX:
            raise ValueError(f"unknown line {line!r}; lines are named like 'ALOA-BARI' (K1.2)")
        return LINE_INDEX[line]
    if isinstance(line, tuple) and len(line) == 2:
        a, b = sorted(line)
        return _line(f"{a}-{b}")
    raise TypeError(f"a line is an index, a name or an (a, b) pair, got {line!r}")


def _island(x: object) -> str:
    if not isinstance(x, str) or x not in ISLAND_INDEX:
        raise ValueError(f"unknown island {x!r}; islands are {ISLANDS} (K1.1)")
    return x


def line_counts(sc: Scenario, player: int, island: str) -> int:
    """How many of `island`'s lines hold a bridge of `player` (K5.1)."""
    _island(island)
    return sum(1 for name in sc["bridges"][player] if island in LINES[LINE_INDEX[name]])


def holder(sc: Scenario, island: str) -> int | None:
    """The player holding `island` (K5.1: at least maj(island) of its lines), or None."""
    for p in (0, 1):
        if line_counts(sc, p, island) >= MAJ[island]:
            return p
    return None


def owner(sc: Scenario, line: int) -> int | None:
    """The player whose bridge lies on line index `line`, or None if it is free."""
    name = LINE_NAMES[line]
    for p in (0, 1):
        if name in sc["bridges"][p]:
            return p
    return None


def bridge_supply(sc: Scenario, player: int) -> int:
    """K1.5: 25 minus the player's bridges on the board."""
    return BRIDGES_PER_PLAYER - len(sc["bridges"][player])


def stone_supply(sc: Scenario, player: int) -> int:
    """K1.6: stones_per_player minus the player's stones on the board."""
    limit: int = config(sc)["stones_per_player"]
    return limit - len(sc["stones"][player])


def _known(sc: Scenario) -> Any:
    """The scenario's `known` (K6.7), which is optional and defaults to nothing known."""
    return sc.get("known", [[], []])


# ---- the start position (K2) -------------------------------------------------------------


def deal(cards: Sequence[str], starting_player: int, cfg: dict[str, Any] | None = None) -> Scenario:
    """The start position (K2.1) for `cards`, the 24 island cards in shuffled order.

    Three cards to player 0, three to player 1, three face up into slots 0-2, the other 15 are
    the pile, top first. `starting_player` is who begins (K2.2; a fixed `first_player` in `cfg`
    must agree with it). `cfg` holds config overrides.
    """
    cards = list(cards)
    if sorted(cards, key=ISLAND_INDEX.__getitem__) != [
        x for x in ISLANDS for _ in range(CARDS_PER_ISLAND)
    ]:
        raise ValueError(f"cards must be the 24 island cards, two per island (K1.4), got {cards}")
    if starting_player not in (0, 1) or isinstance(starting_player, bool):
        raise ValueError(f"starting_player must be 0 or 1, got {starting_player!r}")
    over = dict(cfg or {})
    full = config({"config": over})
    if full["first_player"] != "random" and full["first_player"] != starting_player:
        raise ValueError(
            f"starting_player {starting_player} contradicts config first_player "
            f"{full['first_player']} (K2.2)"
        )
    sc: Scenario = {
        "config": overrides(full),
        "starting_player": starting_player,
        "bridges": [[], []],
        "stones": [[], []],
        "hands": [cards[0:DEAL], cards[DEAL : 2 * DEAL]],
        "face_up": cards[2 * DEAL : 2 * DEAL + SLOTS],
        "pile": cards[2 * DEAL + SLOTS :],
        "discard_up": [],
        "discard_down": [[], []],
        "known": [[], []],
        "scorings": [],
        "to_act": starting_player,
        "phase": "play",
        "handed_back": False,
        "last_turn_skipped": False,
        "final_turns_left": None,
        "turn": 0,
        "winner": None,
        "end_reason": None,
    }
    _canonical(sc)
    return sc


# ---- checking a position (the spec's rejection list) -------------------------------------


def _islands_list(v: object, key: str, limit: int | None = None) -> list[str]:
    if not isinstance(v, list):
        raise ValueError(f"{key} must be a list of island names, got {v!r}")
    for x in v:
        if not isinstance(x, str) or x not in ISLAND_INDEX:
            raise ValueError(f"{key}: unknown island {x!r}; islands are {ISLANDS}")
    if limit is not None and len(v) > limit:
        raise ValueError(f"{key}: {len(v)} entries, at most {limit} allowed")
    return v


def _pair(v: object, key: str) -> list[Any]:
    if not isinstance(v, list) or len(v) != 2:
        raise ValueError(f"{key} must be a list of 2 per-player entries, got {v!r}")
    return v


def check(sc: Scenario) -> None:
    """Raise ValueError (naming the key) if `sc` is not a valid scenario; TypeError if not a dict.

    Every rejection the spec lists under "Scenario format", plus the structure (known keys,
    names, types, per-player pairs).
    """
    if not isinstance(sc, dict):
        raise TypeError(f"a scenario is a dict, got {type(sc).__name__}")
    # Reading: unknown keys, `key` among them, are rejected rather than ignored.
    for k in sc:
        if k not in KEYS:
            hint = " (this reference models no random key)" if k == "key" else ""
            raise ValueError(f"unknown scenario key {k!r}{hint}; allowed: {KEYS}")
    for k in KEYS:
        if k not in sc and k not in ("config", "known"):
            raise ValueError(f"scenario key {k!r} is missing")
    cfg = config(sc)
    sp = sc["starting_player"]
    if sp not in (0, 1) or isinstance(sp, bool):
        raise ValueError(f"starting_player must be 0 or 1, got {sp!r}")

    bridges = _pair(sc["bridges"], "bridges")
    seen: dict[str, int] = {}
    for p in (0, 1):
        if not isinstance(bridges[p], list):
            raise ValueError(f"bridges[{p}] must be a list of line names")
        for name in bridges[p]:
            if name not in LINE_INDEX:
                raise ValueError(f"bridges[{p}]: unknown line {name!r} (K1.2)")
            if name in seen:
                raise ValueError(f"bridges: line {name} is owned twice")
            seen[name] = p
        if len(bridges[p]) > BRIDGES_PER_PLAYER:
            raise ValueError(f"bridges[{p}]: {len(bridges[p])} bridges, at most 25 (K1.5)")

    stones = _pair(sc["stones"], "stones")
    on: set[str] = set()
    for p in (0, 1):
        _islands_list(stones[p], f"stones[{p}]", cfg["stones_per_player"])
        for x in stones[p]:
            if x in on:
                raise ValueError(f"stones: two stones on {x}")
            on.add(x)
            if holder(sc, x) != p:
                raise ValueError(f"stones[{p}]: a stone on {x}, which player {p} does not hold")
    if cfg["stones_per_player"] == 12:
        for x in ISLANDS:
            h = holder(sc, x)
            if h is not None and x not in stones[h]:
                raise ValueError(f"stones[{h}]: {x} is held without a stone with 12 stones (K5.6)")

    hands = _pair(sc["hands"], "hands")
    for p in (0, 1):
        _islands_list(hands[p], f"hands[{p}]", HAND_LIMIT)
    row = sc["face_up"]
    if not isinstance(row, list) or len(row) != SLOTS:
        raise ValueError(f"face_up must be a list of 3 slots (island or null), got {row!r}")
    for x in row:
        if x is not None:
            _islands_list([x], "face_up")
    pile = _islands_list(sc["pile"], "pile")
    _islands_list(sc["discard_up"], "discard_up")
    down = _pair(sc["discard_down"], "discard_down")
    for p in (0, 1):
        _islands_list(down[p], f"discard_down[{p}]")
    known = _pair(_known(sc), "known")
    for p in (0, 1):
        _islands_list(known[p], f"known[{p}]")
        if Counter(known[p]) - Counter(hands[p]):
            raise ValueError(f"known[{p}] {known[p]} is not a sub-multiset of hands[{p}]")
    everything = Counter(
        hands[0]
        + hands[1]
        + [x for x in row if x is not None]
        + pile
        + sc["discard_up"]
        + down[0]
        + down[1]
    )
    for x in ISLANDS:
        if everything[x] != CARDS_PER_ISLAND:
            raise ValueError(
                f"hands/face_up/pile/discard_up/discard_down: {everything[x]} cards of {x}, "
                "exactly 2 per island (K1.4)"
            )
    if pile and None in row:
        raise ValueError("face_up: an empty slot while the pile is not empty (K6.1)")

    scorings = sc["scorings"]
    if not isinstance(scorings, list) or len(scorings) > 3:
        raise ValueError(f"scorings must be a list of at most 3 [p0, p1] pairs, got {scorings!r}")
    for i, s in enumerate(scorings):
        if not isinstance(s, list) or len(s) != 2 or not all(_is_int(v) and v >= 0 for v in s):
            raise ValueError(f"scorings[{i}] must be [points0, points1], got {s!r}")
        if i == 0 and s not in FIRST_SCORINGS:
            raise ValueError(f"scorings[0] must be one of {FIRST_SCORINGS} (K7.2), got {s}")
        if i == 1 and s not in SECOND_SCORINGS:
            raise ValueError(f"scorings[1] must be one of {SECOND_SCORINGS} (K7.2), got {s}")
        if i == 2 and min(s) != 0:
            raise ValueError(f"scorings[2] gives points to one player at most (K7.5), got {s}")

    phase = sc["phase"]
    if phase not in PHASES:
        raise ValueError(f"phase must be one of {PHASES}, got {phase!r}")
    running = phase != "game_over"
    turn = sc["turn"]
    if not _is_int(turn) or turn < 0:
        raise ValueError(f"turn must be an int >= 0, got {turn!r}")
    for k in ("handed_back", "last_turn_skipped"):
        if not isinstance(sc[k], bool):
            raise ValueError(f"{k} must be a bool, got {sc[k]!r}")
    ftl = sc["final_turns_left"]
    if ftl not in (None, 1, 2) or isinstance(ftl, bool):
        raise ValueError(f"final_turns_left must be null, 2 or 1 (K7.4), got {ftl!r}")
    to_act = sc["to_act"]
    if running and len(scorings) == 3:
        raise ValueError("scorings: 3 scorings in a running game (K7.5 ends it)")
    if (to_act is None) == running:
        raise ValueError(f"to_act must be null exactly when the game is over, got {to_act!r}")
    if running and to_act != sp ^ (turn % 2):
        raise ValueError(
            f"to_act must be starting_player XOR (turn mod 2) = {sp ^ (turn % 2)} (K3.1), "
            f"got {to_act!r}"
        )
    if sc["handed_back"] and (phase != "draw" or len(hands[to_act]) >= HAND_LIMIT):
        raise ValueError("handed_back: only in the DRAW phase and with at most 4 cards (K6.4)")
    if sc["last_turn_skipped"] and turn == 0:
        raise ValueError("last_turn_skipped: no turn was played yet (K6.3)")
    if ftl is not None:
        if pile or any(x is not None for x in row):
            raise ValueError("final_turns_left: cards are left to draw (K7.4)")
        if len(scorings) < 2:
            raise ValueError("final_turns_left: fewer than 2 scorings (K7.4)")
        if phase == "draw":
            raise ValueError("phase: no DRAW phase in a final turn (K3.3)")
    if running and ftl is None and not pile and all(x is None for x in row):
        raise ValueError("pile/face_up: all empty in a running game outside final turns (K6.6)")
    if running:
        if sc["winner"] is not None or sc["end_reason"] is not None:
            raise ValueError("winner/end_reason: set in a running game")
        if cfg["early_end"] and scorings and (not bridges[0] or not bridges[1]):
            raise ValueError("bridges: a running game meets the early end K8.2")
    else:
        # Reading: the spec lists end_reason's values; a finished game must have one.
        if sc["end_reason"] not in END_REASONS:
            raise ValueError(f"end_reason must be one of {END_REASONS} once the game is over")
        if sc["winner"] not in (None, 0, 1) or isinstance(sc["winner"], bool):
            raise ValueError(f"winner must be 0, 1 or null, got {sc['winner']!r}")


# ---- actions: indices and names ------------------------------------------------------------


def action_index(kind: str, *args: Any) -> int:
    """The action index of a decision described by name.

    - `action_index("place", line, card)`: PLACE on `line` (index, "ALOA-BARI" or a pair)
      spending a `card` of one of its ends (0-53).
    - `action_index("remove", line, card1, card2)`: REMOVE the bridge on `line` spending the
      two cards (both ends, or one end twice) (54-134).
    - `action_index("discard", island)`: DISCARD / hand back an `island` card (135-146).
    - `action_index("end_play")` 147, `action_index("take", slot)` 148-150,
      `action_index("draw")` 151, `action_index("skip")` 152.
    """
    if kind == "place":
        line, card = args
        i = _line(line)
        a, b = LINES[i]
        if card not in (a, b):
            raise ValueError(f"place: card {card!r} is not an end of {LINE_NAMES[i]} (K4.1)")
        return PLACE_BASE + 2 * i + (0 if card == a else 1)
    if kind == "remove":
        line, c1, c2 = args
        i = _line(line)
        a, b = LINES[i]
        pair = sorted((c1, c2))
        k = {(a, a): 0, (b, b): 1, (a, b): 2}.get((pair[0], pair[1]))
        if k is None:
            raise ValueError(
                f"remove: cards {c1!r}+{c2!r} must be {a}+{b}, {a}+{a} or {b}+{b} (K4.2)"
            )
        return REMOVE_BASE + 3 * i + k
    if kind in ("discard", "hand_back"):
        (x,) = args
        return DISCARD_BASE + ISLAND_INDEX[_island(x)]
    if kind == "take":
        (slot,) = args
        if not _is_int(slot) or not 0 <= slot < SLOTS:
            raise ValueError(f"take: slot must be 0, 1 or 2, got {slot!r}")
        return TAKE_BASE + int(slot)
    if kind in ("end_play", "draw", "skip") and not args:
        return {"end_play": END_PLAY, "draw": DRAW, "skip": SKIP}[kind]
    raise ValueError(
        f"unknown action kind {kind!r} with {args!r}; kinds: place, remove, discard, "
        "end_play, take, draw, skip"
    )


def _check_action(action: object) -> int:
    if isinstance(action, bool):
        raise TypeError(f"an action is an int in 0..{NUM_ACTIONS - 1}, got {action!r}")
    try:
        a = operator.index(action)  # type: ignore[arg-type]
    except TypeError:
        raise TypeError(
            f"an action is an int in 0..{NUM_ACTIONS - 1}, got {type(action).__name__}"
        ) from None
    if not 0 <= a < NUM_ACTIONS:
        raise ValueError(f"action must be in 0..{NUM_ACTIONS - 1}, got {a}")
    return a


def spent_cards(action: int) -> list[str]:
    """The cards a PLACE (one) or REMOVE (two) spends face up; [] for any other action."""
    action = _check_action(action)
    if action < REMOVE_BASE:
        a, b = LINES[action // 2]
        return [a if action % 2 == 0 else b]
    if action < DISCARD_BASE:
        i, k = divmod(action - REMOVE_BASE, 3)
        a, b = LINES[i]
        return [[a, a], [b, b], [a, b]][k]
    return []


def describe(action: int) -> str:
    """A readable name of an action index, e.g. 'PLACE BARI-DUDA with DUDA'."""
    action = _check_action(action)
    if action < REMOVE_BASE:
        return f"PLACE {LINE_NAMES[action // 2]} with {spent_cards(action)[0]}"
    if action < DISCARD_BASE:
        c1, c2 = spent_cards(action)
        return f"REMOVE {LINE_NAMES[(action - REMOVE_BASE) // 3]} with {c1}+{c2}"
    if action < END_PLAY:
        return f"DISCARD {ISLANDS[action - DISCARD_BASE]}"
    if action == END_PLAY:
        return "END_PLAY"
    if action < DRAW:
        return f"TAKE slot {action - TAKE_BASE}"
    return "DRAW" if action == DRAW else "SKIP"


# ---- legality ------------------------------------------------------------------------


def _card_plays(sc: Scenario, p: int) -> set[int]:
    """The legal PLACE (K4.1) and REMOVE (K4.2) actions of player p in the PLAY phase."""
    hand = Counter(sc["hands"][p])
    q = 1 - p
    acts: set[int] = set()
    for i, (a, b) in enumerate(LINES):
        who = owner(sc, i)
        if who is None and bridge_supply(sc, p) > 0:  # K4.1: a free line, a bridge in supply
            if hand[a]:
                acts.add(PLACE_BASE + 2 * i)
            if hand[b]:
                acts.add(PLACE_BASE + 2 * i + 1)
        elif who == q:  # K4.2: only the opponent's bridges
            if hand[a] >= 2:
                acts.add(REMOVE_BASE + 3 * i)
            if hand[b] >= 2:
                acts.add(REMOVE_BASE + 3 * i + 1)
            if hand[a] and hand[b]:
                acts.add(REMOVE_BASE + 3 * i + 2)
    return acts


def _draw_options(sc: Scenario, p: int) -> set[int]:
    """TAKE, DRAW and SKIP (K6.1-K6.4), outside final turns."""
    acts: set[int] = set()
    if len(sc["hands"][p]) <= HAND_LIMIT - 1:  # K6.4: TAKE and DRAW need a hand of at most 4
        acts |= {TAKE_BASE + s for s, x in enumerate(sc["face_up"]) if x is not None}
        if sc["pile"]:
            acts.add(DRAW)
    if not sc["last_turn_skipped"] and not sc["handed_back"]:  # K6.3, K6.4
        acts.add(SKIP)
    return acts


def legal_actions(sc: Scenario) -> set[int]:
    """The legal action indices of the player to act; empty once the game is over (K8.3)."""
    check(sc)
    if sc["phase"] == "game_over":
        return set()
    p = sc["to_act"]
    held = {DISCARD_BASE + ISLAND_INDEX[x] for x in set(sc["hands"][p])}
    if sc["phase"] == "draw":
        acts = _draw_options(sc, p)
        # K6.4: a hand-back is legal exactly with 5 cards or after a first hand-back.
        # Reading: discard_rule (K4.4) governs DISCARD in PLAY only; K6.4 has its own rule.
        if len(sc["hands"][p]) == HAND_LIMIT or sc["handed_back"]:
            acts |= held
        return acts
    plays = _card_plays(sc, p)
    acts = plays | {END_PLAY}
    if sc["final_turns_left"] is not None:
        return acts  # K3.3: PLACE, REMOVE and END_PLAY alone
    rule = config(sc)["discard_rule"]
    if rule == "any_time":  # K4.4
        acts |= held
    elif rule == "no_legal_play":
        if not plays:
            acts |= held
    else:  # "unplayable_cards"
        usable = {x for a in plays for x in spent_cards(a)}
        acts |= {DISCARD_BASE + ISLAND_INDEX[x] for x in set(sc["hands"][p]) if x not in usable}
    return acts | _draw_options(sc, p)  # K3.2: TAKE, DRAW, SKIP end the turn from PLAY too


# ---- resolving actions -----------------------------------------------------------------


def _forget_spent(sc: Scenario, p: int, x: str) -> None:
    """K6.7: a card of x spent face up takes one x out of what the opponent knows."""
    if x in sc["known"][p]:
        sc["known"][p].remove(x)


def _forget_face_down(sc: Scenario, p: int) -> None:
    """K6.7: a face-down discard takes one copy of every distinct known island away."""
    for x in set(sc["known"][p]):
        sc["known"][p].remove(x)


def _spend(sc: Scenario, p: int, cards: list[str]) -> None:
    """K4.5: spent cards go face up onto the discard pile."""
    # Reading: K6.7 "Spending x face up removes one x" applies per card, so a removal with
    # x+x forgets two x; otherwise `known` could exceed the hand (a rejected scenario).
    for x in cards:
        sc["hands"][p].remove(x)
        sc["discard_up"].append(x)
        _forget_spent(sc, p, x)


def _claim(sc: Scenario, p: int, x: str) -> None:
    """K5.3: a stone if one is left (a), and every opponent bridge at x goes back (b)."""
    if stone_supply(sc, p) > 0:
        sc["stones"][p].append(x)
    # A2: without a stone the island is still claimed, so (b) still clears it.
    q = 1 - p
    sc["bridges"][q] = [name for name in sc["bridges"][q] if x not in LINES[LINE_INDEX[name]]]


def _place(sc: Scenario, p: int, action: int) -> None:
    """K4.1 then the claims of K5.2 (card island first, then the other end)."""
    i = action // 2
    (x,) = spent_cards(action)
    _spend(sc, p, [x])
    sc["bridges"][p].append(LINE_NAMES[i])
    a, b = LINES[i]
    for end in (x, b if x == a else a):
        # K5.2: claimed exactly where this bridge made p's count equal maj (A9: no re-claim).
        if line_counts(sc, p, end) == MAJ[end]:
            _claim(sc, p, end)


def _remove(sc: Scenario, p: int, action: int) -> None:
    """K4.2: the opponent's bridge on the line goes back to their supply; no claim."""
    i = (action - REMOVE_BASE) // 3
    _spend(sc, p, spent_cards(action))
    sc["bridges"][1 - p].remove(LINE_NAMES[i])


def _stone_losses(sc: Scenario) -> None:
    """K5.4: any stone whose owner no longer holds its island goes back (no cascade, K5.5)."""
    for p in (0, 1):
        sc["stones"][p] = [x for x in sc["stones"][p] if holder(sc, x) == p]


def _finish(sc: Scenario, winner: int | None, reason: str) -> None:
    """K8.3: the game is over; it records its winner (None for a draw)."""
    # Reading: every other field keeps what the ending step left (see the module docstring).
    sc.update(phase="game_over", to_act=None, winner=winner, end_reason=reason, handed_back=False)


def _early_end(sc: Scenario) -> None:
    """K8.2: with a scoring done, a player without bridges loses at once; both: a draw."""
    if not config(sc)["early_end"] or not sc["scorings"] or sc["phase"] == "game_over":
        return
    empty = [not sc["bridges"][p] for p in (0, 1)]
    if empty[0] and empty[1]:
        _finish(sc, None, "early_end")
    elif empty[0] or empty[1]:
        _finish(sc, 1 if empty[0] else 0, "early_end")


def _reshuffle(sc: Scenario) -> None:
    """K7.3: every discard-pile card, face down ones included, becomes the new pile; 3 dealt.

    Reading: the real order is random, so this lays the cards out sorted (slots 0-2 get the
    first three); the caller compares face_up + pile as a multiset.
    """
    cards = sc["discard_up"] + sc["discard_down"][0] + sc["discard_down"][1]
    cards.sort(key=ISLAND_INDEX.__getitem__)
    sc["face_up"] = cards[:SLOTS]
    sc["pile"] = cards[SLOTS:]
    sc["discard_up"] = []
    sc["discard_down"] = [[], []]


def _final_winner(sc: Scenario) -> int | None:
    """K8.1: higher total, then more third-scoring points, then more bridges; else a draw."""
    totals = [sum(s[p] for s in sc["scorings"]) for p in (0, 1)]
    third = sc["scorings"][2]
    bridges = [len(sc["bridges"][p]) for p in (0, 1)]
    for a, b in (totals, third, bridges):
        if a != b:
            return 0 if a > b else 1
    return None


def _end_turn(sc: Scenario, p: int, skipped: bool) -> bool:
    """The end of p's turn (K6.5, K7.1-K7.5, K8.2, K9.1); True when a reshuffle was dealt.

    Reading: K6.5's order, K7 (with K8.2's check right after a scoring) before K9.
    """
    sc["turn"] += 1
    sc.update(phase="play", handed_back=False, last_turn_skipped=skipped, to_act=1 - p)
    ftl = sc["final_turns_left"]
    if ftl is not None:  # K7.4: a final turn just ended; no truncation (K9.1, A22)
        if ftl == 2:
            sc["final_turns_left"] = 1
            return False
        stones = [len(sc["stones"][0]), len(sc["stones"][1])]
        d = abs(stones[0] - stones[1])
        sc["scorings"].append(
            [d if stones[0] > stones[1] else 0, d if stones[1] > stones[0] else 0]
        )
        # Reading: no final turn is left after the third scoring, so the countdown is null.
        sc["final_turns_left"] = None
        _finish(sc, _final_winner(sc), "final_scoring")  # K7.5, K8.1
        return False
    reshuffled = False
    if not sc["pile"] and all(x is None for x in sc["face_up"]):  # K7.1 exhaustion
        n = len(sc["scorings"])
        if n == 2:  # K7.4: the drawer's opponent (to_act now) plays the first final turn
            sc["final_turns_left"] = 2
            return False
        stones = [len(sc["stones"][0]), len(sc["stones"][1])]
        pts = n + 1  # K7.2: 1 point at the first scoring, 2 at the second
        sc["scorings"].append(
            [pts if stones[0] > stones[1] else 0, pts if stones[1] > stones[0] else 0]
        )
        _reshuffle(sc)  # K7.3
        reshuffled = True
        # Reading: "right after scorings 1 and 2 (K7.3)" = once the new round is dealt.
        _early_end(sc)
    if sc["phase"] != "game_over" and sc["turn"] >= config(sc)["max_turns"]:
        _finish(sc, None, "truncated")  # K9.1
    return reshuffled


def _canonical(sc: Scenario) -> None:
    """Lists in the scenario format's canonical order; config as overrides only."""
    sc["config"] = overrides(config(sc))
    sc["known"] = [list(k) for k in _known(sc)]
    for p in (0, 1):
        sc["bridges"][p].sort(key=LINE_INDEX.__getitem__)
        for key in ("stones", "hands", "discard_down", "known"):
            sc[key][p].sort(key=ISLAND_INDEX.__getitem__)
    sc["discard_up"].sort(key=ISLAND_INDEX.__getitem__)


def _copy(v: Any) -> Any:
    """A deep copy of JSON-like data (dicts, lists, scalars).

    About 2.5x faster than copy.deepcopy on E1's position (23 against 60 us, load 8.6 on 2
    cores: `timeit` of both on test_kahuna_reference.e1_start()); a step copies once.
    """
    if isinstance(v, dict):
        return {k: _copy(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_copy(x) for x in v]
    return v


def normalised(sc: Scenario) -> Scenario:
    """A checked copy of `sc` in canonical form (sorted lists, `known` present, overrides only)."""
    check(sc)
    out: Scenario = _copy(sc)
    _canonical(out)
    return out


def comparable(sc: Scenario, reshuffled: bool) -> Scenario:
    """`sc` made comparable with a `step` result: canonical, without `key`, row and pile pooled.

    With `reshuffled` True (a K7.3 reshuffle in the step that produced `sc`) the real order of
    the new row and pile is random, so `face_up` becomes None and `pile` the sorted multiset
    of both. Use it on both sides: `comparable(engine_sc, rs) == comparable(ref_sc, rs)`.
    """
    out: Scenario = _copy(sc)
    out.pop("key", None)
    out = normalised(out)
    if reshuffled:
        cards = [x for x in out["face_up"] if x is not None] + out["pile"]
        out["face_up"] = None
        out["pile"] = sorted(cards, key=ISLAND_INDEX.__getitem__)
    return out


def step(sc: Scenario, action: int) -> tuple[Scenario, list[float], bool]:
    """The position after the player to act takes `action`; the input is not changed.

    Returns (position, [r0, r1], reshuffled). Rewards follow K10.1: +1/-1 at the step that ends
    the game with a winner, 0 otherwise (draws and truncation too). `reshuffled` is True when a
    scoring's reshuffle (K7.3) dealt a new pile and row in this step; `face_up` and `pile` then
    hold the right cards in sorted order, not the random real one. Raises ValueError for an
    illegal action, TypeError for a non-integer one.
    """
    action = _check_action(action)
    legal = legal_actions(sc)
    if action not in legal:
        raise ValueError(
            f"action {action} ({describe(action)}) is not legal here; "
            f"legal: {sorted(legal) if legal else 'none (the game is over)'}"
        )
    s: Scenario = _copy(sc)  # legal_actions has checked sc
    _canonical(s)
    p = s["to_act"]
    reshuffled = False
    if action < REMOVE_BASE:
        _place(s, p, action)
    elif action < DISCARD_BASE:
        _remove(s, p, action)
    elif action < END_PLAY:
        x = ISLANDS[action - DISCARD_BASE]
        s["hands"][p].remove(x)
        s["discard_down"][p].append(x)  # K4.4, K6.4 (A8): face down under the discard pile
        _forget_face_down(s, p)
        if s["phase"] == "draw":
            s["handed_back"] = True
    elif action == END_PLAY:
        if s["final_turns_left"] is not None:
            reshuffled = _end_turn(s, p, skipped=False)  # K3.3: END_PLAY ends a final turn
        else:
            s["phase"] = "draw"  # K3.2
    elif action < DRAW:
        slot = action - TAKE_BASE
        x = s["face_up"][slot]
        s["hands"][p].append(x)
        s["known"][p].append(x)  # K6.7: a TAKE shows the card
        s["face_up"][slot] = s["pile"].pop(0) if s["pile"] else None  # K6.1
        reshuffled = _end_turn(s, p, skipped=False)
    elif action == DRAW:
        s["hands"][p].append(s["pile"].pop(0))  # K6.2
        reshuffled = _end_turn(s, p, skipped=False)
    else:
        reshuffled = _end_turn(s, p, skipped=True)  # K6.3
    if s["phase"] != "game_over":
        _stone_losses(s)  # K5.4: after every action
        _early_end(s)  # K8.2: after every action
    _canonical(s)
    rewards = [0.0, 0.0]
    if s["phase"] == "game_over" and s["winner"] is not None:
        rewards[s["winner"]] = 1.0
        rewards[1 - s["winner"]] = -1.0
    return s, rewards, reshuffled


def play(sc: Scenario, actions: Iterable[int]) -> Scenario:
    """The position after a sequence of actions (no reshuffle may happen on the way)."""
    for a in actions:
        sc, _, reshuffled = step(sc, a)
        if reshuffled:
            raise ValueError(f"play: action {a} reshuffled; step through it with step()")
    return sc
