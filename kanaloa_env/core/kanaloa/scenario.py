"""Scenarios: a JSON-compatible dict that describes one position completely (SCENARIO.md).

`from_scenario(s)` builds a batch-1 `State`; `to_scenario(state, i)` dumps game `i`.
Two optional keys extend SCENARIO.md and are written only when they carry
information: `voids` (per player, the suits that player showed it lacks this
round; earlier tricks' leaders are not in the format, so this cannot be derived)
and `key` (the game's random key, which fixes future deals; written when
`to_scenario(..., include_key=True)`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..rng import game_keys
from . import masks, route
from .config import Config
from .constants import (
    CARD_NAMES,
    CARD_SUIT,
    DECK_SIZE,
    HAND_SIZE,
    KANALOA,
    MAX_PLAYERS,
    MIN_PLAYERS,
    MIN_ROUTE_CARDS,
    NO_PLAYER,
    NO_SUIT,
    NUM_KANALOA,
    NUM_OCTOPUS,
    NUM_TIKI,
    OCTOPUS,
    PENDING_NAMES,
    PHASE_NAMES,
    SUIT_NAMES,
    TRICKS_PER_ROUND,
    Pending,
    Phase,
    card_from_name,
)
from .setup import empty_state
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


def _hand_word(cards: list[int], key: str) -> int:
    word = 0
    used = {KANALOA: 0, OCTOPUS: 0}
    for c in cards:
        if c in used:
            if used[c] >= _COPIES[c]:
                raise ValueError(f"{key}: more than {_COPIES[c]} {CARD_NAMES[c]} cards")
            word |= 1 << (_FIRST_BIT[c] + used[c])
            used[c] += 1
        else:
            if word >> c & 1:
                raise ValueError(f"{key}: card {CARD_NAMES[c]} twice")
            word |= 1 << c
    return word


def to_scenario(state: State, i: int = 0, include_key: bool = False) -> dict[str, Any]:
    """Dump game `i` of a batch to a scenario dict (SCENARIO.md)."""
    if not 0 <= int(i) < state.batch_size:
        raise ValueError(f"game index must be in 0..{state.batch_size - 1}, got {i}")
    i = int(i)
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


def _int(sc: dict[str, Any], key: str, lo: int, hi: int) -> int:
    if key not in sc:
        raise ValueError(f"scenario key '{key}' is missing")
    v = sc[key]
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or not lo <= v <= hi:
        raise ValueError(f"scenario key '{key}' must be an int in {lo}..{hi}, got {v!r}")
    return int(v)


def _list(sc: dict[str, Any], key: str, length: int | None = None) -> list[Any]:
    if key not in sc:
        raise ValueError(f"scenario key '{key}' is missing")
    v = sc[key]
    if not isinstance(v, list):
        raise ValueError(f"scenario key '{key}' must be a list, got {type(v).__name__}")
    if length is not None and len(v) != length:
        raise ValueError(f"scenario key '{key}' must have {length} entries, got {len(v)}")
    return v


def _cards(names: list[Any], key: str) -> list[int]:
    try:
        return [card_from_name(n) for n in names]
    except ValueError as e:
        raise ValueError(f"scenario key '{key}': {e}") from None


def from_scenario(sc: dict[str, Any], seed: int | None = None) -> State:
    """Build a batch-1 `State` from a scenario dict (SCENARIO.md).

    Args:
        sc: the scenario.
        seed: fixes future deals when the scenario has no `key` (default 0).

    Raises:
        TypeError: `sc` is not a dict.
        ValueError: the scenario is inconsistent; the message names the key.
    """
    if not isinstance(sc, dict):
        raise TypeError(f"a scenario must be a dict, got {type(sc).__name__}")
    P = _int(sc, "num_players", MIN_PLAYERS, MAX_PLAYERS)
    cfg_over = sc.get("config", {})
    if not isinstance(cfg_over, dict):
        raise ValueError("scenario key 'config' must be a dict of config overrides")
    try:
        cfg = Config.from_dict(P, cfg_over)
    except (ValueError, TypeError) as e:
        raise ValueError(f"scenario key 'config': {e}") from None
    deck = cfg.deck
    N = cfg.route_cards
    state = empty_state(cfg, 1)

    # Route: present cards in slots 0..m-1, removed ones after them (not present).
    route_in = _list(sc, "route")
    m = len(route_in)
    if not MIN_ROUTE_CARDS <= m <= N:
        raise ValueError(f"scenario key 'route' must hold {MIN_ROUTE_CARDS}..{N} cards, got {m}")
    codes: list[int] = []
    ids: list[int] = []
    for k, card in enumerate(route_in):
        key = f"route[{k}]"
        if not isinstance(card, dict) or "id" not in card or "fields" not in card:
            raise ValueError(f"scenario key '{key}' must be a dict with 'id' and 'fields'")
        cid = card["id"]
        if isinstance(cid, bool) or not isinstance(cid, int) or not 0 <= cid < deck.num_cards:
            raise ValueError(
                f"scenario key '{key}.id' must be in 0..{deck.num_cards - 1}, got {cid!r}"
            )
        if cid in ids:
            raise ValueError(f"scenario key '{key}.id': card {cid} appears twice in the route")
        fields = card["fields"]
        if not isinstance(fields, list) or len(fields) != 2:
            raise ValueError(f"scenario key '{key}.fields' must list the card's two fields")
        want = [
            (SUIT_NAMES[deck.color[c]], bool(deck.dolphin[c]), bool(deck.start[c]))
            for c in (2 * cid, 2 * cid + 1)
        ]
        try:
            got = [
                (f["color"], bool(f.get("dolphin", False)), bool(f.get("start", False)))
                for f in fields
            ]
        except (TypeError, KeyError):
            raise ValueError(
                f"scenario key '{key}.fields': each field needs 'color', 'dolphin', 'start'"
            ) from None
        if got == want:
            codes += [2 * cid, 2 * cid + 1]
        elif got == want[::-1]:
            codes += [2 * cid + 1, 2 * cid]
        else:
            raise ValueError(
                f"scenario key '{key}.fields' {got} do not match ocean card {cid} {want}"
            )
        ids.append(cid)
    removed = _list(sc, "removed")
    if sorted(removed) != sorted(set(range(deck.num_cards)) - set(ids)) or len(set(removed)) != len(
        removed
    ):
        raise ValueError(
            f"scenario key 'removed' must list exactly the ocean cards not in the route: "
            f"{sorted(set(range(deck.num_cards)) - set(ids))}, got {removed}"
        )
    for cid in sorted(removed)[: N - m]:
        codes += [2 * cid, 2 * cid + 1]
    state.route[0] = codes
    state.present[0] = np.arange(N) < m
    state.present_slots[0] = (1 << m) - 1
    F = 2 * m
    start_fields = [f for f in range(F) if deck.start[codes[f]]]

    # Boats (R2.3, R9.1).
    boats = _list(sc, "boats", P)
    fields, progress = [], []
    for p, b in enumerate(boats):
        if not isinstance(b, dict):
            raise ValueError(
                f"scenario key 'boats[{p}]' must be a dict with 'field' and 'progress'"
            )
        try:
            fields.append(_int(b, "field", 0, F - 1))
            progress.append(_int(b, "progress", -(2**31), 2**31 - 1))
        except ValueError as e:
            raise ValueError(f"scenario key 'boats[{p}]': {e}") from None
    for p in range(P):
        for q in range(p + 1, P):
            if fields[p] == fields[q] and (
                fields[p] not in start_fields or progress[p] != progress[q]
            ):
                raise ValueError(
                    f"scenario key 'boats': players {p} and {q} share field {fields[p]}, which only "
                    "boats that never left the start field may do (R2.3)"
                )
            if (progress[p] - progress[q] - (fields[p] - fields[q])) % F != 0:
                raise ValueError(
                    f"scenario key 'boats': progress of players {p} and {q} contradicts their fields "
                    f"(difference must equal the field distance modulo the route length {F})"
                )
    state.boat_field[0] = fields  # slots 0..m-1 hold the route in order
    state.progress[0] = progress

    # Round and turn.
    state.round[0] = _int(sc, "round", 1, cfg.max_rounds)
    sp = _int(sc, "starting_player", 0, P - 1)
    state.starting_player[0] = sp
    tn = _int(sc, "trick_number", 0, TRICKS_PER_ROUND)
    state.trick_number[0] = tn
    leader = _int(sc, "leader", 0, P - 1)
    state.leader[0] = leader
    phase_name = sc.get("phase")
    if phase_name not in PHASE_NAMES:
        raise ValueError(f"scenario key 'phase' must be one of {PHASE_NAMES}, got {phase_name!r}")
    phase = Phase(PHASE_NAMES.index(phase_name))
    state.phase[0] = phase
    if phase == Phase.GAME_OVER:
        if sc.get("to_act") is not None:
            raise ValueError("scenario key 'to_act' must be null when the phase is game_over")
        to_act = NO_PLAYER
    else:
        to_act = _int(sc, "to_act", 0, P - 1)
    state.current_player[0] = to_act
    if phase == Phase.ANNOUNCE and not cfg.nil_announcement:
        raise ValueError("scenario key 'phase': 'announce' needs config nil_announcement=True")

    # The trick and the round's cards.
    trick_in = _list(sc, "trick")
    if len(trick_in) > P:
        raise ValueError(f"scenario key 'trick' holds {len(trick_in)} cards, more than {P} players")
    trick_cards = []
    for j, t in enumerate(trick_in):
        if not isinstance(t, dict) or "player" not in t or "card" not in t:
            raise ValueError(f"scenario key 'trick[{j}]' must be a dict with 'player' and 'card'")
        if t["player"] != (leader + j) % P:
            raise ValueError(
                f"scenario key 'trick[{j}].player' must be {(leader + j) % P} (turn order from the leader)"
            )
        trick_cards += _cards([t["card"]], f"trick[{j}].card")
    full_trick = len(trick_in) == P
    if full_trick and not (phase == Phase.REMOVE_OCTOPUS and trick_cards[-1] == OCTOPUS):
        raise ValueError(
            "scenario key 'trick': a complete trick only stands while its last card, an octopus, "
            "waits for its removal (phase remove_octopus)"
        )
    if tn == TRICKS_PER_ROUND and trick_in:
        raise ValueError("scenario key 'trick' must be empty after the 8th trick")
    played = _cards(_list(sc, "played_this_round"), "played_this_round")
    if len(played) != tn * P + len(trick_cards):
        raise ValueError(
            f"scenario key 'played_this_round' must hold trick_number * num_players + len(trick) = "
            f"{tn * P + len(trick_cards)} cards, got {len(played)}"
        )
    if played[len(played) - len(trick_cards) :] != trick_cards:
        raise ValueError("scenario key 'played_this_round' must end with the cards of 'trick'")
    state.history[0, : len(played)] = played
    state.num_played[0] = len(played)
    state.played[0] = played_from_history(state.history[:1], state.num_played[:1])[0]
    lead_suits = [CARD_SUIT[c] for c in trick_cards if c < NUM_TIKI]
    state.lead_suit[0] = lead_suits[0] if lead_suits else NO_SUIT

    # Hands (R3.1): 8 cards less those played; no card beyond its copies.
    hands = _list(sc, "hands", P)
    in_trick = {(leader + j) % P for j in range(len(trick_cards))}
    all_cards: list[int] = list(played)
    for p, h in enumerate(hands):
        if not isinstance(h, list):
            raise ValueError(f"scenario key 'hands[{p}]' must be a list of card names")
        cards = _cards(h, f"hands[{p}]")
        size = HAND_SIZE - tn - (1 if p in in_trick else 0)
        if len(cards) != size:
            raise ValueError(
                f"scenario key 'hands[{p}]' must hold {size} cards at trick {tn} "
                f"({'after' if p in in_trick else 'before'} playing to the current trick), got {len(cards)}"
            )
        state.hands[0, p] = np.uint64(_hand_word(cards, f"hands[{p}]"))
        all_cards += cards
    _hand_word(all_cards, "hands/played_this_round")  # each card at most its copies
    if len(all_cards) > DECK_SIZE:
        raise ValueError("scenario keys 'hands' and 'played_this_round' hold more than 53 cards")

    tricks_won = _list(sc, "tricks_won", P)
    if (
        any(isinstance(x, bool) or not isinstance(x, int) or x < 0 for x in tricks_won)
        or sum(tricks_won) != tn
    ):
        raise ValueError(
            f"scenario key 'tricks_won' must be {P} ints >= 0 summing to trick_number {tn}"
        )
    state.tricks_won[0] = tricks_won
    announced = _list(sc, "announced", P)
    if any(a not in (None, True, False) for a in announced):
        raise ValueError("scenario key 'announced' entries must be true, false or null")
    if not cfg.nil_announcement and any(a is not None for a in announced):
        raise ValueError("scenario key 'announced' must be all null when the variant is off")
    if cfg.nil_announcement:
        if phase == Phase.ANNOUNCE:
            decided = {(sp + k) % P for k in range((to_act - sp) % P)}
            if any((a is not None) != (p in decided) for p, a in enumerate(announced)):
                raise ValueError(
                    "scenario key 'announced': in phase announce exactly the players from the "
                    "starting player up to the one to act have decided"
                )
        elif any(a is None for a in announced):
            raise ValueError(
                "scenario key 'announced': every player has decided after the announce phase"
            )
    state.announced[0] = [-1 if a is None else int(a) for a in announced]

    voids = sc.get("voids", [[] for _ in range(P)])
    if not isinstance(voids, list) or len(voids) != P:
        raise ValueError(f"scenario key 'voids' must list {P} lists of suit names")
    for p, vs in enumerate(voids):
        if not isinstance(vs, list) or any(v not in SUIT_NAMES for v in vs):
            raise ValueError(f"scenario key 'voids[{p}]' must be a list of suit names {SUIT_NAMES}")
        state.voids[0, p] = sum(1 << SUIT_NAMES.index(v) for v in set(vs))

    # Phase-specific consistency.
    if phase == Phase.PLAY and to_act != (leader + len(trick_cards)) % P:
        raise ValueError("scenario key 'to_act' must be the next player in the trick in phase play")
    if phase == Phase.ANNOUNCE and (tn or trick_cards):
        raise ValueError("scenario key 'phase': announce only before the first card of a round")
    if phase == Phase.REMOVE_OCTOPUS and (
        not trick_cards
        or trick_cards[-1] != OCTOPUS
        or to_act != (leader + len(trick_cards) - 1) % P
    ):
        raise ValueError(
            "scenario key 'phase': remove_octopus needs the player to act to have just played an octopus"
        )
    if phase == Phase.REMOVE_ROUND_END and (tn != TRICKS_PER_ROUND or to_act != leader):
        raise ValueError(
            "scenario key 'phase': remove_round_end follows the 8th trick, with its winner (leader) to act"
        )
    pending = sc.get("pending")
    if phase == Phase.DOLPHIN:
        if pending not in ("trick", "payout"):
            raise ValueError("scenario key 'pending' must be 'trick' or 'payout' in phase dolphin")
        state.pending[0] = Pending.TRICK if pending == "trick" else Pending.PAYOUT
        if trick_cards:
            raise ValueError("scenario key 'trick' must be empty in phase dolphin")
    elif pending is not None:
        raise ValueError("scenario key 'pending' is only allowed in phase dolphin")
    winner = sc.get("winner")
    if phase == Phase.GAME_OVER:
        if winner is None:
            state.truncated[0] = True
        else:
            state.winner[0] = _int(sc, "winner", 0, P - 1)
            state.terminated[0] = True
    elif winner is not None:
        raise ValueError("scenario key 'winner' must be null while the game is not over")
    if (
        phase in (Phase.REMOVE_OCTOPUS, Phase.REMOVE_ROUND_END)
        and not route.can_remove(state, np.array([0]))[0]
    ):
        raise ValueError(
            f"scenario key 'phase': {phase_name} but no ocean card can be removed (R7.2)"
        )

    game_key = sc.get("key")
    if game_key is not None:
        if isinstance(game_key, bool) or not isinstance(game_key, int) or not 0 <= game_key < 2**64:
            raise ValueError("scenario key 'key' must be an int in 0..2**64-1")
        state.key[0] = np.uint64(game_key)
    else:
        state.key[0] = game_keys(0 if seed is None else seed, np.array([0]))[0]
    state.trump[0] = route.trump_of(state, np.array([0]))[0]
    masks.refresh(state)
    return state
