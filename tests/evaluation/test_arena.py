"""The arena: seat balance, reproducibility, statistics, output files, records and the CLI."""

from __future__ import annotations

import csv
import itertools
import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from kanaloa_env.arena import main, run_tournament, seat_schedule
from kanaloa_env.bots import RandomBot
from kanaloa_env.core.kanaloa import Config, init
from kanaloa_env.evaluation import wilson_interval
from kanaloa_env.evaluation.ratings import competition_ranks
from kanaloa_env.games import get_game
from kanaloa_env.games.kanaloa.heuristic import HeuristicBot

# ---- seating -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("entrants", "players", "games"),
    [(4, 4, 96), (3, 3, 30), (5, 5, 600), (5, 3, 120), (6, 4, 240)],
)
def test_every_entrant_sits_in_every_seat_equally_often(
    entrants: int, players: int, games: int
) -> None:
    seating, deal = seat_schedule(entrants, players, games, seed=3)
    assert seating.shape == (games, players)
    # Nobody sits twice at one table.
    assert all(len(set(row)) == players for row in seating.tolist())
    counts = np.zeros((entrants, players), dtype=int)
    for s in range(players):
        counts[:, s] = np.bincount(seating[:, s], minlength=entrants)
    assert (counts == counts[0, 0]).all(), counts
    assert counts.sum() == games * players
    # Blocks of P games share one deal and rotate one table through every seat.
    assert np.array_equal(deal, np.arange(games) // players)
    for b in range(games // players):
        block = seating[b * players : (b + 1) * players]
        assert np.array_equal(block[1], np.roll(block[0], 1))


def test_schedule_covers_every_cyclic_order() -> None:
    """At 4 players, 4 * 3! games hold each of the 6 cyclic orders (who follows whom) once."""
    seating, _ = seat_schedule(4, 4, 24, seed=0)
    cyclic = set()
    for row in seating[::4].tolist():
        k = row.index(0)
        cyclic.add(tuple(row[k:] + row[:k]))
    assert cyclic == {(0, *p) for p in itertools.permutations([1, 2, 3])}


def test_tournament_seats_are_balanced() -> None:
    result = run_tournament(["heuristic", "random", "random", "random"], 4, 64, seed=1)
    counts = result.seat_counts()
    assert (counts == 16).all()
    for s in result.stats:
        assert s.seat_games == [16, 16, 16, 16]


# ---- statistics ----------------------------------------------------------------------


def test_wilson_interval_known_values() -> None:
    lo, hi = wilson_interval(5, 10)
    assert lo == pytest.approx(0.2366, abs=1e-4) and hi == pytest.approx(0.7634, abs=1e-4)
    lo, hi = wilson_interval(0, 10)
    assert lo == 0.0 and hi == pytest.approx(0.2775, abs=1e-4)
    lo, hi = wilson_interval(600, 1000)
    assert lo == pytest.approx(0.5693, abs=1e-4) and hi == pytest.approx(0.6299, abs=1e-4)
    assert wilson_interval(0, 0) == (0.0, 1.0)


def test_kanaloa_final_ranks_put_the_winner_first_and_share_ties() -> None:
    """R9.2 the winner first, then by progress (R9.1); a truncated game by progress only."""
    state = init(Config(num_players=4), 3, seed=0)
    state.progress[:] = [[10, 30, 20, 20], [5, 5, 9, 1], [3, 3, 3, 3]]
    state.winner[:] = [0, 2, -1]
    frac = get_game("kanaloa").final_ranks(state)
    assert frac.tolist() == [[1, 2, 3.5, 3.5], [2.5, 2.5, 1, 4], [2.5, 2.5, 2.5, 2.5]]
    assert competition_ranks(frac).tolist() == [[1, 2, 3, 3], [2, 2, 1, 4], [1, 1, 1, 1]]


def test_result_statistics_are_consistent() -> None:
    result = run_tournament(["random"] * 5, 3, 60, seed=2)
    assert len(result.stats) == 5
    assert {s.name for s in result.stats} == {"random", *(f"random#{i}" for i in range(2, 6))}
    assert sum(s.games for s in result.stats) == 60 * 3
    truncated = int((result.winner < 0).sum())
    assert sum(s.wins for s in result.stats) + truncated == 60
    # Places 1..3 average 2 over every seat of every game.
    total = sum(s.mean_rank * s.games for s in result.stats)
    assert total / (60 * 3) == pytest.approx(2.0)
    keys = [(-s.win_rate, s.mean_rank, -s.ordinal) for s in result.stats]
    assert keys == sorted(keys)  # the table's order: win rate, then mean rank, then rating
    for s in result.stats:
        assert s.ordinal == pytest.approx(s.mu - 3 * s.sigma)
        assert s.ci_low <= s.win_rate <= s.ci_high


# ---- reproducibility and batching ----------------------------------------------------


def _same(a, b) -> bool:
    arrays = ("seating", "deal", "winner", "decisions", "ranks")
    return (
        all(np.array_equal(getattr(a, k), getattr(b, k)) for k in arrays)
        and a.summary.keys() == b.summary.keys()
        and all(np.array_equal(a.summary[k], b.summary[k]) for k in a.summary)
        and [s.to_dict() for s in a.stats] == [s.to_dict() for s in b.stats]
    )


def test_results_reproducible_with_a_seed() -> None:
    bots = ["heuristic", "random", "random", "random"]
    a = run_tournament(bots, 4, 24, seed=5, batch_size=12)
    b = run_tournament(bots, 4, 24, seed=5, batch_size=12)
    c = run_tournament(bots, 4, 24, seed=6, batch_size=12)
    assert _same(a, b)
    assert not np.array_equal(a.summary["progress"], c.summary["progress"])


def test_deterministic_bots_give_the_same_games_at_any_batch_size() -> None:
    """Heuristic bots draw no random numbers, so batching and compaction cannot change a game."""
    bots = [HeuristicBot(name="h"), HeuristicBot(name="h", win_threshold=0.7), "heuristic"]
    a = run_tournament(bots, 3, 15, seed=9, batch_size=15)
    b = run_tournament(bots, 3, 15, seed=9, batch_size=4)
    assert _same(a, b)
    assert [s.name for s in a.stats if s.name.startswith("h#")] == ["h#2"]


def test_recorded_games_replay_to_the_same_end() -> None:
    result = run_tournament(
        ["heuristic", "random", "random"],
        3,
        12,
        seed=4,
        config={"nil_announcement": True},
        batch_size=5,
        record_games=True,
    )
    assert result.actions is not None
    for i in range(result.num_games):
        assert len(result.actions[i]) == result.decisions[i]
        final = result.replay(i)
        assert bool(final.terminated[0] or final.truncated[0])
        assert int(final.winner[0]) == int(result.winner[i])
        assert np.array_equal(final.progress[0], result.summary["progress"][i])
        info = result.game_info(i)
        assert info["deal"] == result.deal[i] and info["seed"] == 4
        assert info["config"] == {"nil_announcement": True}
        start = init(Config(num_players=3, nil_announcement=True), 1, 4, first_game=info["deal"])
        assert start.key[0] == init(result.config, 1, 4, first_game=int(result.deal[i])).key[0]
    with pytest.raises(ValueError, match="record_games"):
        run_tournament(["random"] * 3, 3, 3).replay(0)
    for i in (-1, result.num_games):  # as game_info: no silent wrap-around
        with pytest.raises(IndexError, match=f"0..{result.num_games - 1}, got {i}"):
            result.replay(i)


def test_entrants_without_games_are_listed_last() -> None:
    # 5 entrants, 3 seats, 3 games: two entrants never play and keep the prior rating,
    # which is above that of entrants who lost.
    result = run_tournament(["random"] * 5, 3, 3, seed=0)
    games = [s.games for s in result.stats]
    assert games.count(0) == 2 and games[-2:] == [0, 0]


def test_entrant_names_are_unique_even_against_a_bot_named_like_a_copy() -> None:
    class Named(RandomBot):
        name = "random#2"

    result = run_tournament(["random", "random", Named()], 3, 3, seed=0)
    assert result.entrants == ["random", "random#3", "random#2"]
    assert sorted(result.to_dict()["seat_games"]) == sorted(result.entrants)


def test_recorded_games_save_as_kanaloa_records(tmp_path: Path) -> None:
    records = pytest.importorskip("kanaloa_env.records")
    result = run_tournament(["heuristic", "random", "random"], 3, 6, seed=1, record_games=True)
    path = tmp_path / "games.jsonl"
    result.save_records(path)
    loaded = records.load_records(path)
    assert len(loaded) == 6
    for i, rec in enumerate(loaded):
        assert rec.seed == 1 and rec.deal == int(result.deal[i]) and rec.game == "kanaloa"
        assert [d.action for d in rec.decisions] == result.actions[i].tolist()
        assert rec.meta["players"] == result.game_info(i)["seats"]


# ---- argument errors -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"bots": ["random"] * 4, "num_players": 6}, ValueError, "3..5"),
        ({"bots": ["random"] * 2, "num_players": 3}, ValueError, "at least 3 bots"),
        ({"bots": None, "num_players": 3}, TypeError, "bots must be a list of bot specs"),
        ({"bots": "random", "num_players": 3}, TypeError, "bots must be a list of bot specs"),
        ({"bots": ["random", "nobody", "random"], "num_players": 3}, ValueError, "unknown bot"),
        ({"bots": ["random"] * 3, "num_players": 3, "num_games": 0}, ValueError, "num_games"),
        ({"bots": ["random"] * 3, "num_players": 3, "seed": -1}, ValueError, "seed"),
        (
            {"bots": ["random"] * 3, "num_players": 3, "config": {"dolphins": True}},
            TypeError,
            "unknown config options",
        ),
        (
            {"bots": ["random"] * 3, "num_players": 4, "config": Config(num_players=3)},
            ValueError,
            "num_players",
        ),
    ],
)
def test_bad_arguments_raise_clear_errors(kwargs: dict, error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        run_tournament(**{"num_games": 4, **kwargs})


def test_a_bot_that_returns_illegal_actions_is_named() -> None:
    class Cheater(RandomBot):
        name = "cheater"

        def act(self, observations, masks, rng, **kwargs):
            return np.full(len(masks), 65, dtype=np.int64)  # decline a dolphin, never legal here

    with pytest.raises(ValueError, match="cheater"):
        run_tournament([Cheater(), "random", "random"], 3, 3)


# ---- output files and CLI ------------------------------------------------------------


def test_cli_writes_files_consistent_with_the_printed_table(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "res"
    argv = ["--bots", "heuristic", "random", "random", "random", "--players", "4"]
    argv += ["--games", "48", "--seed", "3", "--out", str(out), "--no-progress", "--announce"]
    assert main(argv) == 0
    printed = capsys.readouterr().out.splitlines()
    data = json.loads((out / "results.json").read_text())
    assert data["games"] == 48 and data["num_players"] == 4 and data["seed"] == 3
    assert data["config"] == {"nil_announcement": True}
    table = data["table"]
    rows = [line.split() for line in printed[2 : 2 + len(table)]]
    with open(out / "results.csv", newline="") as f:
        csv_rows = list(csv.DictReader(f))
    assert len(rows) == len(csv_rows) == 4
    for i, (row, js, cs) in enumerate(zip(rows, table, csv_rows, strict=True), 1):
        assert row[0] == str(i) == cs["rank"]
        assert row[1] == js["name"] == cs["bot"]
        assert int(row[2]) == js["games"] == int(cs["games"])
        assert row[3] == f"{100 * js['win_rate']:.1f}%"
        assert float(cs["win_rate"]) == pytest.approx(js["win_rate"], abs=1e-6)
        assert float(cs["mean_rank"]) == pytest.approx(js["mean_rank"], abs=1e-6)
        assert float(row[-3]) == pytest.approx(js["mu"], abs=0.005)
        assert float(cs["ordinal"]) == pytest.approx(js["ordinal"], abs=1e-6)
        assert js["seat_games"] == [12, 12, 12, 12]
    with open(out / "games.csv", newline="") as f:
        games = list(csv.DictReader(f))
    assert len(games) == 48
    wins = {r["bot"]: 0 for r in csv_rows}
    for g in games:
        if g["winner_seat"]:
            assert g["winner"] == g[f"seat{g['winner_seat']}"]
            wins[g["winner"]] += 1
    assert wins == {r["bot"]: int(r["wins"]) for r in csv_rows}
    with Image.open(out / "ratings.png") as img:
        assert img.format == "PNG" and img.size[0] > 100 and img.size[1] > 100


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "kanaloa_env.arena", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=120,
    )


def test_cli_help(tmp_path: Path) -> None:
    proc = _cli("--help", cwd=tmp_path)
    assert proc.returncode == 0
    for flag in ("--bots", "--players", "--games", "--seed", "--out", "--announce", "--record"):
        assert flag in proc.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--bots", "wizard", "random", "random"], "unknown bot 'wizard'"),
        (["--bots", "missing.zip", "random", "random"], "does not exist"),
        (["--bots", "BAD", "random", "random"], "cannot load model"),
        (["--bots", "random", "random", "random", "--players", "6"], "invalid choice: 6"),
        (["--bots", "random", "random"], "at least --players=3"),
        (["--bots", "random", "random", "random", "--games", "0"], "must be an int >= 1"),
        (["--bots", "random", "random", "random", "--config", "{oops"], "not valid JSON"),
    ],
)
def test_cli_errors_exit_2_without_traceback(tmp_path: Path, args: list[str], message: str) -> None:
    bad = tmp_path / "bad_model.zip"
    bad.write_bytes(b"this is not a zip archive")
    args = [str(bad) if a == "BAD" else a for a in args]
    if "--players" not in args:
        args += ["--players", "3"]
    if "--games" not in args:
        args += ["--games", "3"]
    proc = _cli(*args, cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr
    assert message in proc.stderr
    assert "Traceback" not in proc.stderr
    assert not (tmp_path / "runs").exists()


def test_cli_runs_and_records(tmp_path: Path) -> None:
    """A real run: progress bar on stderr, the table on stdout, every file written."""
    proc = _cli(
        "--bots", "heuristic", "random", "random", "--players", "3", "--games", "9",
        "--seed", "1", "--out", "out", "--record", cwd=tmp_path,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "heuristic" in proc.stdout and "win rate" in proc.stdout
    assert "note: 9 games" not in proc.stderr  # 9 is a multiple of 3
    names = {p.name for p in (tmp_path / "out").iterdir()}
    assert names == {"results.json", "results.csv", "games.csv", "ratings.png", "games.jsonl"}
    lines = (tmp_path / "out" / "games.jsonl").read_text().splitlines()
    headers = [json.loads(x) for x in lines if '"format"' in x]
    assert len(headers) == 9 and all(h["seed"] == 1 for h in headers)
    data = json.loads((tmp_path / "out" / "results.json").read_text())
    assert not math.isnan(data["games_per_second"])
    assert set(data["files"].values()) == names  # the records are listed too


# ---- result folders: whole, never mixed, never silently overwritten ---------------------


def test_a_second_run_into_the_same_folder_needs_overwrite(tmp_path: Path) -> None:
    out = tmp_path / "res"
    first = run_tournament(["random"] * 3, 3, 6, seed=1, record_games=True)
    first.write(out, records=True)
    second = run_tournament(["random"] * 3, 3, 3, seed=2)
    with pytest.raises(ValueError, match="already holds files"):
        second.write(out)
    assert json.loads((out / "results.json").read_text())["seed"] == 1
    second.write(out, overwrite=True)
    # Replaced as a whole: the first run's games.jsonl does not linger beside the second's.
    assert json.loads((out / "results.json").read_text())["seed"] == 2
    assert not (out / "games.jsonl").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["res"]  # no temporary folders


def test_a_failed_write_leaves_the_earlier_results_as_they_were(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "res"
    run_tournament(["random"] * 3, 3, 6, seed=1).write(out)
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    result = run_tournament(["random"] * 3, 3, 3, seed=2)

    def interrupted(self, path):  # Ctrl-C while the picture is drawn
        raise KeyboardInterrupt

    monkeypatch.setattr(type(result), "plot", interrupted)
    with pytest.raises(KeyboardInterrupt):
        result.write(out, overwrite=True)
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["res"]


def test_cli_refuses_a_used_folder_before_playing(tmp_path: Path) -> None:
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "results.json").write_text("{}")
    proc = _cli("--bots", "random", "random", "random", "--players", "3", "--games", "3",
                "--out", "out", cwd=tmp_path)  # fmt: skip
    assert proc.returncode == 2 and "--out 'out' already holds files" in proc.stderr
    assert "pass --overwrite to replace" in proc.stderr  # the message names the way out
    assert "Traceback" not in proc.stderr
    assert (tmp_path / "out" / "results.json").read_text() == "{}"
    assert "--overwrite" in _cli("--help", cwd=tmp_path).stdout


def test_cli_reports_a_bad_bot_before_a_used_folder(tmp_path: Path) -> None:
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "results.json").write_text("{}")
    proc = _cli("--bots", "heuristc", "random", "random", "--players", "3", "--games", "3",
                "--out", "out", cwd=tmp_path)  # fmt: skip
    assert proc.returncode == 2
    assert "unknown bot 'heuristc'" in proc.stderr and "already holds" not in proc.stderr


def test_cli_makes_the_missing_parents_of_out(tmp_path: Path) -> None:
    proc = _cli("--bots", "random", "random", "random", "--players", "3", "--games", "1",
                "--out", "runs/arena/new/run1", "--no-progress", cwd=tmp_path)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "runs" / "arena" / "new" / "run1" / "results.json").exists()
    # 1 game at a 3-player table: the seats cannot be balanced, and the note says so in English.
    assert "note: 1 game is not a multiple of 3" in proc.stderr
    assert "Kanaloa: 1 game, 3 players" in proc.stdout


