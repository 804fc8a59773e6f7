"""Game records: record -> file -> replay reproduces every position; divergence names the step."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from kanaloa_env.bots import RandomBot
from kanaloa_env.core.kanaloa import Config, init, step, to_scenario
from kanaloa_env.core.kanaloa.constants import NUM_ACTIONS, Phase
from kanaloa_env.games import GAMES
from kanaloa_env.records import (
    FORMAT_VERSION,
    GameRecord,
    Recorder,
    ReplayError,
    bot_action,
    describe_step,
    load_record,
    load_records,
    record_bot_game,
    replay,
    replay_states,
    save_records,
    write_records,
)

CONFIGS = [
    Config(num_players=3),
    Config(num_players=4, nil_announcement=True),
    Config(num_players=5, dolphin="automatic", max_rounds=3),
]


def _play(rec: Recorder, rng: np.random.Generator, max_steps: int = 10_000) -> list[dict]:
    """Random legal play; returns the scenario after every step (the start first)."""
    scenarios = [to_scenario(rec.state, 0, include_key=True)]
    while not rec.done and len(scenarios) <= max_steps:
        legal = np.flatnonzero(rec.state.legal[0])
        rec.step(int(rng.choice(legal)))
        scenarios.append(to_scenario(rec.state, 0, include_key=True))
    return scenarios


@pytest.mark.parametrize(
    "config", CONFIGS, ids=lambda c: repr(c.overrides() | {"P": c.num_players})
)
def test_record_then_replay_gives_identical_scenarios(config: Config, tmp_path: Path) -> None:
    rec = Recorder(config, seed=11)
    live = _play(rec, np.random.default_rng(0))
    assert rec.done and rec.record.result is not None
    path = tmp_path / "game.jsonl"
    rec.record.save(path)
    loaded = load_record(path)
    assert loaded.actions == rec.record.actions
    replayed = [to_scenario(s, 0, include_key=True) for s in replay_states(loaded)]
    assert replayed == live


def test_seeded_record_starts_at_game_0_of_init(tmp_path: Path) -> None:
    cfg = Config(num_players=4)
    rec = GameRecord(4, cfg.overrides(), seed=5)
    assert rec.start_state().equal(init(cfg, 1, seed=5))
    assert to_scenario(GameRecord(4, {}, seed=5, deal=2).start_state(), 0) == to_scenario(
        init(cfg, 3, seed=5), 2
    )


def test_record_from_a_scenario_replays_future_deals(tmp_path: Path) -> None:
    # Start mid-game (after 30 random decisions); the dumped key makes later deals replay.
    cfg = Config(num_players=3)
    state = init(cfg, 1, seed=3)
    rng = np.random.default_rng(1)
    for _ in range(30):
        state = step(state, np.array([rng.choice(np.flatnonzero(state.legal[0]))]))
    rec = Recorder.from_state(state, meta={"note": "from move 30"})
    assert rec.record.seed is None and "key" in rec.record.scenario
    live = _play(rec, rng)
    assert any(s["round"] > live[0]["round"] for s in live), "the game must reach a new deal"
    path = tmp_path / "scenario.jsonl"
    rec.record.save(path)
    loaded = load_record(path)
    assert loaded.meta == {"note": "from move 30"}
    assert [to_scenario(s, 0, include_key=True) for s in replay_states(loaded)] == live


def test_file_layout_header_decisions_result(tmp_path: Path) -> None:
    rec = record_bot_game(Config(num_players=3), [RandomBot()] * 3, seed=4)
    path = tmp_path / "g.jsonl"
    rec.save(path)
    lines = [json.loads(x) for x in path.read_text().splitlines()]
    head = lines[0]
    assert head["version"] == FORMAT_VERSION and head["num_players"] == 3
    assert head["seed"] == 4 and head["config"] == {} and head["meta"]["players"] == ["random"] * 3
    steps = lines[1:-1]
    assert [d["step"] for d in steps] == list(range(len(steps)))
    assert all(set(d) == {"step", "player", "action", "name"} for d in steps)
    assert steps[0]["name"].startswith("play ")
    assert lines[-1]["result"]["steps"] == len(steps)
    assert lines[-1]["result"]["winner"] == rec.result["winner"]


def _tamper(rec: GameRecord, n: int, **change: int) -> GameRecord:
    d = rec.decisions[n]
    fields = {"step": d.step, "player": d.player, "action": d.action} | change
    out = GameRecord(rec.num_players, rec.config, seed=rec.seed, deal=rec.deal)
    out.decisions = list(rec.decisions)
    out.decisions[n] = type(d)(**fields)
    return out


def test_illegal_action_raises_naming_the_step() -> None:
    rec = record_bot_game(Config(num_players=4), [RandomBot()] * 4, seed=9)
    n = 17
    state = replay_states(rec)[n]
    illegal = int(np.flatnonzero(~state.legal[0])[0])
    with pytest.raises(ReplayError, match=r"step 17\b.*illegal") as info:
        list(replay(_tamper(rec, n, action=illegal)))
    assert info.value.step == n


def test_wrong_player_raises_naming_the_step() -> None:
    rec = record_bot_game(Config(num_players=4), [RandomBot()] * 4, seed=9)
    n = 5
    wrong = (rec.decisions[n].player + 1) % 4
    with pytest.raises(ReplayError, match=r"step 5\b.*player") as info:
        list(replay(_tamper(rec, n, player=wrong)))
    assert info.value.step == n


def test_decisions_after_the_end_and_wrong_result_raise() -> None:
    rec = record_bot_game(Config(num_players=3), [RandomBot()] * 3, seed=2)
    longer = GameRecord(3, {}, seed=2)
    longer.decisions = list(rec.decisions) + [type(rec.decisions[0])(len(rec.decisions), 0, 0)]
    with pytest.raises(ReplayError, match=f"step {len(rec.decisions)}.*over"):
        list(replay(longer))
    lying = GameRecord(
        3, {}, seed=2, result=dict(rec.result, winner=(rec.result["winner"] + 1) % 3)
    )
    lying.decisions = rec.decisions
    with pytest.raises(ReplayError, match="winner"):
        list(replay(lying))


def test_recorder_rejects_bad_actions_and_records_nothing() -> None:
    rec = Recorder(Config(num_players=3), seed=0)
    illegal = int(np.flatnonzero(~rec.state.legal[0])[0])
    with pytest.raises(ValueError, match="illegal"):
        rec.step(illegal)
    with pytest.raises(TypeError):
        rec.step("red-3")  # type: ignore[arg-type]
    assert rec.record.decisions == []


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("not json\n", "line 1: not valid JSON"),
        ('{"step": 0, "player": 0, "action": 1}\n', "line 1: .*header"),
        ('{"format": "kanaloa-record", "version": 99, "num_players": 3, "config": {}, "seed": 1}\n',
         "version 99"),
        ('{"format": "kanaloa-record", "version": 1, "num_players": 3, "config": {}}\n',
         "'seed' and 'scenario'"),
        ('{"format": "kanaloa-record", "version": 1, "num_players": 7, "config": {}, "seed": 1}\n',
         "num_players"),
        ('{"format": "kanaloa-record", "version": 1, "num_players": 3, "config": {}, "seed": 1}\n'
         '{"step": 1, "player": 0, "action": 1}\n', "line 2: expected step 0"),
        ('{"format": "kanaloa-record", "version": 1, "num_players": 3, "config": {}, "seed": 1}\n'
         f'{{"step": 0, "player": 0, "action": {NUM_ACTIONS}}}\n', "line 2: action must be"),
        ("", "no game records"),
        ('{"format": "kanaloa-record", "version": 1, "num_players": 3, "config": {}, "scenario": [1, 2]}\n',
         "line 1: .*scenario must be a scenario dict"),
        ('{"format": "kanaloa-record", "version": 1, "num_players": 3, "config": {}, "scenario": {"num_players": 3}}\n',
         "line 1: bad 'scenario': scenario key 'route' is missing"),
        ('{"format": "kanaloa-record", "version": 1, "num_players": 4, "config": {}, "scenario": {"num_players": 3}}\n',
         "line 1: GameRecord.num_players is 4 but the scenario's is 3"),
        ('{"format": "kanaloa-record", "version": 1, "num_players": 3, "config": {}, "seed": 1, "game": 18446744073709551616}\n',
         r"line 1: .*deal must be an int in 0\.\.2\*\*64-1"),
    ],
)  # fmt: skip
def test_malformed_files_name_the_line(tmp_path: Path, text: str, match: str) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(text)
    with pytest.raises(ValueError, match=match):
        load_records(path)


def test_write_records_matches_a_batch_of_games(tmp_path: Path) -> None:
    """The arena hook: a batch seeded `s` saved by seed and actions replays each game exactly."""
    cfg = Config(num_players=4)
    B = 3
    state = init(cfg, B, seed=21)
    rng = np.random.default_rng(5)
    actions: list[list[int]] = [[] for _ in range(B)]
    while not state.done.all():
        live = np.flatnonzero(~state.done)
        a = np.zeros(B, dtype=np.int64)  # finished games ignore their action
        a[live] = RandomBot().act(None, state.legal[live], rng)  # type: ignore[arg-type]
        for g in live:
            actions[g].append(int(a[g]))
        state = step(state, a)
    path = tmp_path / "arena.jsonl"
    written = write_records(path, cfg, 21, actions, meta={"players": ["random"] * 4})
    loaded = load_records(path)
    assert len(loaded) == B and [r.deal for r in loaded] == [0, 1, 2]
    for g, rec in enumerate(loaded):
        assert rec.actions == actions[g] == written[g].actions
        final = replay_states(rec)[-1]
        assert to_scenario(final, 0) == to_scenario(state, g)
    # Appending adds games; a list of seeds names each game's own stream.
    write_records(path, cfg, [21], [actions[1]], games=[1], append=True)
    assert load_records(path)[-1].actions == actions[1]


def test_write_records_rejects_bad_input(tmp_path: Path) -> None:
    cfg = Config(num_players=3)
    with pytest.raises(ValueError, match="2 games of actions but 1 seed and 2 game indices"):
        write_records(tmp_path / "x.jsonl", cfg, [1], [[], []])
    with pytest.raises(ValueError, match="1 game but 2 meta dicts"):
        write_records(tmp_path / "x.jsonl", cfg, 1, [[]], meta=[{}, {}])
    state = init(cfg, 1, seed=1)
    illegal = int(np.flatnonzero(~state.legal[0])[0])
    with pytest.raises(ReplayError, match="step 0.*illegal"):
        write_records(tmp_path / "x.jsonl", cfg, 1, [[illegal]])


def test_write_records_rejects_non_int_actions_seeds_and_games(tmp_path: Path) -> None:
    """As `Recorder.step` does: int(2.7) == 2 would quietly record another game."""
    cfg = Config(num_players=3)
    path = tmp_path / "x.jsonl"
    legal = int(np.flatnonzero(init(cfg, 1, seed=1).legal[0])[0])
    with pytest.raises(
        TypeError, match=rf"game 1: action 0 must be an int in 0\.\.65, got {legal}\.7"
    ):
        write_records(path, cfg, [1, 1], [[legal], [legal + 0.7]])
    with pytest.raises(TypeError, match="game 0: action 0 must be an int.*got True"):
        write_records(path, cfg, [1], [[True]])
    with pytest.raises(TypeError, match="game 0: action 0 must be an int.*got np.float64"):
        write_records(path, cfg, [1], [np.array([legal], dtype=float)])
    with pytest.raises(TypeError, match="seeds must be an int or a sequence of ints, got '1'"):
        write_records(path, cfg, "1", [[]])  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"seeds\[0\] must be an int, got 1\.0"):
        write_records(path, cfg, [1.0], [[]])  # type: ignore[list-item]
    with pytest.raises(TypeError, match=r"seeds\[0\] must be an int, got True"):
        write_records(path, cfg, [True], [[]])
    with pytest.raises(TypeError, match=r"games\[0\] must be an int, got 0\.5"):
        write_records(path, cfg, 1, [[]], games=[0.5])  # type: ignore[list-item]
    with pytest.raises(ValueError, match=r"game 0: seed must be in 0\.\.2\*\*64-1"):
        write_records(path, cfg, [2**64], [[]])
    assert not path.exists()  # nothing written on bad input
    # numpy integers are ints.
    recs = write_records(path, cfg, np.array([1]), [np.array([legal], dtype=np.int8)])
    assert recs[0].actions == [legal]


def test_game_index_must_fit_in_uint64() -> None:
    """Game indices are uint64: past 2**64-1 a clear ValueError, not numpy's OverflowError."""
    cfg = Config(num_players=3)
    last = init(cfg, 1, seed=1, first_game=2**64 - 1)
    assert last.key[0] == init(cfg, 2, seed=1, first_game=2**64 - 2).key[1]
    with pytest.raises(
        ValueError, match=r"first_game must be an int in 0\.\.2\*\*64-2 for a batch of 2"
    ):
        init(cfg, 2, seed=1, first_game=2**64 - 1)
    with pytest.raises(ValueError, match=r"first_game must be an int in 0\.\.2\*\*64-1"):
        Recorder(cfg, 1, deal=2**64)
    with pytest.raises(ValueError, match=r"first_game must be an int in 0\.\.2\*\*64-2"):
        init(cfg, 2, seed=1, first_game=np.uint64(2**64 - 1))  # numpy used to wrap to 0
    with pytest.raises(ValueError, match=r"GameRecord.deal must be an int in 0\.\.2\*\*64-1"):
        GameRecord(3, seed=1, deal=2**64)
    with pytest.raises(TypeError, match="GameRecord.scenario must be a scenario dict"):
        GameRecord(3, scenario=[1, 2])  # type: ignore[arg-type]


