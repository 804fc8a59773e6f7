"""A slow, plain-Python reference for the rules, written from RULES.md alone.

It reads positions in the public scenario format (SCENARIO.md), never the
engine's arrays, and shares no code with `kanaloa_env.core` beyond the scenario
dict, so a property test comparing the two catches a slip in either. One game,
one position at a time; clarity over speed.

- `legal_actions(sc)`: the legal actions (DESIGN.md action table) of the player
  to act (R4.1-R4.4, R7.1, R7.2, R3.2, R6.3).
- `trick_winner(cards, trump)`: the index in play order of the winning card (R5).
- `trump_colour(sc)`: the colour under the leading boat (R8).
- `next_free_field(sc, player)`: where a move ends and how many fields it sails
  (R6.1, R6.2); `dolphin_allowed(sc, player)` (R6.3).
- `gaps(sc)`: each boat's distance ahead of the last boat along the route (R9.1).
- `remove_card(sc, player, k)`: the position after a removal action (R9.1).
- `resolve_last_card(sc, card)`: what must follow when `card` completes a trick.
"""

from __future__ import annotations

from typing import Any

SUITS = ("blue", "red", "green", "turquoise")
VALUES = 12
KANALOA, OCTOPUS = 48, 49
REMOVE_BASE, ANNOUNCE, NO_ANNOUNCE, DOLPHIN_TAKE, DOLPHIN_DECLINE = 50, 62, 63, 64, 65
MIN_CARDS = 3  # R7.2
TRICKS = 8  # R3.3
PAYOUT_STEPS = 3  # R7.3


# ---- cards -----------------------------------------------------------------------


def suit(card: str) -> str | None:
    """The suit of a card name; None for Kanaloa and octopus (R4.2)."""
    return None if card in ("kanaloa", "octopus") else card.split("-")[0]


def value(card: str) -> int:
    """The value 1..12 of a Tiki card."""
    return int(card.split("-")[1])


def card_action(card: str) -> int:
    """Action id of playing `card`: suit * 12 + value - 1, Kanaloa 48, octopus 49."""
    if card == "kanaloa":
        return KANALOA
    if card == "octopus":
        return OCTOPUS
    return SUITS.index(suit(card)) * VALUES + value(card) - 1


def lead_suit(trick_cards: list[str]) -> str | None:
    """The suit of the first Tiki card of the trick, if any (R4.2)."""
    for c in trick_cards:
        if suit(c) is not None:
            return suit(c)
    return None


def trick_winner(cards: list[str], trump: str) -> int:
    """Index (in play order) of the card that takes the trick (R5.1-R5.4)."""
    kanaloas = [i for i, c in enumerate(cards) if c == "kanaloa"]
    if kanaloas:
        return kanaloas[-1]  # R5.1: the last Kanaloa
    trumps = [i for i, c in enumerate(cards) if suit(c) == trump]
    if trumps:
        return max(trumps, key=lambda i: value(cards[i]))  # R5.2
    led = lead_suit(cards)
    follow = [i for i, c in enumerate(cards) if led is not None and suit(c) == led]
    if follow:
        return max(follow, key=lambda i: value(cards[i]))  # R5.3
    raise ValueError(f"no card can win the trick {cards} (R5.4 needs a Tiki card)")


# ---- the route -------------------------------------------------------------------


def fields(sc: dict[str, Any]) -> list[dict[str, Any]]:
    """The route's fields in sailing order (card k holds fields 2k, 2k+1)."""
    return [f for card in sc["route"] for f in card["fields"]]


def boat_fields(sc: dict[str, Any]) -> list[int]:
    return [b["field"] for b in sc["boats"]]


def is_free(sc: dict[str, Any], f: int, ignore: int | None = None) -> bool:
    """No boat (other than player `ignore`'s) stands on field f (R6.1)."""
    return all(b != f for p, b in enumerate(boat_fields(sc)) if p != ignore)


def card_is_free(sc: dict[str, Any], k: int) -> bool:
    """Both fields of route card k are free (R6.1)."""
    return is_free(sc, 2 * k) and is_free(sc, 2 * k + 1)


def can_remove(sc: dict[str, Any]) -> bool:
    """Some card is free and more than three remain (R4.4, R7.2)."""
    m = len(sc["route"])
    return m > MIN_CARDS and any(card_is_free(sc, k) for k in range(m))


def next_free_field(sc: dict[str, Any], player: int) -> tuple[int, int]:
    """(field, fields sailed) of `player`'s move to the next free field (R6.2)."""
    n = len(fields(sc))
    here = sc["boats"][player]["field"]
    for step in range(1, n + 1):
        f = (here + step) % n
        if is_free(sc, f, ignore=player):
            return f, step
    raise AssertionError("a route always has a free field")


def dolphin_allowed(sc: dict[str, Any], player: int) -> bool:
    """The boat stands on a dolphin and the fields right behind and ahead are free (R6.3)."""
    fs = fields(sc)
    n = len(fs)
    f = sc["boats"][player]["field"]
    return (
        fs[f]["dolphin"]
        and is_free(sc, (f - 1) % n, ignore=player)
        and is_free(sc, (f + 1) % n, ignore=player)
    )


def gaps(sc: dict[str, Any]) -> list[int]:
    """Fields from the last boat's field forward to each boat's field (R9.1).

    The last boat is the one with the least progress; boats that never left the
    start field share it with gap 0.
    """
    n = len(fields(sc))
    prog = [b["progress"] for b in sc["boats"]]
    last = prog.index(min(prog))
    base = sc["boats"][last]["field"]
    return [(b - base) % n for b in boat_fields(sc)]