def test_cli_refuses_an_out_below_a_file(tmp_path: Path) -> None:
    (tmp_path / "runs").write_text("a file, not a folder")
    proc = _cli("--bots", "random", "random", "random", "--players", "3", "--games", "3",
                "--out", "runs/arena/x", cwd=tmp_path)  # fmt: skip
    assert proc.returncode == 2 and "exists and is not a directory" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_cli_default_folder_is_under_runs(tmp_path: Path) -> None:
    proc = _cli("--bots", "random", "random", "random", "--players", "3", "--games", "3",
                "--no-progress", cwd=tmp_path)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "runs" / "arena" / "kanaloa" / "results.json").exists()


def test_the_table_says_what_orders_it() -> None:
    table = run_tournament(["heuristic", "random", "random"], 3, 6, seed=0).table()
    assert "ordered by win rate, best first (ties: mean rank, then ordinal)" in table
    assert "the rating (ordinal = mu - 3 sigma) weighs every place" in table
    assert "Kanaloa: 6 games, 3 players" in table
    assert max(len(line) for line in table.splitlines()) <= 100


def test_the_table_follows_the_win_rates_where_the_rating_disagrees() -> None:
    """The issue's case: the entrant with the best win rate and mean rank was listed third
    because its rating ordinal was third. Ratings that contradict the win rates order
    nothing but ties."""
    from kanaloa_env.evaluation.arena import _stats

    result = run_tournament(["heuristic", "random", "random", "random"], 4, 40, seed=1)
    by_rate = sorted(result.stats, key=lambda s: (-s.win_rate, s.mean_rank))
    index = {n: e for e, n in enumerate(result.entrants)}
    # An ordinal that reverses the win-rate order (and ties nothing).
    ordinal = np.zeros(len(result.entrants))
    for k, s in enumerate(by_rate):
        ordinal[index[s.name]] = float(k)
    rows = _stats(result, ordinal + 3.0, np.ones_like(ordinal), ordinal)
    assert [s.name for s in rows] == [s.name for s in by_rate]
    assert rows[0].name == "heuristic" and rows[0].ordinal == min(s.ordinal for s in rows)