def test_save_records_several_games_in_one_file(tmp_path: Path) -> None:
    recs = [record_bot_game(Config(num_players=3), [RandomBot()] * 3, seed=s) for s in (1, 2)]
    path = tmp_path / "two.jsonl"
    save_records(path, recs)
    assert [r.seed for r in load_records(path)] == [1, 2]
    assert load_record(path, 1).actions == recs[1].actions
    with pytest.raises(ValueError, match="game index i must be in 0..1"):
        load_record(path, 2)
    # A record JSON cannot write leaves the file as it was (not truncated).
    before = path.read_text()
    recs[0].meta = {"score": np.int64(3)}
    with pytest.raises(TypeError, match="JSON serializable"):
        save_records(path, recs)
    assert path.read_text() == before


def test_bot_action_passes_the_public_view_to_state_bots() -> None:
    seen = {}

    class Spy:
        name = "spy"
        uses_state = True

        def act(self, observations, masks, rng, **kwargs):
            seen.update(kwargs)
            return np.flatnonzero(masks[0])[:1]

    state = init(Config(num_players=3), 1, seed=0)
    a = bot_action(Spy(), state, np.random.default_rng(0))
    assert state.legal[0, a]
    p = int(state.current_player[0])
    view = seen["view"]
    assert seen["seats"].tolist() == [p]
    assert view.hands[0, p] == state.hands[0, p]
    assert all(view.hands[0, q] == 0 for q in range(3) if q != p)  # other hands hidden


