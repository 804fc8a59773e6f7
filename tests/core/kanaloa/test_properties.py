"""Properties over thousands of random games, checked against `tests/reference.py`.

Hypothesis draws configs and seeds; each example plays a small batch of random
games to the end and checks, at every decision of every game: the shipped
invariants (`kanaloa_env.testing.check_invariants`: cards conserved, one boat per
non-start field, mask non-empty exactly while not over, ...), the mask against the
scalar reference, trump and suit to follow, progress gaps (R9.1), the outcome of
every trick (winner, move, lapping, dolphin), the whole position and the rewards
after the step against the reference's `step` (every phase: dolphin decisions,
payouts, round changes, truncation, R10), scenario round trips; and at the end
that every game ended or was truncated and every winner lapped the last boat.
`-m slow` adds a longer soak.
"""

from __future__ import annotations

import numpy as np
import pytest
import reference as ref
from hypothesis import given, settings
from hypothesis import strategies as st

from kanaloa_env.core.kanaloa import Config, State, from_scenario, init, step, to_scenario
from kanaloa_env.core.kanaloa.constants import CARD_NAMES, NUM_ACTIONS, SUIT_NAMES
from kanaloa_env.core.kanaloa.tricks import trick_winner
from kanaloa_env.testing import check_invariants, random_playthrough

configs = st.builds(
    Config,
    num_players=st.sampled_from([3, 4, 5]),
    nil_announcement=st.booleans(),
    announced_boat_moves=st.booleans(),
    dolphin=st.sampled_from(["optional", "automatic"]),
    dolphin_chain=st.booleans(),
    max_rounds=st.sampled_from([1, 3, 100]),
    reward=st.sampled_from(["win_loss", "rank"]),
)
seeds = st.integers(min_value=0, max_value=2**63)


# ---- per-game action streams: game i's choices depend only on (seed, i, step) ------

_M = np.uint64(0xFFFFFFFFFFFFFFFF)


def _mix(x: np.ndarray) -> np.ndarray:
    """SplitMix64 finaliser (test-local, so the actions owe nothing to the engine)."""
    with np.errstate(over="ignore"):
        x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return (x ^ (x >> np.uint64(31))) & _M


def choose(legal: np.ndarray, game_ids: np.ndarray, t: int, seed: int) -> np.ndarray:
    """(B,) a uniformly random legal action per game, from a hash of (seed, game, t, a)."""
    with np.errstate(over="ignore"):
        base = _mix(np.uint64(seed) * np.uint64(0x9E3779B97F4A7C15) + game_ids.astype(np.uint64))
        base = _mix(base * np.uint64(1_000_003) + np.uint64(t))
        score = _mix(base[:, None] * np.uint64(67) + np.arange(NUM_ACTIONS, dtype=np.uint64))
    score = np.where(legal, score, 0)
    return np.argmax(score, axis=1)


def play(cfg: Config, batch: int, seed: int, first_game: int = 0, max_steps: int = 5000):
    """Yield (t, state before, actions, state after) of random games until all are done."""
    s = init(cfg, batch, seed=seed, first_game=first_game)
    ids = np.arange(first_game, first_game + batch)
    for t in range(max_steps):
        if s.done.all():
            return
        a = choose(s.legal, ids, t, seed)
        new = step(s, a)
        yield t, s, a, new
        s = new
    raise AssertionError(f"games still running after {max_steps} decisions (R9.4)")


# ---- the per-position checks against the reference ------------------------------


def check_position(state: State, i: int, sc: dict) -> None:
    """One game of a batch against the reference, read through its scenario."""
    want = ref.legal_actions(sc)
    got = set(np.flatnonzero(state.legal[i]).tolist())
    assert got == want, f"mask of game {i} in {sc['phase']}: engine {got}, reference {want}"
    assert bool(want) == (sc["phase"] != "game_over")
    if sc["phase"] == "game_over":
        if sc["winner"] is not None:  # R9.2: the winner lapped the last boat
            assert ref.has_lapped(sc, sc["winner"])
        return
    # R8/R5.5: trump is the leading boat's colour (boats do not move within a trick).
    assert SUIT_NAMES[state.trump[i]] == ref.trump_colour(sc)
    led = ref.lead_suit([t["card"] for t in sc["trick"]])
    assert (SUIT_NAMES[state.lead_suit[i]] if state.lead_suit[i] >= 0 else None) == led
    # R9.1: progress differences are the distances ahead of the last boat.
    prog = [b["progress"] for b in sc["boats"]]
    assert [p - min(prog) for p in prog] == ref.gaps(sc)
    assert max(prog) - min(prog) < len(ref.fields(sc))  # nobody has lapped yet


def check_whole_step(before: dict, action: int, after: dict, rewards: np.ndarray) -> None:
    """The position and rewards after `action` are the reference's `step`; after a
    new deal, all but the dealt hands."""
    want, want_rewards, dealt = ref.step(before, action)
    if dealt:
        after = {k: v for k, v in after.items() if k != "hands"}
        want = {k: v for k, v in want.items() if k != "hands"}
    diff = sorted(k for k in want.keys() | after.keys() if want.get(k) != after.get(k))
    assert not diff, f"{before['phase']} action {action}: " + "; ".join(
        f"{k}: engine {after.get(k)}, reference {want.get(k)}" for k in diff
    )
    np.testing.assert_allclose(rewards, want_rewards, rtol=0, atol=1e-6)


