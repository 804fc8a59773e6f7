"""Kuhn poker behind the game protocol: a game that plugs in from outside the package.

Registered by `tests/conftest.py`, named nowhere in `kanaloa_env`; see docs/adding-a-game.md.
"""

from __future__ import annotations

from collections.abc import Sequence
from types import ModuleType
from typing import ClassVar

import numpy as np

from kanaloa_env.drawing.terminal import BOLD, paint
from kanaloa_env.games.protocol import ConfigFlag, Game, Move, parse_listed_move

from . import engine, positions
from .engine import ACTION_NAMES, CARD_NAMES, NUM_ACTIONS, OBS_DIM, Config, State, outcome

__all__ = ["GAME", "KuhnGame"]


def chips(n: int) -> str:
    """`n` chips in words: "1 chip", "2 chips"."""
    return f"{n} chip{'s' if n != 1 else ''}"


def seen_by(state: State, i: int, seat: int | None) -> tuple[int, int, State]:
    """Game `i` from `seat`'s side (default the player to act, 0 once over): the player
    to act, the seat, and its public view of the game (a batch of one)."""
    to_act = int(state.current_player[i])
    me = (max(to_act, 0) if seat is None else int(seat)) % 2
    return to_act, me, engine.public_view(state.take([i]), np.array([me]))


def betting(state: State, i: int) -> str:
    """Game `i`'s actions so far, "-" for none."""
    return ", ".join(ACTION_NAMES[a] for a in state.history[i] if a != engine.NO_ACTION) or "-"


class KuhnGame(Game[State, Config]):
    """Kuhn poker (2 players, `Discrete(4)`: check, bet, call, fold); see `engine`."""

    name = "kuhn"
    title = "Kuhn poker"
    player_counts = (2,)
    default_num_players = 2
    # NUM_ACTIONS, OBS_DIM, Config, State, and init, step, observe, public_view,
    # determinize: the protocol takes them from the engine module.
    engine: ClassVar[ModuleType] = engine

    # ---- config (the protocol's defaults, with two command-line flags) --------------

    config_flags = (
        ConfigFlag("--ante", "ante", "chips each player antes", type=int),
        ConfigFlag("--bet", "bet", "chips a bet costs", type=int),
    )

    # ---- the engine (required; `observe` is the engine's) --------------------------------

    def observation_bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """[0, 1] everywhere: one-hots, flags and stakes over the largest stake."""
        return np.zeros(OBS_DIM, np.float32), np.ones(OBS_DIM, np.float32)

    def final_ranks(self, state: State) -> np.ndarray:
        """The winner 1, the loser 2 (every finished game has a winner)."""
        won = state.winner[:, None] == np.arange(2)
        return np.where(state.winner[:, None] < 0, 1.5, 2.0 - won)

    def action_name(self, action: int) -> str:
        return ACTION_NAMES[action]

    # ---- optional pieces: positions.py's functions (the engine's are defaults), a summary --

    check_invariants = staticmethod(positions.check_invariants)
    random_playthrough = staticmethod(positions.random_playthrough)
    to_scenario = staticmethod(positions.to_scenario)
    from_scenario = staticmethod(positions.from_scenario)

    def game_summary(self, state: State) -> dict[str, np.ndarray]:
        """Decisions taken and whether the cards were shown."""
        taken = (state.history != engine.NO_ACTION).sum(axis=1).astype(np.int8)
        return {"decisions": taken, "showdown": outcome(state).showdown}

    # ---- words (the picture is image.py's, the bot heuristic.py's) ------------------------
    def render_text(
        self,
        state: State,
        i: int = 0,
        color: bool = True,
        seat: int | None = None,
        legal: bool = True,
    ) -> str:
        """Game `i` as a text table: the stakes, `seat`'s card (the other only once a
        showdown shows it), the betting, and the legal moves when `legal` and `seat` acts."""
        to_act, me, view = seen_by(state, i, seat)
        stakes, cfg = outcome(view).stakes[0], state.config
        status = f"player_{to_act} to act" if to_act >= 0 else "game over"
        lines = [f"Kuhn poker | ante {cfg.ante}, bet {cfg.bet} | pot {stakes.sum()} | {status}"]
        for p in range(2):
            c = int(view.cards[0, p])
            card = paint(CARD_NAMES[c] if c >= 0 else "?", BOLD, color)
            lines.append(f"player_{p}{' (you)' if p == me else ''}: {card}  stake {stakes[p]}")
        lines.append(f"Betting: {betting(view, 0)}")
        if state.done[i]:
            lines.append(f"player_{state.winner[i]} wins {chips(outcome(state).won[i])}")
        elif legal and to_act == me:
            lines.append("Legal: " + ", ".join(m.label for m in self.legal_moves(view)))
        return "\n".join(lines)

    def describe_action(self, state: State, action: int, i: int = 0) -> str:
        """What `action` does for the player to act in game `i` ("bet 1 chip")."""
        if action not in range(NUM_ACTIONS):
            raise ValueError(f"action {action} is out of range 0..3")
        bet = state.config.bet
        words = ("check", f"bet {chips(bet)}", f"call the bet of {bet}", "fold: give up the pot")
        return words[int(action)]

    def describe_step(
        self,
        before: State,
        action: int,
        after: State,
        i: int = 0,
        names: Sequence[str] | None = None,
    ) -> list[str]:
        """What one decision in game `i` did, and the end if it ended there."""
        names = list(names) if names is not None else ["player_0", "player_1"]
        out = [f"{names[before.current_player[i]]} {ACTION_NAMES[action]}s."]
        if after.done[i] and not before.done[i]:
            w, won = after.winner[i], outcome(after).won[i]
            if outcome(after).showdown[i]:
                cw, cl = CARD_NAMES[after.cards[i, w]], CARD_NAMES[after.cards[i, 1 - w]]
                out.append(f"Showdown: {names[w]}'s {cw} beats {cl}; {names[w]} wins {won}.")
            else:
                out.append(f"{names[w]} wins {won} without a showdown.")
        return out

    def legal_moves(self, state: State, color: bool = False) -> list[Move]:
        """Game 0's legal moves, numbered from 1; a typed move is its number or its name."""
        legal = np.flatnonzero(state.legal[0])
        return [Move(n, int(a), ACTION_NAMES[a]) for n, a in enumerate(legal, start=1)]

    def parse_move(self, text: str, state: State) -> int:
        return parse_listed_move(text, self.legal_moves(state))

    def move_help(self) -> str:
        return (
            "Type a move number or its name: check, bet (with no bet to answer), call, fold "
            "(facing a bet). q quits."
        )

    def turn_prompt(self, state: State) -> str:
        """What the player to act in game 0 decides, addressed to them."""
        card = CARD_NAMES[state.cards[0, state.current_player[0]]]
        return f"you hold {card}; " + ("call or fold" if state.legal[0, 2] else "check or bet")

    def final_lines(self, state: State, names: Sequence[str], color: bool = False) -> list[str]:
        """Who won how many chips in game 0, and the cards if they were shown."""
        lines = [f"{names[state.winner[0]]} wins {chips(outcome(state).won[0])}."]
        if outcome(state).showdown[0]:
            shown = ", ".join(f"{names[p]} {CARD_NAMES[state.cards[0, p]]}" for p in range(2))
            lines.append(f"Cards: {shown}.")
        return lines


State.load_check = positions.check_invariants  # (a loaded file must pass it)
GAME = KuhnGame()