def test_describe_step_tells_tricks_moves_removals_and_the_end() -> None:
    rec = record_bot_game(Config(num_players=4), [RandomBot()] * 4, seed=3)
    seen_trick = seen_removal = seen_round = False
    for r in replay(rec):
        b, a = r.before, r.after
        text = describe_step(b, r.decision.action, a)
        assert text and text[0].startswith(f"player {r.decision.player} ")
        if a.round[0] == b.round[0] and a.tricks_won[0].sum() > b.tricks_won[0].sum():
            w = int(np.flatnonzero(a.tricks_won[0] > b.tricks_won[0])[0])
            assert any(t.startswith(f"player {w} wins the trick") for t in text)
            seen_trick = True
        for q in range(4):
            if a.boat_field[0, q] != b.boat_field[0, q]:
                assert any(t.startswith(f"player {q} sails") for t in text)
        if a.present[0].sum() < b.present[0].sum():
            assert "removes ocean card" in text[0]
            assert f"{int(a.present[0].sum())} ocean cards remain" in text[0]
            seen_removal = True
        if a.round[0] > b.round[0]:
            assert any(t.startswith(f"round {int(a.round[0])} starts") for t in text)
            seen_round = True
        if a.phase[0] == Phase.DOLPHIN:
            assert any("may take a dolphin move" in t for t in text)
    assert seen_trick and seen_removal and seen_round
    assert f"player {rec.result['winner']} laps the last boat and wins the game!" in text