def test_a_slow_tournament_reports_its_speed_without_rounding_it_to_zero() -> None:
    result = run_tournament(["random"] * 3, 3, 3, seed=0)
    result.play_seconds = 18.75  # 3 games: 0.16 games/s
    assert "; 0.16 games/s (18.75 s play" in result.table()


def test_one_game_is_a_game() -> None:
    result = run_tournament(["random"] * 3, 3, 1, seed=0)
    assert "Kanaloa: 1 game, 3 players" in result.table()
    assert result.ratings_figure().axes[0].get_title().startswith("Kanaloa arena: 1 game, ")


def test_before_play_runs_after_the_bots_are_built_and_before_any_game() -> None:
    calls: list[str] = []
    with pytest.raises(ValueError, match="unknown bot 'wizard'"):
        run_tournament(["wizard", "random", "random"], 3, 3, before_play=lambda: calls.append("x"))
    assert calls == []  # a bad bot is reported first

    def refuse() -> None:
        calls.append("refused")
        raise ValueError("no room")

    played: list[int] = []

    class Counting(RandomBot):
        def act(self, observations, masks, rng, **kwargs):
            played.append(len(masks))
            return super().act(observations, masks, rng, **kwargs)

    with pytest.raises(ValueError, match="no room"):
        run_tournament([Counting(), "random", "random"], 3, 3, before_play=refuse)
    assert calls == ["refused"] and played == []
    run_tournament([Counting(), "random", "random"], 3, 3, before_play=lambda: calls.append("ok"))
    assert calls == ["refused", "ok"] and played


