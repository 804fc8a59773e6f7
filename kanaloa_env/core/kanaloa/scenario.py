"""Scenarios: a JSON-compatible dict that describes one position completely (SCENARIO.md).

`from_scenario(s)` builds a batch-1 `State`; `to_scenario(state, i)` dumps game `i`.
Two optional keys extend SCENARIO.md and are written only when they carry
information: `voids` (per player, the suits that player showed it lacks this
round; earlier tricks' leaders are not in the format, so this cannot be derived)
and `key` (the game's random key, which fixes future deals; written when
`to_scenario(..., include_key=True)`).

`from_scenario` treats its input as untrusted: strict types, bounded nesting and
size, and only positions the rules can reach; every rejection names its key
(docs/scenario.md, Validation).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..batch import check_index
from ..scenario_checks import (
    bad,
    bool_at,
    check_nesting,
    dict_at,
    int_at,
    is_int,
    list_at,
    need,
    scenario_key,
    show,
)
from . import masks, route
from .config import Config
from .constants import (
    CARD_NAMES,
    CARD_SUIT,
    HAND_SIZE,
    KANALOA,
    MAX_PLAYERS,
    MAX_PROGRESS,
    MIN_PLAYERS,
    MIN_ROUTE_CARDS,
    NO_PLAYER,
    NO_SUIT,
    NUM_CARD_TYPES,
    NUM_KANALOA,
    NUM_OCTOPUS,
    NUM_TIKI,
    OCTOPUS,
    PENDING_NAMES,
    PHASE_NAMES,
    SUIT_BITS,
    SUIT_NAMES,
    TRICKS_PER_ROUND,
    Pending,
    Phase,
    card_from_name,
)
from .invariants import InvariantError, check_invariants
from .state import State
from .tricks import played_from_history

_COPIES = {KANALOA: NUM_KANALOA, OCTOPUS: NUM_OCTOPUS}
_FIRST_BIT = {KANALOA: NUM_TIKI, OCTOPUS: NUM_TIKI + NUM_KANALOA}


def _hand_cards(word: int) -> list[int]:
    """Card types in a hand bit set, canonical order (Kanaloa and octopus repeated)."""
    cards = [c for c in range(NUM_TIKI) if word >> c & 1]
    cards += [KANALOA] * bin(word >> NUM_TIKI & 0b111).count("1")
    cards += [OCTOPUS] * bin(word >> (NUM_TIKI + NUM_KANALOA) & 0b11).count("1")
    return cards


def to_scenario(state: State, i: int = 0, include_key: bool = False) -> dict[str, Any]:
    """Dump game `i` of a batch to a scenario dict (SCENARIO.md), with the key of future
    deals if `include_key` (docs/scenario.md).

    Raises:
        TypeError: `state` is not a `State`, or `i` is not an int (a Python or numpy
            integer; not a bool, a float or a string).
        ValueError: `i` is not in 0..B-1.
    """
    if not isinstance(state, State):
        raise TypeError(
            f"state must be a kanaloa_env.core.kanaloa.State, got {type(state).__name__}"
        )
    i = check_index(i, state.batch_size, "to_scenario's game index i")
    cfg, P = state.config, state.num_players
    deck = cfg.deck
    present = state.present[i]
    slots = np.flatnonzero(present)
    compact = {int(n): c for c, n in enumerate(slots)}
    route_out = []
    for n in slots:
        codes = state.route[i, 2 * n : 2 * n + 2]
        route_out.append(
            {
                "id": int(codes[0]) // 2,
                "fields": [
                    {
                        "color": SUIT_NAMES[deck.color[c]],
                        "dolphin": bool(deck.dolphin[c]),
                        "start": bool(deck.start[c]),
                    }
                    for c in codes
                ],
            }
        )
    in_route = {r["id"] for r in route_out}

    def field_index(f: int) -> int:
        return 2 * compact[f // 2] + f % 2

    phase = int(state.phase[i])
    tn = int(state.trick_number[i])
    n_played = int(state.num_played[i])
    leader = int(state.leader[i])
    trick = [
        {"player": (leader + j) % P, "card": CARD_NAMES[int(state.history[i, tn * P + j])]}
        for j in range(n_played - tn * P)
    ]
    sc: dict[str, Any] = {
        "num_players": P,
        "config": cfg.overrides(),
        "route": route_out,
        "boats": [
            {
                "field": field_index(int(state.boat_field[i, p])),
                "progress": int(state.progress[i, p]),
            }
            for p in range(P)
        ],
        "removed": sorted(k for k in range(deck.num_cards) if k not in in_route),
        "round": int(state.round[i]),
        "starting_player": int(state.starting_player[i]),
        "trick_number": tn,
        "leader": leader,
        "to_act": None if phase == Phase.GAME_OVER else int(state.current_player[i]),
        "phase": PHASE_NAMES[phase],
        "trick": trick,
        "hands": [[CARD_NAMES[c] for c in _hand_cards(int(state.hands[i, p]))] for p in range(P)],
        "tricks_won": [int(x) for x in state.tricks_won[i]],
        "announced": [None if a < 0 else bool(a) for a in state.announced[i]],
        "played_this_round": [CARD_NAMES[int(c)] for c in state.history[i, :n_played]],
        "winner": None if state.winner[i] < 0 else int(state.winner[i]),
    }
    if phase == Phase.DOLPHIN:
        sc["pending"] = PENDING_NAMES[int(state.pending[i])]
    if state.voids[i].any():
        sc["voids"] = [
            [SUIT_NAMES[s] for s in range(4) if state.voids[i, p] >> s & 1] for p in range(P)
        ]
    if include_key:
        sc["key"] = int(state.key[i])
    return sc


# ---- reading untrusted input -------------------------------------------------------

_REQUIRED = (
    "num_players",
    "route",
    "boats",
    "removed",
    "round",
    "starting_player",
    "trick_number",
    "leader",
    "phase",
    "trick",
    "hands",
    "tricks_won",
    "announced",
    "played_this_round",
)
_OPTIONAL = ("config", "to_act", "pending", "winner", "voids", "key")


def _cards(names: list[Any], path: str) -> list[int]:
    out = []
    for j, name in enumerate(names):
        try:
            out.append(card_from_name(name))
        except ValueError:
            raise bad(
                f"{path}[{j}]",
                f"is an unknown card {show(name)}: expected '<suit>-<1..12>' with suit in "
                f"{SUIT_NAMES}, 'kanaloa' or 'octopus'",
            ) from None
    return out


def _check_copies(cards: list[int], path: str) -> None:
    """Each Tiki card at most once, each special card at most its copies (R1.2)."""
    counts = np.bincount(np.asarray(cards, dtype=np.intp), minlength=NUM_CARD_TYPES)
    for twice in np.flatnonzero(counts[:NUM_TIKI] > 1):
        raise bad(path, f"holds card {CARD_NAMES[twice]} twice")
    for c, copies in _COPIES.items():
        if counts[c] > copies:
            raise bad(path, f"holds more than {copies} {CARD_NAMES[c]} cards (R1.2)")


def _hand_words(hands: list[list[int]]) -> list[int]:
    """The hands' bit sets. The copies of a special card go to distinct bits, from
    the lowest up in seat order, as a deal gives each physical card to one hand; which
    copy a hand holds carries no meaning (only their number does)."""
    used = dict.fromkeys(_COPIES, 0)
    words = []
    for cards in hands:
        word = 0
        for c in cards:
            if c in used:
                word |= 1 << (_FIRST_BIT[c] + used[c])
                used[c] += 1
            else:
                word |= 1 << c
        words.append(word)
    return words


def from_scenario(sc: dict[str, Any], seed: int | None = None) -> State:
    """Build a batch-1 `State` from a scenario dict (SCENARIO.md, docs/scenario.md).

    The scenario is untrusted input: types are strict (an int is an int, not a bool,
    a float or a string; a list is a list), nesting and size are bounded
    (`kanaloa_env.core.scenario_checks`), and the position must be one the rules can reach
    in the ways docs/scenario.md lists; every state it returns passes
    `kanaloa_env.testing.check_invariants`.

    Args:
        sc: the scenario.
        seed: fixes future deals when the scenario has no `key` (default 0).

    Raises:
        TypeError: `sc` is not a dict.
        ValueError: the scenario is malformed or inconsistent; the message names the
            key (`scenario key 'boats[1].progress' ...`).
    """
    if not isinstance(sc, dict):
        raise TypeError(f"a scenario must be a dict, got {type(sc).__name__}")
    unknown = [k for k in sc if k not in _REQUIRED and k not in _OPTIONAL]
    if unknown:
        name = show(unknown[0])
        raise bad(
            name[1:-1] if isinstance(unknown[0], str) else name,
            f"is unknown; allowed: {[*_REQUIRED, *_OPTIONAL]}",
        )
    check_nesting(sc)
    P = int_at(need(sc, "num_players"), "num_players", MIN_PLAYERS, MAX_PLAYERS)
    cfg_over = sc.get("config", {})
    if not isinstance(cfg_over, dict):
        raise bad("config", f"must be a dict of config overrides, got {type(cfg_over).__name__}")
    try:
        cfg = Config.from_dict(P, cfg_over)
    except (ValueError, TypeError) as e:
        text = str(e)  # (it may quote a bad value at length)
        raise bad("config", f"is invalid: {text[:300]}{'...' if len(text) > 300 else ''}") from None
    state = State.empty(cfg, 1)
    F = _read_route(sc, cfg, state)
    progress = _read_boats(sc, cfg, state, F)

    # Round and turn.
    state.round[0] = int_at(need(sc, "round"), "round", 1, cfg.max_rounds)
    sp = int_at(need(sc, "starting_player"), "starting_player", 0, P - 1)
    state.starting_player[0] = sp
    tn = int_at(need(sc, "trick_number"), "trick_number", 0, TRICKS_PER_ROUND)
    state.trick_number[0] = tn
    leader = int_at(need(sc, "leader"), "leader", 0, P - 1)
    state.leader[0] = leader
    if tn == 0 and leader != sp:
        raise bad("leader", f"must be the starting player {sp} in the first trick (R3.3)")
    phase_name = need(sc, "phase")
    if not isinstance(phase_name, str) or phase_name not in PHASE_NAMES:
        raise bad("phase", f"must be one of {PHASE_NAMES}, got {show(phase_name)}")
    phase = Phase(PHASE_NAMES.index(phase_name))
    state.phase[0] = phase
    over = phase == Phase.GAME_OVER
    if over:
        if sc.get("to_act") is not None:
            raise bad("to_act", "must be null when the phase is game_over")
        to_act = NO_PLAYER
    else:
        to_act = int_at(need(sc, "to_act"), "to_act", 0, P - 1)
    state.current_player[0] = to_act
    if phase == Phase.ANNOUNCE and not cfg.nil_announcement:
        raise bad("phase", "'announce' needs config nil_announcement=True")

    trick_cards = _read_cards(sc, state, P, tn, leader, phase)
    _read_hands(sc, state, P, tn, leader, len(trick_cards))
    _read_tricks_won(sc, state, P, tn)
    announced = _read_announced(sc, state, cfg, phase, sp, to_act)
    _read_voids(sc, state, P)

    # Phase-specific consistency.
    if phase in (Phase.ANNOUNCE, Phase.PLAY) and tn == TRICKS_PER_ROUND:
        raise bad("phase", f"{phase_name} needs a trick to play, but all 8 are over")
    if phase == Phase.PLAY and to_act != (leader + len(trick_cards)) % P:
        raise bad("to_act", "must be the next player in the trick in phase play")
    if phase == Phase.ANNOUNCE and (tn or trick_cards):
        raise bad("phase", "announce only before the first card of a round")
    if phase == Phase.REMOVE_OCTOPUS and (
        not trick_cards
        or trick_cards[-1] != OCTOPUS
        or to_act != (leader + len(trick_cards) - 1) % P
    ):
        raise bad("phase", "remove_octopus needs the player to act to have just played an octopus")
    if phase == Phase.REMOVE_ROUND_END and (tn != TRICKS_PER_ROUND or to_act != leader):
        raise bad(
            "phase", "remove_round_end follows the 8th trick, with its winner (leader) to act"
        )
    if over and (trick_cards or tn == 0):
        raise bad("phase", "game_over comes after a boat's move: after a trick, none open")
    _read_pending(sc, state, cfg, phase, tn, leader, to_act, trick_cards, announced)
    _read_end(sc, state, cfg, phase, tn, progress, F)
    if (
        phase in (Phase.REMOVE_OCTOPUS, Phase.REMOVE_ROUND_END)
        and not route.can_remove_at(state, np.array([0]))[0]
    ):
        raise bad("phase", f"{phase_name} but no ocean card can be removed (R7.2)")
    if phase == Phase.DOLPHIN and not route.dolphin_eligible_at(
        state, np.array([0]), np.array([to_act])
    ):
        raise bad(
            "phase",
            f"dolphin, but boat {to_act} does not stand on a dolphin with the fields behind "
            "and ahead free (R6.3)",
        )

    state.key[0] = scenario_key(sc.get("key"), seed)
    state.trump[0] = route.trump_at(state, np.array([0]))[0]
    masks.refresh(state)
    if not over and not state.legal[0].any():
        raise bad("phase", f"{phase_name}: player {to_act} would have no legal action")
    # The checks above are meant to cover every invariant; should one slip through,
    # no broken state leaves here.
    try:
        check_invariants(state)
    except InvariantError as e:
        raise ValueError(f"scenario: the position breaks an invariant of the rules: {e}") from e
    return state


def _read_route(sc: dict[str, Any], cfg: Config, state: State) -> int:
    """`route` and `removed` into `state`; returns the route's fields F."""
    deck, N = cfg.deck, cfg.route_cards
    K = deck.num_cards
    route_in = list_at(need(sc, "route"), "route")
    m = len(route_in)
    if not MIN_ROUTE_CARDS <= m <= N:
        raise bad("route", f"must hold {MIN_ROUTE_CARDS}..{N} cards, got {m}")
    codes: list[int] = []
    ids: list[int] = []
    for k, card in enumerate(route_in):
        path = f"route[{k}]"
        card = dict_at(card, path, ("id", "fields"))
        cid = int_at(card["id"], f"{path}.id", 0, K - 1)
        if cid in ids:
            raise bad(f"{path}.id", f"card {cid} appears twice in the route")
        got = []
        for j, f in enumerate(list_at(card["fields"], f"{path}.fields", 2)):
            fp = f"{path}.fields[{j}]"
            f = dict_at(f, fp, ("color", "dolphin", "start"))
            if not isinstance(f["color"], str) or f["color"] not in SUIT_NAMES:
                raise bad(f"{fp}.color", f"must be one of {SUIT_NAMES}, got {show(f['color'])}")
            dolphin, start = (bool_at(f[k], f"{fp}.{k}") for k in ("dolphin", "start"))
            got.append((f["color"], dolphin, start))
        want = [
            (SUIT_NAMES[deck.color[c]], bool(deck.dolphin[c]), bool(deck.start[c]))
            for c in (2 * cid, 2 * cid + 1)
        ]
        if got == want:
            codes += [2 * cid, 2 * cid + 1]
        elif got == want[::-1]:
            codes += [2 * cid + 1, 2 * cid]
        else:
            raise bad(f"{path}.fields", f"{got} do not match ocean card {cid} {want}")
        ids.append(cid)
    removed = list_at(need(sc, "removed"), "removed")
    for j, r in enumerate(removed):
        int_at(r, f"removed[{j}]", 0, K - 1)
        if r in removed[:j]:
            raise bad(f"removed[{j}]", f"lists ocean card {r} twice")
    missing = sorted(set(range(K)) - set(ids))
    if sorted(int(r) for r in removed) != missing:
        raise bad(
            "removed",
            f"must list exactly the ocean cards not in the route: {missing}, got {show(removed)}",
        )
    for cid in missing[: N - m]:  # removed cards keep slots after the route's (not present)
        codes += [2 * cid, 2 * cid + 1]
    state.route[0] = codes
    state.present[0] = np.arange(N) < m
    state.present_slots[0] = (1 << m) - 1
    return 2 * m