def check_game_run(cfg: Config, batch: int, seed: int) -> int:
    """Play random games checking everything; returns the positions checked."""
    checked = 0
    final = None
    previous: dict[int, dict] = {}  # each live game's scenario before this step
    for t, before, actions, after in play(cfg, batch, seed):
        if t == 0:
            for i in range(batch):
                previous[i] = to_scenario(before, i)
                check_position(before, i, previous[i])
        check_invariants(after)
        # Progress never decreases, except when an ocean card is removed (R9.1).
        removed = before.present.sum(axis=1) != after.present.sum(axis=1)
        assert not ((after.progress < before.progress).any(axis=1) & ~removed).any()
        for i in np.flatnonzero(~before.done):
            sc_before, sc_after = previous[i], to_scenario(after, i)
            a = int(actions[i])
            check_whole_step(sc_before, a, sc_after, after.rewards[i])
            check_position(after, i, sc_after)
            if (t + i) % 11 == 0:  # scenario round trip at a sample of positions
                assert to_scenario(from_scenario(sc_after), 0) == sc_after
            previous[i] = sc_after
            checked += 1
        final = after
    assert final is not None and final.done.all()
    assert (final.terminated ^ final.truncated).all()
    # R9.4: truncation only after max_rounds rounds.
    assert (final.round[final.truncated] == cfg.max_rounds).all()
    return checked


@given(cfg=configs, seed=seeds)
@settings(max_examples=15)
def test_random_games_match_the_reference(cfg: Config, seed: int) -> None:
    assert check_game_run(cfg, batch=6, seed=seed) > 0


@pytest.mark.slow
@given(cfg=configs, seed=seeds)
@settings(max_examples=300)
def test_random_games_match_the_reference_soak(cfg: Config, seed: int) -> None:
    assert check_game_run(cfg, batch=16, seed=seed) > 0


def test_thousands_of_games_keep_the_invariants() -> None:
    """The shipped checker over 1000+ games of every table size (R1-R10)."""
    total = 0
    for p in (3, 4, 5):
        for nil in (False, True):
            stats = random_playthrough(
                Config(num_players=p, nil_announcement=nil), num_games=192, seed=p, check_every=20
            )
            assert stats.terminated + stats.truncated == 192
            total += stats.games
    assert total >= 1000


# ---- trick winner against the reference ----------------------------------------

tiki = st.sampled_from([c for c in CARD_NAMES if c not in ("kanaloa", "octopus")])
any_card = st.one_of(tiki, tiki, tiki, st.sampled_from(["kanaloa", "octopus"]))


@given(
    tricks=st.lists(
        st.lists(any_card, min_size=3, max_size=5).filter(
            lambda cs: (
                cs.count("octopus") <= 2
                and cs.count("kanaloa") <= 3
                and any(c != "octopus" for c in cs)
            )
        ),
        min_size=1,
        max_size=200,
    ),
    trump=st.sampled_from(SUIT_NAMES),
)
@settings(max_examples=60)
def test_trick_winner_matches_the_reference(tricks: list[list[str]], trump: str) -> None:
    for P in (3, 4, 5):
        batch = [cs for cs in tricks if len(cs) == P]
        if not batch:
            continue
        cards = np.array([[CARD_NAMES.index(c) for c in cs] for cs in batch])
        led = [ref.lead_suit(cs) for cs in batch]
        lead = np.array([SUIT_NAMES.index(s) if s else -1 for s in led], dtype=np.int8)
        got = trick_winner(cards, np.full(len(batch), SUIT_NAMES.index(trump), np.int8), lead)
        want = [ref.trick_winner(cs, trump) for cs in batch]
        assert got.tolist() == want, [
            cs for cs, g, w in zip(batch, got, want, strict=True) if g != w
        ]


# ---- determinism and batch-size independence ------------------------------------


def final_state(
    cfg: Config, batch: int, seed: int, first_game: int = 0, stop: int | None = None
) -> tuple[State, np.ndarray]:
    """The state after `stop` decisions (or at the end) and each game's summed rewards.

    The state's own `rewards` (those of the last step) are zeroed: a batch that
    ends earlier keeps its last step's rewards, a bigger one has stepped on.
    """
    total = np.zeros((batch, cfg.num_players))
    s = None
    for t, _, _, after in play(cfg, batch, seed, first_game):
        s = after
        total += after.rewards
        if stop is not None and t + 1 == stop:
            break
    return s.replace(rewards=np.zeros_like(s.rewards)), total


@given(seed=seeds, cfg=configs)
@settings(max_examples=5)
def test_same_seed_gives_identical_games(seed: int, cfg: Config) -> None:
    a, ra = final_state(cfg, 8, seed)
    b, rb = final_state(cfg, 8, seed)
    assert a.equal(b) and np.array_equal(ra, rb)
    assert not init(cfg, 8, seed=seed).equal(init(cfg, 8, seed=seed + 1))


@pytest.mark.parametrize("stop", [40, 150, None], ids=["t40", "t150", "end"])
def test_game_i_is_independent_of_the_batch_size(stop: int | None) -> None:
    """Game i of a batch seeded s is the same game in batches of 1, 7 and 64."""
    cfg = Config(num_players=4, nil_announcement=True)
    seed = 2024
    big, big_r = final_state(cfg, 64, seed, stop=stop)
    mid, mid_r = final_state(cfg, 7, seed, stop=stop)
    assert mid.equal(big.take(np.arange(7)))
    np.testing.assert_array_equal(mid_r, big_r[:7])
    for i in (0, 3, 6, 41, 63):
        one, one_r = final_state(cfg, 1, seed, first_game=i, stop=stop)
        assert one.equal(big.take([i])), f"game {i}"
        np.testing.assert_array_equal(one_r[0], big_r[i])
    if stop is None:
        assert big.done.all() and (np.abs(big_r).sum(axis=1) > 0).all()  # all won (R10)
