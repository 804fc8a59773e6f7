"""The table picture: shape, content that changes with the position, and no effect on the game."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from kanaloa_env.bots import RandomBot
from kanaloa_env.core.kanaloa import Config, Phase, from_scenario, init
from kanaloa_env.games.kanaloa import image
from kanaloa_env.games.kanaloa.image import HEIGHT, SUIT_COLORS, WIDTH, render_image, render_rgb
from kanaloa_env.records import load_record, record_bot_game, replay_states
from kanaloa_env.render.gif import save_gif

SCENARIO = Path(__file__).resolve().parents[1] / "scenarios" / "scenario_md_example.json"


@pytest.fixture(scope="module")
def game4() -> list:
    """Every position of one random 4-player game."""
    rec = record_bot_game(Config(num_players=4), [RandomBot()] * 4, seed=3)
    return replay_states(rec)


@pytest.mark.parametrize("num_players", [3, 4, 5])
def test_shape_and_dtype(num_players: int) -> None:
    img = render_rgb(init(Config(num_players=num_players), 1, seed=num_players))
    assert img.shape == (HEIGHT, WIDTH, 3) and img.dtype == np.uint8
    assert img.std() > 20  # a picture, not a blank canvas


def test_rendering_does_not_change_the_state(game4: list, read_only) -> None:
    for state in (game4[0], game4[len(game4) // 2], game4[-1]):
        before = state.copy()
        render_rgb(read_only(state.copy()))  # any write into the arrays would raise
        render_rgb(state, seat=1)
        assert state.equal(before)


def test_different_positions_give_different_pictures(game4: list) -> None:
    picks = [0, 1, 2, len(game4) // 2, len(game4) - 1]
    imgs = [render_rgb(game4[k]) for k in picks]
    for i in range(len(imgs)):
        for j in range(i + 1, len(imgs)):
            assert not np.array_equal(imgs[i], imgs[j]), (picks[i], picks[j])
    assert np.array_equal(render_rgb(game4[5]), render_rgb(game4[5]))  # deterministic


def test_seat_picks_the_hand_shown(game4: list) -> None:
    s = game4[0]
    to_act = int(s.current_player[0])
    other = (to_act + 1) % 4
    assert np.array_equal(render_rgb(s), render_rgb(s, seat=to_act))
    a, b = render_rgb(s), render_rgb(s, seat=other)
    differ = np.flatnonzero((a != b).any(axis=(1, 2)))
    assert differ.min() >= 600  # only the hand panel at the bottom changes


def _badge_pixel(img: np.ndarray, x: float) -> tuple[int, ...]:
    # Left part of a badge, clear of its text.
    return tuple(img[int(image._CY - 8), int(x - 52)])


def test_trump_badge_has_the_trump_colour(game4: list) -> None:
    seen = set()
    for s in game4[:: max(1, len(game4) // 12)]:
        if s.phase[0] == Phase.GAME_OVER:
            continue
        img = render_rgb(s)
        trump = int(s.trump[0])
        assert _badge_pixel(img, image._CX - 285) == SUIT_COLORS[trump]
        seen.add(trump)
    assert len(seen) >= 2


def test_current_trick_cards_are_drawn_in_their_suit_colours() -> None:
    # SCENARIO.md's example: blue-1 and blue-2 on the table, blue is to be followed.
    state = from_scenario(json.loads(SCENARIO.read_text()))
    img = render_rgb(state)
    P = 3
    x0 = image._CX - (P * (image._CARD_W + 16) - 16) / 2
    y = int(image._CY - 48 + 10)
    for j in range(2):  # near the top-right corner of each played card, clear of its text
        x = int(x0 + j * (image._CARD_W + 16) + image._CARD_W - 8)
        assert tuple(img[y, x]) == SUIT_COLORS[0]
    x = int(x0 + 2 * (image._CARD_W + 16) + image._CARD_W - 8)
    assert tuple(img[y, x]) != SUIT_COLORS[0]  # the third place is still empty
    assert _badge_pixel(img, image._CX + 285) == SUIT_COLORS[0]  # FOLLOW blue


def test_removed_cards_are_gone_and_present_ones_show_their_colours(game4: list) -> None:
    s = next(x for x in game4 if not x.present[0].all() and x.phase[0] != Phase.GAME_OVER)
    img = render_rgb(s)
    deck = s.config.deck
    geo = image._slot_geometry(s.config.route_cards)
    for n, (u0, um, _) in enumerate(geo):
        # A point in the back part of the first field, off glyphs and boats.
        x, y = image._ring_point(image._angle_at(u0 + (um - u0) * 0.15), -20)
        pixel = tuple(img[int(y), int(x)])
        if s.present[0, n]:
            assert pixel == SUIT_COLORS[int(deck.color[s.route[0, 2 * n]])]
        else:
            assert pixel not in SUIT_COLORS


def test_game_over_picture_names_the_winner(game4: list) -> None:
    last = game4[-1]
    assert last.terminated[0]
    img = render_rgb(last)
    # The gold banner and the winner's boat in the lagoon.
    assert tuple(img[int(image._CY + 65), int(image._CX - 250)]) == image._GOLD
    w = int(last.winner[0])
    boat = img[int(image._CY) : int(image._CY + 20), int(image._CX - 20) : int(image._CX + 20)]
    assert (boat == np.array(image.PLAYER_COLORS[w], dtype=np.uint8)).all(axis=2).any()


def test_bad_arguments_raise() -> None:
    s = init(Config(num_players=3), 2, seed=0)
    with pytest.raises(ValueError, match="game index i must be in 0..1"):
        render_rgb(s, i=2)
    with pytest.raises(ValueError, match="seat must be None or an int in 0..2"):
        render_rgb(s, seat=3)
    with pytest.raises(TypeError, match="State"):
        render_rgb(np.zeros(3))  # type: ignore[arg-type]
    assert not np.array_equal(render_rgb(s, i=0), render_rgb(s, i=1))


def test_save_gif_writes_one_frame_per_state(tmp_path: Path, game4: list) -> None:
    path = tmp_path / "g.gif"
    n = save_gif(game4[:4], path, scale=0.25, frame_ms=100)
    assert n == 4
    with Image.open(path) as gif:
        assert gif.n_frames == 4 and gif.size == (WIDTH // 4, HEIGHT // 4)
    with pytest.raises(ValueError, match="at least one state"):
        save_gif([], path)


def test_render_image_matches_render_rgb(game4: list) -> None:
    s = game4[7]
    assert np.array_equal(np.asarray(render_image(s)), render_rgb(s))
    assert render_image(s, supersample=1).size == (WIDTH, HEIGHT)


def test_aec_env_rgb_array_uses_this_renderer() -> None:
    import kanaloa_env

    env = kanaloa_env.env(num_players=3, render_mode="rgb_array")
    env.reset(seed=4)
    img = env.render()
    assert isinstance(img, np.ndarray) and img.shape == (HEIGHT, WIDTH, 3) and img.dtype == np.uint8
    assert np.array_equal(img, render_rgb(init(Config(num_players=3), 1, seed=4)))


def test_render_game_example_writes_png_gif_and_record(tmp_path: Path) -> None:
    script = Path(__file__).resolve().parents[2] / "examples" / "render_game.py"
    cmd = [sys.executable, str(script), "--out", str(tmp_path), "--players", "3"]
    cmd += ["--bots", "random", "--seed", "2", "--scale", "0.25", "--every", "15"]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    with Image.open(tmp_path / "position.png") as png:
        assert png.size == (WIDTH, HEIGHT)
    rec = load_record(tmp_path / "game.jsonl")
    positions = len(rec.decisions) + 1
    with Image.open(tmp_path / "game.gif") as gif:
        assert gif.n_frames == -(-positions // 15) + ((positions - 1) % 15 != 0)
    helped = subprocess.run([sys.executable, str(script), "--help"], capture_output=True, text=True)
    assert helped.returncode == 0 and "--out" in helped.stdout