def _read_boats(sc: dict[str, Any], cfg: Config, state: State, F: int) -> list[int]:
    """`boats` into `state` (R2.3, R9.1); returns their progress."""
    P = cfg.num_players
    boats = list_at(need(sc, "boats"), "boats", P)
    fields, progress = [], []
    for p, b in enumerate(boats):
        b = dict_at(b, f"boats[{p}]", ("field", "progress"))
        fields.append(int_at(b["field"], f"boats[{p}].field", 0, F - 1))
        progress.append(int_at(b["progress"], f"boats[{p}].progress", -MAX_PROGRESS, MAX_PROGRESS))
    start_fields = {f for f in range(F) if cfg.deck.start[state.route[0, f]]}
    for p in range(P):
        for q in range(p + 1, P):
            if fields[p] == fields[q] and (
                fields[p] not in start_fields or progress[p] != progress[q]
            ):
                raise bad(
                    "boats",
                    f"players {p} and {q} share field {fields[p]}, which only boats that "
                    "never left the start field may do (R2.3)",
                )
            if (progress[p] - progress[q] - (fields[p] - fields[q])) % F != 0:
                raise bad(
                    "boats",
                    f"progress of players {p} and {q} contradicts their fields (difference "
                    f"must equal the field distance modulo the route length {F})",
                )
    state.boat_field[0] = fields  # slots 0..m-1 hold the route in order
    state.progress[0] = progress
    return progress