def _replay_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "kanaloa_env.replay", *args],
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_replay_cli_prints_renders_and_reports_divergence(tmp_path: Path) -> None:
    rec = record_bot_game(Config(num_players=3), [RandomBot()] * 3, seed=6)
    path = tmp_path / "g.jsonl"
    rec.save(path)
    full = _replay_cli(str(path))
    assert full.returncode == 0, full.stderr
    assert full.stdout.count("\nStep ") == len(rec.decisions)
    assert "Route:" in full.stdout and "wins the game!" in full.stdout
    assert "\x1b[" not in full.stdout  # not a terminal: no colours
    brief = _replay_cli(str(path), "--brief")
    assert brief.returncode == 0 and "Route:" not in brief.stdout
    assert "player_0 (random)" in brief.stdout  # names from the record's meta
    gif, frames = tmp_path / "g.gif", tmp_path / "frames"
    drawn = _replay_cli(
        str(path), "--gif", str(gif), "--png-dir", str(frames), "--every", "40", "--scale", "0.2"
    )
    assert drawn.returncode == 0, drawn.stderr
    n = len(range(0, len(rec.decisions) + 1, 40)) + (len(rec.decisions) % 40 != 0)
    assert len(list(frames.glob("step_*.png"))) == n
    assert f"({n} frames)" in drawn.stdout and gif.stat().st_size > 0
    # A record that leaves the game: exit 1, the step named on stderr.
    bad = _tamper(rec, 3, player=(rec.decisions[3].player + 1) % 3)
    bad.save(tmp_path / "bad.jsonl")
    diverged = _replay_cli(str(tmp_path / "bad.jsonl"), "--brief")
    assert diverged.returncode == 1 and "record diverges at step 3" in diverged.stderr
    missing = _replay_cli(str(tmp_path / "nope.jsonl"))
    assert missing.returncode == 2 and "cannot read" in missing.stderr


