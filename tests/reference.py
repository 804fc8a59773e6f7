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
- `step(sc, action)`: the whole position after a decision, the step's rewards and
  whether a new round was dealt (every phase, R3-R10).
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


# ---- removals and moves --------------------------------------------------------------


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


def move(sc: dict[str, Any], player: int) -> None:
    """Move `player`'s boat to the next free field in the scenario dict, in place (R6.2)."""
    f, sailed = next_free_field(sc, player)
    boat = sc["boats"][player]
    sc["boats"][player] = {"field": f, "progress": boat["progress"] + sailed}


# ---- a whole step ------------------------------------------------------------------
#
# `step(sc, action)` plays one decision on a scenario dict: every phase, the trick
# end, boat moves with lapping and the dolphin, removals, the announce payouts, the
# round change and the rewards. What a new deal puts in place (hands, and the
# random key) cannot be predicted here; the caller compares those only when no new
# round was dealt.


class _GameOver(Exception):
    """Raised inside `step` once the game has ended (R9.2, R9.4)."""


def step(sc: dict[str, Any], action: int) -> tuple[dict[str, Any], list[float], bool]:
    """(position after `action`, rewards of the step per player, whether a new round
    was dealt) for the position `sc` and a legal `action` of the player to act."""
    assert action in legal_actions(sc), f"{action} is not legal in phase {sc['phase']}"
    sc = {k: v for k, v in sc.items() if k != "key"}
    sc = {
        **sc,
        "boats": [dict(b) for b in sc["boats"]],
        "hands": [list(h) for h in sc["hands"]],
        "trick": list(sc["trick"]),
        "played_this_round": list(sc["played_this_round"]),
        "tricks_won": list(sc["tricks_won"]),
        "announced": list(sc["announced"]),
        "voids": [list(v) for v in sc.get("voids", [[] for _ in sc["boats"]])],
    }
    P = sc["num_players"]
    rewards = [0.0] * P
    player = sc["to_act"]
    phase = sc["phase"]
    new_round = False
    try:
        if phase == "announce":  # R3.2: in turn from the starting player
            sc["announced"][player] = action == ANNOUNCE
            sc["to_act"] = (player + 1) % P
            if sc["to_act"] == sc["starting_player"]:
                sc["phase"] = "play"
        elif phase == "play":
            card = _card_name(action)
            led = lead_suit([t["card"] for t in sc["trick"]])
            if led is not None and suit(card) not in (led, None) and led not in sc["voids"][player]:
                # did not follow suit: shows a void (listed in suit order)
                sc["voids"][player] = sorted([*sc["voids"][player], led], key=SUITS.index)
            sc["hands"][player].remove(card)
            sc["trick"].append({"player": player, "card": card})
            sc["played_this_round"].append(card)
            if card == "octopus" and can_remove(sc):  # R4.4: remove before the next card
                sc["phase"] = "remove_octopus"
            else:
                new_round = _after_card(sc, rewards)
        elif phase == "remove_octopus":
            sc.update(remove_card(sc, player, action - REMOVE_BASE))
            new_round = _after_card(sc, rewards)
        elif phase == "remove_round_end":  # R7.1, then the payouts (R7.3)
            sc.update(remove_card(sc, player, action - REMOVE_BASE))
            new_round = _payouts(sc, 0, rewards)
        elif phase == "dolphin":  # R6.3: the bonus move, then what was pending
            pending = sc.pop("pending")
            goes_on = True
            if action == DOLPHIN_TAKE:
                move(sc, player)
                chain = sc["config"].get("dolphin_chain", False)
                goes_on = _after_move(sc, player, pending, chain, rewards)
            if goes_on:
                if pending == "trick":
                    new_round = _after_trick(sc, rewards)
                else:  # the payouts go on after this player's, in turn order
                    new_round = _payouts(sc, (player - sc["starting_player"]) % P + 1, rewards)
        else:
            raise ValueError(f"no decision in phase {phase!r}")
    except _GameOver:
        pass
    if not any(sc["voids"]):
        del sc["voids"]  # the scenario carries voids only when there are some
    return sc, rewards, new_round


def _card_name(action: int) -> str:
    if action == KANALOA:
        return "kanaloa"
    if action == OCTOPUS:
        return "octopus"
    return f"{SUITS[action // VALUES]}-{action % VALUES + 1}"