def _read_cards(
    sc: dict[str, Any], state: State, P: int, tn: int, leader: int, phase: Phase
) -> list[int]:
    """`trick` and `played_this_round` into `state`; returns the trick's cards."""
    trick_in = list_at(need(sc, "trick"), "trick")
    if len(trick_in) > P:
        raise bad("trick", f"holds {len(trick_in)} cards, more than {P} players")
    trick_cards = []
    for j, t in enumerate(trick_in):
        t = dict_at(t, f"trick[{j}]", ("player", "card"))
        seat = (leader + j) % P
        if not is_int(t["player"]) or t["player"] != seat:
            raise bad(
                f"trick[{j}].player",
                f"must be {seat} (turn order from the leader), got {show(t['player'])}",
            )
        trick_cards += _cards([t["card"]], f"trick[{j}].card")[:1]
    if len(trick_in) == P and not (phase == Phase.REMOVE_OCTOPUS and trick_cards[-1] == OCTOPUS):
        raise bad(
            "trick",
            "is complete, which only stands while its last card, an octopus, waits for its "
            "removal (phase remove_octopus)",
        )
    if tn == TRICKS_PER_ROUND and trick_in:
        raise bad("trick", "must be empty after the 8th trick")
    played = _cards(
        list_at(need(sc, "played_this_round"), "played_this_round"), "played_this_round"
    )
    if len(played) != tn * P + len(trick_cards):
        raise bad(
            "played_this_round",
            f"must hold trick_number * num_players + len(trick) = {tn * P + len(trick_cards)} "
            f"cards, got {len(played)}",
        )
    if played[len(played) - len(trick_cards) :] != trick_cards:
        raise bad("played_this_round", "must end with the cards of 'trick'")
    state.history[0, : len(played)] = played
    state.num_played[0] = len(played)
    state.played[0] = played_from_history(state.history[:1], state.num_played[:1])[0]
    lead_suits = [CARD_SUIT[c] for c in trick_cards if c < NUM_TIKI]
    state.lead_suit[0] = lead_suits[0] if lead_suits else NO_SUIT
    return trick_cards


