"""Kahuna's picture (games/kahuna/image.py): pixels where bridges, stones and rims must
be, what is hidden, shape, the game over, bad arguments, GIFs and the AEC env."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from kahuna_kit import HOLD_ALOA, HOLD_GOLA, HOLD_LALE, act, e1, load, make
from PIL import Image

import kanaloa_env
from kanaloa_env.bots import RandomBot
from kanaloa_env.core.kahuna import Config, init
from kanaloa_env.core.kahuna.constants import ISLAND_NAMES, LINE_NAMES
from kanaloa_env.games.kahuna.image import (
    HEIGHT,
    PLAYER_COLORS,
    STONE_OFFSET,
    WIDTH,
    island_center,
    line_path,
    render_image,
    render_rgb,
)
from kanaloa_env.records import record_bot_game, replay_states
from kanaloa_env.render.gif import save_gif


def _near(pixel: np.ndarray, color: tuple[int, int, int], tol: int = 24) -> bool:
    return bool(np.abs(pixel.astype(int) - np.array(color)).max() <= tol)


def _mid(line: str) -> tuple[int, int]:
    """The pixel half way along a line's path (between the islands)."""
    pts = np.array(line_path(LINE_NAMES.index(line)))
    seg = np.hypot(*np.diff(pts, axis=0).T)
    arc = np.concatenate([[0.0], np.cumsum(seg)])
    half = arc[-1] / 2
    return round(float(np.interp(half, arc, pts[:, 0]))), round(
        float(np.interp(half, arc, pts[:, 1]))
    )


def _at(img: np.ndarray, xy: tuple[float, float]) -> np.ndarray:
    x, y = xy
    return img[round(y), round(x)]


@pytest.fixture(scope="module")
def game() -> list:
    """Every position of one random Kahuna game."""
    return replay_states(record_bot_game(Config(), [RandomBot(), RandomBot()], seed=2))


def test_shape_dtype_and_a_real_picture() -> None:
    img = render_rgb(init(Config(), 1, seed=0))
    assert img.shape == (HEIGHT, WIDTH, 3) == (840, 1200, 3) and img.dtype == np.uint8
    assert img.std() > 20


def test_bridges_lie_on_their_lines_in_the_player_colours() -> None:
    img = render_rgb(load(e1()))
    # E1: White (player 0) has ALOA-DUDA and ELAI-HUNA, Black (1) ALOA-BARI and HUNA-LALE.
    for line in ("ALOA-DUDA", "ELAI-HUNA", "BARI-FAAA"):
        assert _near(_at(img, _mid(line)), PLAYER_COLORS[0]), line
    for line in ("ALOA-BARI", "HUNA-LALE", "ELAI-JOJO"):
        assert _near(_at(img, _mid(line)), PLAYER_COLORS[1]), line
    for line in ("BARI-DUDA", "COCO-GOLA", "KAHU-LALE"):  # free: no player colour there
        for p in (0, 1):
            assert not _near(_at(img, _mid(line)), PLAYER_COLORS[p], 60), line
    # A placed bridge appears on its line.
    after = render_rgb(act(load(e1()), "place BARI-DUDA with DUDA"))
    assert _near(_at(after, _mid("BARI-DUDA")), PLAYER_COLORS[0])
    assert not _near(_at(after, _mid("ALOA-BARI")), PLAYER_COLORS[1], 60)  # sent back (K5.3)


def test_coco_kahu_bows_around_gola_and_still_shows_its_bridge() -> None:
    path = line_path(LINE_NAMES.index("COCO-KAHU"))
    gx, gy = island_center(ISLAND_NAMES.index("GOLA"))
    assert min(np.hypot(x - gx, y - gy) for x, y in path) > 38 + 10
    assert all(len(line_path(n)) == 2 for n in range(27) if LINE_NAMES[n] != "COCO-KAHU")
    s = load(make(bridges=(["COCO-KAHU"], []), hands=(["ALOA"], [])))
    img = render_rgb(s)
    assert _near(_at(img, _mid("COCO-KAHU")), PLAYER_COLORS[0])
    assert not _near(_at(img, (gx, gy)), PLAYER_COLORS[0], 60)  # GOLA itself is not covered


def test_stones_are_discs_in_the_owners_colour_on_their_islands() -> None:
    img = render_rgb(load(e1()))
    # E1: a White stone on DUDA, Black stones on ALOA and HUNA.
    for island, p in (("DUDA", 0), ("ALOA", 1), ("HUNA", 1)):
        cx, cy = island_center(ISLAND_NAMES.index(island))
        assert _near(_at(img, (cx + STONE_OFFSET[0], cy + STONE_OFFSET[1])), PLAYER_COLORS[p])
    for island in ("BARI", "ELAI", "GOLA"):  # no stones there
        cx, cy = island_center(ISLAND_NAMES.index(island))
        spot = _at(img, (cx + STONE_OFFSET[0], cy + STONE_OFFSET[1]))
        assert not any(_near(spot, PLAYER_COLORS[p], 60) for p in (0, 1)), island
    # After E1's step 1 White's claim puts a stone on BARI and Black's ALOA stone goes.
    after = render_rgb(act(load(e1()), 9))
    for island, p in (("BARI", 0), ("HUNA", 1)):
        cx, cy = island_center(ISLAND_NAMES.index(island))
        assert _near(_at(after, (cx + STONE_OFFSET[0], cy + STONE_OFFSET[1])), PLAYER_COLORS[p])
    cx, cy = island_center(ISLAND_NAMES.index("ALOA"))
    assert not _near(_at(after, (cx + STONE_OFFSET[0], cy + STONE_OFFSET[1])), PLAYER_COLORS[1], 60)