@pytest.mark.parametrize(
    ("change", "match"),
    [
        ({"scenario": [1, 2]}, "scenario must be a scenario dict"),
        ({"scenario": {"num_players": 3}}, "bad 'scenario': scenario key 'route' is missing"),
        ({"seed": 1, "deal": 2**64}, r"deal must be an int in 0..2\*\*64-1"),
    ],
    ids=["scenario-list", "scenario-missing-keys", "deal-2**64"],
)
def test_replay_cli_reports_a_bad_header_in_one_line(
    tmp_path: Path, change: dict, match: str
) -> None:
    """A bad start is an unreadable file (exit 2, one line naming the line), not a traceback."""
    head = {"format": "kanaloa-record", "version": FORMAT_VERSION, "game": "kanaloa"}
    head |= {"num_players": 3, "config": {}}
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps(head | change) + "\n")
    proc = _replay_cli(str(path), "--brief")
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
    assert re.search(rf"cannot read .*bad\.jsonl line 1: .*{match}", proc.stderr)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--gif", "o.gif", "--scale", "0"], "argument --scale: must be in 0.1..2.0, got 0"),
        (["--png-dir", "pngs", "--scale", "3"], "argument --scale: must be in 0.1..2.0, got 3"),
        (["--gif", "o.gif", "--scale", "nan"], "argument --scale: must be in 0.1..2.0"),
        (["--gif", "o.gif", "--frame-ms", "0"], "argument --frame-ms: must be an int >= 1"),
        (["--gif", "nodir/o.gif"], "argument --gif: directory 'nodir' does not exist"),
        (["--gif", "o_noext"], "argument --gif: the file name must end in .gif"),
        (["--gif", "sub.gif"], "argument --gif: 'sub.gif' is a directory"),
        (["--png-dir", "afile"], "argument --png-dir: '.*afile' exists and is not a directory"),
        (["--png-dir", "afile/frames"], "argument --png-dir: '.*afile' exists and is not a"),
        (["--every", "0"], "argument --every: must be an int >= 1"),
    ],
)
def test_replay_cli_checks_output_options_before_replaying(
    tmp_path: Path, options: list[str], message: str
) -> None:
    """Bad picture options: exit 2 with argparse's message, before the replay, no traceback."""
    rec = record_bot_game(Config(num_players=3), [RandomBot()] * 3, seed=5, max_steps=6)
    rec.save(tmp_path / "g.jsonl")
    (tmp_path / "afile").write_text("x")
    (tmp_path / "sub.gif").mkdir()
    proc = subprocess.run(
        [sys.executable, "-m", "kanaloa_env.replay", "g.jsonl", *options],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
    )
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    assert re.search(message, proc.stderr.strip().splitlines()[-1])
    assert not list(tmp_path.glob("o*")) and not (tmp_path / "pngs").exists()