def _read_hands(
    sc: dict[str, Any], state: State, P: int, tn: int, leader: int, in_trick: int
) -> None:
    """`hands` into `state` (R3.1): 8 cards less those played, no card beyond its copies."""
    hands_in = list_at(need(sc, "hands"), "hands", P)
    played_in_trick = {(leader + j) % P for j in range(in_trick)}
    hands = []
    for p, h in enumerate(hands_in):
        path = f"hands[{p}]"
        cards = _cards(list_at(h, path), path)
        size = HAND_SIZE - tn - (1 if p in played_in_trick else 0)
        if len(cards) != size:
            when = "after" if p in played_in_trick else "before"
            raise bad(
                path,
                f"must hold {size} cards at trick {tn} ({when} playing to the current "
                f"trick), got {len(cards)}",
            )
        _check_copies(cards, path)
        hands.append(cards)
    played = state.history[0, : state.num_played[0]].tolist()
    _check_copies([c for h in hands for c in h] + played, "hands/played_this_round")
    state.hands[0] = np.array(_hand_words(hands), dtype=np.uint64)


def _read_tricks_won(sc: dict[str, Any], state: State, P: int, tn: int) -> None:
    won = list_at(need(sc, "tricks_won"), "tricks_won", P)
    for p, x in enumerate(won):
        int_at(x, f"tricks_won[{p}]", 0, TRICKS_PER_ROUND)
    if sum(int(x) for x in won) != tn:
        raise bad("tricks_won", f"must sum to trick_number {tn}, got {show(won)}")
    state.tricks_won[0] = won