def test_a_held_island_has_its_holders_rim() -> None:
    img = render_rgb(load(e1()))
    for island, p in (("DUDA", 0), ("HUNA", 1)):
        cx, cy = island_center(ISLAND_NAMES.index(island))
        assert _near(_at(img, (cx - 36.5, cy)), PLAYER_COLORS[p], 40), island
    cx, cy = island_center(ISLAND_NAMES.index("KAHU"))
    assert not any(_near(_at(img, (cx - 36.5, cy)), PLAYER_COLORS[p], 60) for p in (0, 1))


def test_hidden_cards_and_the_pile_never_show() -> None:
    base = dict(
        bridges=(HOLD_ALOA, HOLD_LALE),
        hands=(["COCO", "DUDA"], ["ELAI", "FAAA", "GOLA"]),
        discard_down=(["HUNA"], ["IFFI"]),
        face_up=["JOJO", "KAHU", "KAHU"],
        known=[["COCO"], ["ELAI"]],
    )
    pile = ["BARI", "BARI", "COCO", "DUDA", "ELAI", "FAAA", "GOLA", "HUNA", "IFFI", "JOJO"]
    a = make(pile=pile, **base)
    # Player 1's unknown cards and face-down discard swapped with pile cards, pile reordered.
    hand, down = ["BARI", "ELAI", "JOJO"], ["DUDA"]
    pool = a["hands"][1] + a["discard_down"][1] + a["pile"]
    for card in hand + down:
        pool.remove(card)
    b = make(**{**base, "hands": (base["hands"][0], hand), "discard_down": (["HUNA"], down)},
             pile=pool[::-1])  # fmt: skip
    sa, sb = load(a), load(b, seed=3)
    assert sa.hands[0, 1] != sb.hands[0, 1] and sa.discard_down[0, 1] != sb.discard_down[0, 1]
    assert np.array_equal(render_rgb(sa, seat=0), render_rgb(sb, seat=0))
    assert not np.array_equal(render_rgb(sa, seat=1), render_rgb(sb, seat=1))


def test_seat_picks_the_hand_shown(game: list) -> None:
    s = game[3]
    to_act = int(s.current_player[0])
    assert np.array_equal(render_rgb(s), render_rgb(s, seat=to_act))
    assert not np.array_equal(render_rgb(s), render_rgb(s, seat=1 - to_act))


def test_rendering_does_not_change_the_state(game: list, read_only) -> None:
    for s in (game[0], game[len(game) // 2], game[-1]):
        before = s.copy()
        render_rgb(read_only(s.copy()))
        render_rgb(s, seat=1)
        assert s.equal(before)


def test_positions_give_different_deterministic_pictures(game: list) -> None:
    picks = [0, 1, len(game) // 2, len(game) - 1]
    imgs = [render_rgb(game[k]) for k in picks]
    for i in range(len(imgs)):
        for j in range(i + 1, len(imgs)):
            assert not np.array_equal(imgs[i], imgs[j]), (picks[i], picks[j])
    assert np.array_equal(render_rgb(game[5]), render_rgb(game[5]))
    assert np.array_equal(np.asarray(render_image(game[5])), render_rgb(game[5]))


def test_the_game_over_box_is_in_the_winners_colour() -> None:
    done = {"face_up": [None, None, None], "pile": []}
    s = load(
        make(to_act=None, phase="game_over", bridges=(HOLD_ALOA + HOLD_GOLA, HOLD_LALE),
             scorings=[[1, 0], [0, 2], [1, 0]], winner=0, end_reason="final_scoring", **done)
    )  # fmt: skip
    img = render_rgb(s)
    box = img[610 + 8, 838 + 8 : WIDTH - 40]  # a row inside the result box
    assert (np.abs(box.astype(int) - PLAYER_COLORS[0]).max(axis=1) < 10).mean() > 0.5
    running = render_rgb(load(e1()))
    assert (
        np.abs(running[618, 846 : WIDTH - 40].astype(int) - PLAYER_COLORS[0]).max(axis=1) < 10
    ).mean() < 0.1


def test_bad_arguments_raise_clear_errors() -> None:
    s = load(e1())
    with pytest.raises(ValueError, match="game index i must be in 0..0, got 1"):
        render_rgb(s, 1)
    with pytest.raises(TypeError, match="game index i must be an int"):
        render_rgb(s, "0")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="seat must be in 0..1, got 5"):
        render_rgb(s, seat=5)
    with pytest.raises(TypeError, match="seat must be None or an int"):
        render_rgb(s, seat=1.0)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="supersample must be 1..4"):
        render_image(s, supersample=0)
    with pytest.raises(TypeError, match="state must be a kanaloa_env.core.kahuna.State"):
        render_rgb(np.zeros(3))  # type: ignore[arg-type]


def test_supersampling_one_draws_the_same_layout() -> None:
    s = load(e1())
    fast = np.asarray(render_image(s, supersample=1))
    assert fast.shape == (HEIGHT, WIDTH, 3)
    assert _near(_at(fast, _mid("ALOA-DUDA")), PLAYER_COLORS[0])


def test_a_gif_of_a_whole_game(tmp_path: Path, game: list) -> None:
    path = tmp_path / "game.gif"
    frames = game[::10] + ([game[-1]] if (len(game) - 1) % 10 else [])
    n = save_gif(frames, path, scale=0.25)
    assert n == len(frames)
    with Image.open(path) as gif:
        assert gif.n_frames == n and gif.size == (300, 210)


def test_aec_env_rgb_array_is_this_picture() -> None:
    env = kanaloa_env.env(game="kahuna", render_mode="rgb_array")
    env.reset(seed=4)
    img = env.render()
    assert isinstance(img, np.ndarray) and img.shape == (HEIGHT, WIDTH, 3)
    state = init(Config(), 1, seed=4)
    assert np.array_equal(img, render_rgb(state))