def _two_games(tmp_path: Path) -> Path:
    """A file of two records: a Kanaloa game cut after 2 steps, then a Kahuna game after 1."""
    from kanaloa_env.games import get_game

    kanaloa = record_bot_game(Config(num_players=3), [RandomBot()] * 3, seed=5, max_steps=2)
    kahuna = record_bot_game(
        get_game("kahuna").make_config(), [RandomBot()] * 2, seed=5, max_steps=1
    )
    path = tmp_path / "two.jsonl"
    path.write_text(kanaloa.to_jsonl() + kahuna.to_jsonl(), encoding="utf-8")
    return path


def test_replay_cli_index_picks_a_game_and_game_names_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--index` picks the record, `--game` is a game's name as in every command: it checks
    the record's game."""
    from kanaloa_env.cli import replay as replay_cli

    path = str(_two_games(tmp_path))
    assert replay_cli.main([path, "--brief"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"Game 0 of {path}: Kanaloa, 3 players")
    assert "The record ends after 2 steps; the game is not over." in out
    for argv in ([path, "--index", "1"], [path, "-i", "1", "--game", "kahuna"]):
        assert replay_cli.main([*argv, "--brief"]) == 0
        out = capsys.readouterr().out
        assert out.startswith(f"Game 1 of {path}: Kahuna, 2 players")
        assert "The record ends after 1 step; the game is not over." in out
    assert replay_cli.main([path, "--game", "kanaloa", "--brief"]) == 0
    capsys.readouterr()


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--game", "kahuna"], "--game kahuna: game 0 of PATH is a Kanaloa record; pass --game "
         "kanaloa or leave --game out"),
        (["-i", "1", "--game", "kanaloa"], "--game kanaloa: game 1 of PATH is a Kahuna record"),
        (["--game", "3"], f"argument --game: takes a game name ({', '.join(sorted(GAMES))}), "
         "got '3'; to pick game 3 of a file, use --index 3"),
        (["--game", "chess"], "argument --game: invalid choice: 'chess'"),
        (["--index", "2"], "--index must be in 0..1 (PATH holds 2 games)"),
        (["--index", "-1"], "argument -i/--index: must be an int >= 0, got -1"),
        (["--index", "one"], "argument -i/--index: must be an int >= 0, got 'one'"),
    ],
)  # fmt: skip
def test_replay_cli_bad_index_or_game_exits_2_naming_what_is_allowed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    from kanaloa_env.cli import replay as replay_cli

    path = str(_two_games(tmp_path))
    with pytest.raises(SystemExit) as exit_info:
        replay_cli.main([path, *argv])
    assert exit_info.value.code == 2
    captured = capsys.readouterr()
    assert captured.out == ""  # nothing replayed
    assert message.replace("PATH", path) in captured.err.splitlines()[-1]


def test_replay_cli_names_a_one_game_file_in_the_singular(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from kanaloa_env.cli import replay as replay_cli

    rec = record_bot_game(Config(num_players=3), [RandomBot()] * 3, seed=5, max_steps=0)
    path = tmp_path / "one.jsonl"
    rec.save(path)
    with pytest.raises(SystemExit):
        replay_cli.main([str(path), "-i", "1"])
    assert f"--index must be in 0..0 ({path} holds 1 game)" in capsys.readouterr().err
    with pytest.raises(ValueError, match="holds 1 game; game index i must be in 0..0"):
        load_record(path, 1)
    frames = tmp_path / "frames"
    assert replay_cli.main([str(path), "--png-dir", str(frames), "--gif", str(tmp_path / "o.gif"),
                            "--scale", "0.1"]) == 0  # fmt: skip
    out = capsys.readouterr().out
    assert f"wrote 1 PNG to {frames}" in out and "(1 frame)" in out


def test_replay_cli_write_error_is_one_line_with_status_3(tmp_path: Path) -> None:
    """A picture that cannot be written after all: exit 3 (1 means the record diverges)."""
    rec = record_bot_game(Config(num_players=3), [RandomBot()] * 3, seed=5, max_steps=3)
    rec.save(tmp_path / "g.jsonl")
    frames = tmp_path / "frames"
    (frames / "step_0000.png").mkdir(parents=True)  # a directory where the first PNG goes
    proc = _replay_cli(str(tmp_path / "g.jsonl"), "--png-dir", str(frames), "--scale", "0.1")
    assert proc.returncode == 3, proc.stderr
    assert "Traceback" not in proc.stderr
    assert proc.stderr.startswith("cannot write the pictures: ")
    assert len(proc.stderr.strip().splitlines()) == 1


# ---- tampering (issue: any field replay can recompute is checked) -------------------


def _saved_game(tmp_path: Path) -> tuple[Path, list[dict]]:
    rec = record_bot_game(Config(num_players=3), [RandomBot()] * 3, seed=6)
    path = tmp_path / "g.jsonl"
    rec.save(path)
    return path, [json.loads(line) for line in path.read_text().splitlines()]


def _rewrite(path: Path, lines: list[dict]) -> None:
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))


@pytest.mark.parametrize(
    ("edit", "match"),
    [
        (lambda ls: ls[-1]["result"].update(rewards=[1.0, 0.0, -1.0]), "result 'rewards'"),
        (lambda ls: ls[-1]["result"].update(steps=3), "result 'steps'"),
        (lambda ls: ls[-1]["result"].update(bonus=1), "unknown result keys"),
        (lambda ls: ls[2].update(name="play kanaloa"), "the record names action"),
    ],
    ids=["rewards", "steps", "extra-key", "name"],
)
def test_replay_catches_edited_fields(tmp_path: Path, edit, match: str) -> None:
    path, lines = _saved_game(tmp_path)
    edit(lines)
    _rewrite(path, lines)
    with pytest.raises(ReplayError, match=match):
        replay_states(load_record(path))
    proc = _replay_cli(str(path), "--brief", "--no-pause")
    assert proc.returncode == 1 and "record diverges" in proc.stderr


def test_a_header_config_that_contradicts_its_scenario_is_rejected(tmp_path: Path) -> None:
    state = init(Config(num_players=3, nil_announcement=True), 1, seed=2)
    rec = Recorder.from_state(state)
    path = tmp_path / "s.jsonl"
    rec.record.save(path)
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    lines[0]["config"] = {}  # the scenario says nil_announcement
    _rewrite(path, lines)
    with pytest.raises(ValueError, match="line 1: the header's num_players and config"):
        load_records(path)


def test_replay_prints_names_from_a_record_with_control_characters_escaped(
    tmp_path: Path,
) -> None:
    rec = record_bot_game(Config(num_players=3), [RandomBot()] * 3, seed=6)
    rec.meta["players"] = ["evil\x1b[2J\x1b[31m", "new\nline", "ok"]
    path = tmp_path / "g.jsonl"
    rec.save(path)
    proc = _replay_cli(str(path), "--brief", "--no-pause")
    assert proc.returncode == 0, proc.stderr
    assert "\x1b" not in proc.stdout and "evil\\x1b[2J" in proc.stdout
    assert "new\\nline" in proc.stdout


def test_replay_pauses_between_steps_on_a_terminal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from kanaloa_env.cli import replay as replay_cli

    rec = record_bot_game(Config(num_players=3), [RandomBot()] * 3, seed=6)
    path = tmp_path / "g.jsonl"
    rec.save(path)
    monkeypatch.setattr(sys.stdin, "isatty", lambda: True, raising=False)
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True, raising=False)
    answers = iter(["", "", "q"])
    monkeypatch.setattr("builtins.input", lambda prompt="": next(answers))
    assert replay_cli.main([str(path), "--brief", "--color", "never"]) == 0
    out = capsys.readouterr().out
    assert "Step 1:" in out and "Step 2:" not in out  # stopped at the third pause


def test_saving_a_record_never_leaves_half_a_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A failed save (here a full disk while writing) leaves the old file as it was."""
    path, _ = _saved_game(tmp_path)
    before = path.read_bytes()
    rec = record_bot_game(Config(num_players=4), [RandomBot()] * 4, seed=9)

    def full_disk(fd: int) -> None:  # the data written so far does not fit on the disk
        raise OSError(28, "No space left on device")

    monkeypatch.setattr("kanaloa_env.core.files.os.fsync", full_disk)
    with pytest.raises(OSError, match="No space left"):
        rec.save(path)
    monkeypatch.undo()
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["g.jsonl"]  # no temporary file left