def _read_announced(
    sc: dict[str, Any], state: State, cfg: Config, phase: Phase, sp: int, to_act: int
) -> list[bool | None]:
    """`announced` into `state` (R3.2); returns it."""
    P = cfg.num_players
    announced = list_at(need(sc, "announced"), "announced", P)
    for p, a in enumerate(announced):
        if a is not None and not isinstance(a, (bool, np.bool_)):
            raise bad(f"announced[{p}]", f"must be true, false or null, got {show(a)}")
    if not cfg.nil_announcement and any(a is not None for a in announced):
        raise bad("announced", "must be all null when the variant is off")
    if cfg.nil_announcement:
        if phase == Phase.ANNOUNCE:
            decided = {(sp + k) % P for k in range((to_act - sp) % P)}
            if any((a is not None) != (p in decided) for p, a in enumerate(announced)):
                raise bad(
                    "announced",
                    "in phase announce exactly the players from the starting player up to "
                    "the one to act have decided",
                )
        elif any(a is None for a in announced):
            raise bad("announced", "every player has decided after the announce phase")
    out = [None if a is None else bool(a) for a in announced]
    state.announced[0] = [-1 if a is None else int(a) for a in out]
    return out


def _read_voids(sc: dict[str, Any], state: State, P: int) -> None:
    """`voids` into `state`: suits a player showed it lacks, so holds none of (R4.3)."""
    if "voids" not in sc:
        return
    voids = list_at(sc["voids"], "voids", P)
    for p, vs in enumerate(voids):
        path = f"voids[{p}]"
        word = 0
        for j, v in enumerate(list_at(vs, path)):
            if not isinstance(v, str) or v not in SUIT_NAMES:
                raise bad(f"{path}[{j}]", f"must be a suit name {SUIT_NAMES}, got {show(v)}")
            bit = 1 << SUIT_NAMES.index(v)
            if word & bit:
                raise bad(f"{path}[{j}]", f"lists {v} twice")
            word |= bit
        if word and state.num_played[0] == 0:
            raise bad(path, "must be empty: nobody has played a card this round")
        held = int(state.hands[0, p]) & ((1 << NUM_TIKI) - 1)
        for s in range(4):
            if word >> s & 1 and held & int(SUIT_BITS[s]):
                raise bad(
                    path,
                    f"says player {p} lacks {SUIT_NAMES[s]}, but the hand holds a "
                    f"{SUIT_NAMES[s]} card (R4.3)",
                )
        state.voids[0, p] = word