def trump_colour(sc: dict[str, Any]) -> str:
    """Colour of the field under the boat with the most progress (R8.1, R8.2)."""
    prog = [b["progress"] for b in sc["boats"]]
    leader = prog.index(max(prog))
    return fields(sc)[sc["boats"][leader]["field"]]["color"]


def has_lapped(sc: dict[str, Any], player: int) -> bool:
    """`player`'s progress exceeds every other boat's by more than a lap (R9.2)."""
    lap = len(fields(sc))
    prog = [b["progress"] for b in sc["boats"]]
    others = [g for p, g in enumerate(prog) if p != player]
    return prog[player] - min(others) > lap


# ---- legality ----------------------------------------------------------------------


def legal_actions(sc: dict[str, Any]) -> set[int]:
    """The legal actions of the player to act (empty when the game is over)."""
    phase = sc["phase"]
    if phase == "game_over":
        return set()
    if phase == "announce":
        return {ANNOUNCE, NO_ANNOUNCE}
    if phase == "dolphin":
        return {DOLPHIN_TAKE, DOLPHIN_DECLINE}
    player = sc["to_act"]
    if phase == "play":
        hand = sc["hands"][player]
        led = lead_suit([t["card"] for t in sc["trick"]])
        if led is not None and any(suit(c) == led for c in hand):
            allowed = [c for c in hand if suit(c) in (led, None)]  # R4.3, R4.1
        else:
            allowed = hand
        return {card_action(c) for c in allowed}
    if phase in ("remove_octopus", "remove_round_end"):
        m = len(sc["route"])
        if m <= MIN_CARDS:
            return set()
        own = sc["boats"][player]["field"] // 2
        # k counts the route cards after the acting boat's card (DESIGN.md 50..61).
        return {REMOVE_BASE + k for k in range(m - 1) if card_is_free(sc, (own + 1 + k) % m)}
    raise ValueError(f"unknown phase {phase!r}")


# ---- the end of a trick -------------------------------------------------------------


def removal_target(sc: dict[str, Any], player: int, k: int) -> int:
    """Route index of the card `k` places ahead of `player`'s boat (actions 50..61)."""
    m = len(sc["route"])
    return (sc["boats"][player]["field"] // 2 + 1 + k) % m


def remove_card(sc: dict[str, Any], player: int, k: int) -> dict[str, Any]:
    """The position after `player` removes the card `k` places ahead (R4.4, R7.1, R9.1).

    Progress is kept relative to the last boat: a boat whose stretch from the last
    boat's field forward contains the card loses its two fields.
    """
    n = len(fields(sc))
    j = removal_target(sc, player, k)
    assert card_is_free(sc, j)
    prog = [b["progress"] for b in sc["boats"]]
    base = sc["boats"][prog.index(min(prog))]["field"]
    card_at = (2 * j - base) % n  # distance from the last boat to the card's first field
    boats = []
    for b in sc["boats"]:
        gap = (b["field"] - base) % n
        f = b["field"] - 2 if b["field"] > 2 * j else b["field"]
        boats.append({"field": f, "progress": b["progress"] - (2 if gap > card_at else 0)})
    removed = sorted(sc["removed"] + [sc["route"][j]["id"]])
    route = sc["route"][:j] + sc["route"][j + 1 :]
    return {**sc, "route": route, "boats": boats, "removed": removed}


def resolve_last_card(sc: dict[str, Any], card: str, removal_done: bool = False) -> dict[str, Any]:
    """What follows when `card` is the last card of the trick in position `sc`.

    Returns a dict with `winner`, `moves` (whether the winner's boat moves),
    `field` and `progress` of the winner's boat after the move (and after the
    bonus moves of an automatic dolphin), `lapped`, and `dolphin` (the winner must
    now decide on a bonus move: optional dolphin only).
    For an octopus that asks for a removal, returns `{"phase": "remove_octopus"}`,
    unless `removal_done` (`sc` is then the position after that removal).
    """
    cfg = sc["config"]
    if card == "octopus" and can_remove(sc) and not removal_done:
        return {"phase": "remove_octopus"}
    P = sc["num_players"]
    cards = [t["card"] for t in sc["trick"]] + [card]
    winner = (sc["leader"] + trick_winner(cards, trump_colour(sc))) % P
    announced = sc["announced"][winner] is True
    moves = not announced or cfg.get("announced_boat_moves", False)  # R7.4
    out: dict[str, Any] = {"winner": winner, "moves": moves}
    boat = sc["boats"][winner]
    if not moves:
        out.update(field=boat["field"], progress=boat["progress"], lapped=False, dolphin=False)
        return out
    after = {**sc, "boats": [dict(b) for b in sc["boats"]]}
    move(after, winner)
    lapped = has_lapped(after, winner)
    dolphin = not lapped and dolphin_allowed(after, winner)
    if dolphin and cfg.get("dolphin", "optional") == "automatic":
        # R6.3: the bonus move is taken at once; it chains only if configured.
        while dolphin:
            move(after, winner)
            dolphin = cfg.get("dolphin_chain", False) and dolphin_allowed(after, winner)
        lapped = has_lapped(after, winner)
    new = after["boats"][winner]
    out.update(field=new["field"], progress=new["progress"], lapped=lapped, dolphin=dolphin)
    return out


def move(sc: dict[str, Any], player: int) -> None:
    """Move `player`'s boat to the next free field in the scenario dict, in place (R6.2)."""
    f, sailed = next_free_field(sc, player)
    boat = sc["boats"][player]
    sc["boats"][player] = {"field": f, "progress": boat["progress"] + sailed}