def test_ratings_plot_shows_the_ladder_best_on_top_with_the_legend_off_the_data() -> None:
    result = run_tournament(["random", "heuristic", "random", "heuristic"], 4, 48, seed=2)
    fig = result.ratings_figure()
    fig.canvas.draw()
    ax = fig.axes[0]
    ticks = sorted(zip(ax.get_yticks(), ax.get_yticklabels(), strict=True), key=lambda t: -t[0])
    labels = [label.get_text() for _, label in ticks]  # top to bottom
    assert labels[0].startswith("1. heuristic") and labels[-1].startswith("4. random")
    for place, (text, s) in enumerate(zip(labels, result.stats, strict=True), 1):
        assert text == (
            f"{place}. {s.name}\nwins {100 * s.win_rate:.1f}% "
            f"[{100 * s.ci_low:.1f}, {100 * s.ci_high:.1f}]"
        )
    # Each row's dot is the entrant's mu, its value written beside it.
    dots = ax.lines[1].get_data()  # errorbar's data line (after the joining line)
    by_row = dict(zip(np.asarray(dots[1]).tolist(), np.asarray(dots[0]).tolist(), strict=True))
    for (y, _), s in zip(ticks, result.stats, strict=True):
        assert by_row[y] == pytest.approx(s.mu)
    assert sorted(t.get_text() for t in ax.texts) == sorted(f"{s.mu:.1f}" for s in result.stats)
    renderer = fig.canvas.get_renderer()
    legend = fig.legends[0].get_window_extent(renderer)
    assert not legend.overlaps(ax.get_window_extent(renderer))
    assert fig.bbox.contains(legend.x0, legend.y0) and fig.bbox.contains(legend.x1, legend.y1)