def _read_pending(
    sc: dict[str, Any],
    state: State,
    cfg: Config,
    phase: Phase,
    tn: int,
    leader: int,
    to_act: int,
    trick_cards: list[int],
    announced: list[bool | None],
) -> None:
    """`pending` into `state`: in phase dolphin, the move it follows (R6.3, R7.3)."""
    pending = sc.get("pending")
    if phase != Phase.DOLPHIN:
        if pending is not None:
            raise bad("pending", "is only allowed in phase dolphin")
        return
    if not isinstance(pending, str) or pending not in ("trick", "payout"):
        raise bad("pending", f"must be 'trick' or 'payout' in phase dolphin, got {show(pending)}")
    if trick_cards:
        raise bad("trick", "must be empty in phase dolphin")
    if pending == "trick":
        # The trick's winner moved: the new leader.
        if tn == 0 or to_act != leader:
            raise bad("pending", "'trick': the winner of a trick (the leader) decides")
        if announced[to_act] and not cfg.announced_boat_moves:
            raise bad("pending", "'trick': the winner announced and does not move (R7.4)")
        state.pending[0] = Pending.TRICK
    else:
        won = int(state.tricks_won[0, to_act])
        if not (cfg.nil_announcement and tn == TRICKS_PER_ROUND and announced[to_act] and not won):
            raise bad(
                "pending",
                "'payout': after the 8th trick, a player who announced and won no trick "
                "decides (R7.3)",
            )
        state.pending[0] = Pending.PAYOUT