def _after_card(sc: dict[str, Any], rewards: list[float]) -> bool:
    """The next player plays, or the trick is complete (R5)."""
    P = sc["num_players"]
    if len(sc["trick"]) < P:
        sc["phase"] = "play"
        sc["to_act"] = (sc["to_act"] + 1) % P
        return False
    cards = [t["card"] for t in sc["trick"]]
    w = (sc["leader"] + trick_winner(cards, trump_colour(sc))) % P
    sc["tricks_won"][w] += 1
    sc["trick_number"] += 1
    sc["leader"] = sc["to_act"] = w
    sc["trick"] = []
    # R7.4: an announced player's boat does not move on a trick (unless configured).
    if sc["announced"][w] is not True or sc["config"].get("announced_boat_moves", False):
        move(sc, w)
        if not _after_move(sc, w, "trick", True, rewards):
            return False
    return _after_trick(sc, rewards)


def _after_move(
    sc: dict[str, Any], player: int, pending: str, allow_dolphin: bool, rewards: list[float]
) -> bool:
    """After a move: lapping (R9.2), then the dolphin (R6.3). False while a dolphin
    decision waits."""
    if has_lapped(sc, player):
        _end_game(sc, player, rewards)
    while allow_dolphin and dolphin_allowed(sc, player):
        if sc["config"].get("dolphin", "optional") == "optional":
            sc.update(phase="dolphin", pending=pending, to_act=player)
            return False
        move(sc, player)
        if has_lapped(sc, player):
            _end_game(sc, player, rewards)
        allow_dolphin = sc["config"].get("dolphin_chain", False)
    return True


def _after_trick(sc: dict[str, Any], rewards: list[float]) -> bool:
    """The winner leads the next trick; after the 8th, the round-end removal (R7.1,
    R7.2) or, when none is possible, the payouts."""
    if sc["trick_number"] < TRICKS:
        sc.update(phase="play", to_act=sc["leader"])
        return False
    if can_remove(sc):
        sc.update(phase="remove_round_end", to_act=sc["leader"])
        return False
    return _payouts(sc, 0, rewards)


def _payouts(sc: dict[str, Any], first: int, rewards: list[float]) -> bool:
    """R7.3: from turn-order place `first`, each announced player without a trick
    sails three single moves (lapping checked after each, the dolphin after the
    last); then the round ends. False while a dolphin decision waits."""
    P = sc["num_players"]
    if sc["config"].get("nil_announcement", False):
        for place in range(first, P):
            seat = (sc["starting_player"] + place) % P
            if sc["announced"][seat] is True and sc["tricks_won"][seat] == 0:
                for _ in range(PAYOUT_STEPS):
                    move(sc, seat)
                    if has_lapped(sc, seat):
                        _end_game(sc, seat, rewards)
                if not _after_move(sc, seat, "payout", True, rewards):
                    return False
    return _end_round(sc, rewards)


def _end_round(sc: dict[str, Any], rewards: list[float]) -> bool:
    """Truncation after `max_rounds` (R9.4), else the next round: the last trick's
    winner starts it (R7.5), with a new deal. Returns True for a new round."""
    cfg = sc["config"]
    if sc["round"] >= cfg.get("max_rounds", 100):
        sc.update(phase="game_over", to_act=None, winner=None)
        if cfg.get("reward", "win_loss") == "rank":
            rewards[:] = _rank_rewards(sc)
        raise _GameOver
    P = sc["num_players"]
    nil = cfg.get("nil_announcement", False)
    sc.update(
        round=sc["round"] + 1,
        starting_player=sc["leader"],
        to_act=sc["leader"],
        trick_number=0,
        tricks_won=[0] * P,
        announced=[None] * P,
        phase="announce" if nil else "play",
        played_this_round=[],
        trick=[],
        voids=[[] for _ in range(P)],
    )
    return True


def _end_game(sc: dict[str, Any], winner: int, rewards: list[float]) -> None:
    """R9.2: `winner` lapped the last boat; the game ends at once, with R10's rewards."""
    P = sc["num_players"]
    sc.update(phase="game_over", to_act=None, winner=winner)
    sc.pop("pending", None)
    if sc["config"].get("reward", "win_loss") == "rank":
        rewards[:] = _rank_rewards(sc)
    else:
        rewards[:] = [1.0 if p == winner else -1.0 / (P - 1) for p in range(P)]
    raise _GameOver


def _rank_rewards(sc: dict[str, Any]) -> list[float]:
    """docs/rules.md "Rewards": +1 for the furthest boat to -1 for the last, linear
    in the place, tied boats sharing the average of their places."""
    prog = [b["progress"] for b in sc["boats"]]
    P = len(prog)
    places = [sum(q > p for q in prog) + (sum(q == p for q in prog) - 1) / 2 for p in prog]
    return [1 - 2 * r / (P - 1) for r in places]