def _read_end(
    sc: dict[str, Any],
    state: State,
    cfg: Config,
    phase: Phase,
    tn: int,
    progress: list[int],
    F: int,
) -> None:
    """`winner` into `state`, and the lap rule (R9.2): while the game goes on no boat
    is a lap ahead; a winner lapped the last boat, by one move. A game over without a winner was
    truncated at the end of round `max_rounds` (R9.4)."""
    winner = sc.get("winner")
    last = min(progress)
    if phase != Phase.GAME_OVER and winner is not None:
        raise bad("winner", "must be null while the game is not over")
    if winner is None:
        ahead = [p for p, g in enumerate(progress) if g - last > F]
        if ahead:
            raise bad(
                "boats",
                f"boat {ahead[0]} is more than a lap ({F} fields) ahead of the last boat, but "
                "the game goes on (R9.2)",
            )
        if phase == Phase.GAME_OVER:
            if int(state.round[0]) != cfg.max_rounds or tn != TRICKS_PER_ROUND:
                raise bad(
                    "winner",
                    f"is null in phase game_over, which means truncated, but a game is "
                    f"truncated only after the 8th trick of round max_rounds = "
                    f"{cfg.max_rounds} (R9.4)",
                )
            state.truncated[0] = True
        return
    w = int_at(winner, "winner", 0, cfg.num_players - 1)
    others = [g for p, g in enumerate(progress) if p != w]
    if progress[w] - min(others) <= F:
        raise bad(
            "winner",
            f"player {w} did not lap the last boat: progress {progress[w]} against "
            f"{min(others)}, not more than a lap of {F} fields ahead (R9.2)",
        )
    # The winning move started less than a lap ahead and sailed at most a lap; the
    # other boats did not move.
    if progress[w] - min(others) >= 2 * F:
        raise bad(
            "winner",
            f"player {w} is two laps ({2 * F} fields) or more ahead of the last boat: one "
            "move laps it, then the game ends (R9.2)",
        )
    if max(others) - min(others) > F:
        raise bad(
            "boats",
            f"a boat besides the winner {w} is more than a lap ({F} fields) ahead of the "
            "last boat (R9.2)",
        )
    state.winner[0] = w
    state.terminated[0] = True
