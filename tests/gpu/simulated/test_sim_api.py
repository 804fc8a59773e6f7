"""The device-resident batch's API (`kanaloa_env.core.gpu`, a game's `gpu` module):
what it mirrors of the CPU engine, its explicit moves between host and device, its
checks of bad input, and the hand-over of device arrays to PyTorch without a copy."""

from __future__ import annotations

import numpy as np
import pytest

import kanaloa_env.core.kahuna as kahuna
import kanaloa_env.core.kanaloa as kanaloa
from kanaloa_env.core import gpu as core_gpu
from kanaloa_env.core.kahuna import gpu as kahuna_gpu
from kanaloa_env.core.kanaloa import gpu as kanaloa_gpu

ENGINES = [
    (kanaloa, kanaloa_gpu, kanaloa.Config(num_players=3, nil_announcement=True)),
    (kahuna, kahuna_gpu, kahuna.Config()),
]
IDS = ["kanaloa", "kahuna"]


def _first_legal(legal: np.ndarray) -> np.ndarray:
    return legal.argmax(axis=1).astype(np.int64)


@pytest.mark.parametrize(("cpu", "gpu", "cfg"), ENGINES, ids=IDS)
def test_init_from_seed_and_first_game_is_the_cpu_batch(cpu, gpu, cfg) -> None:  # type: ignore[no-untyped-def]
    dev = gpu.init(cfg, 3, seed=9, first_game=40)
    host = cpu.init(cfg, 3, seed=9, first_game=40)
    assert isinstance(dev, core_gpu.DeviceState)
    assert (dev.batch_size, dev.num_players) == (3, host.num_players)
    assert dev.to_host() == host
    assert gpu.to_host(dev) == dev.to_host()
    assert dev.array_names() == cpu.State.array_names()


@pytest.mark.parametrize(("cpu", "gpu", "cfg"), ENGINES, ids=IDS)
def test_a_blank_device_batch_follows_the_field_specification(cpu, gpu, cfg) -> None:  # type: ignore[no-untyped-def]
    blank = gpu.ENGINE.empty(cfg, 3)
    assert blank.to_host() == cpu.State.empty(cfg, 3)
    assert blank.array_names() == tuple(f.name for f in cpu.State.FIELDS)


@pytest.mark.parametrize(("cpu", "gpu", "cfg"), ENGINES, ids=IDS)
def test_a_state_moves_to_the_device_and_back_mid_game(cpu, gpu, cfg) -> None:  # type: ignore[no-untyped-def]
    host = cpu.init(cfg, 4, seed=2)
    for _ in range(15):
        cpu.step_inplace(host, _first_legal(host.legal))
    dev = gpu.to_device(host)
    assert dev.to_host() == host
    a = _first_legal(host.legal)
    gpu.step_inplace(dev, a)
    cpu.step_inplace(host, a)
    assert dev.to_host() == host
    np.testing.assert_array_equal(gpu.legal_action_mask(dev).copy_to_host(), host.legal)


@pytest.mark.parametrize(("cpu", "gpu", "cfg"), ENGINES, ids=IDS)
def test_step_leaves_its_input_alone_and_step_inplace_does_not(cpu, gpu, cfg) -> None:  # type: ignore[no-untyped-def]
    dev = gpu.init(cfg, 2, seed=1)
    before = dev.to_host()
    a = _first_legal(before.legal)
    new = gpu.step(dev, a)
    assert dev.to_host() == before
    assert new.to_host() == cpu.step(before, a)
    assert gpu.step_inplace(dev, a) is dev
    assert dev.to_host() == new.to_host()


@pytest.mark.parametrize(("cpu", "gpu", "cfg"), ENGINES, ids=IDS)
def test_the_mask_is_a_copy(cpu, gpu, cfg) -> None:  # type: ignore[no-untyped-def]
    dev = gpu.init(cfg, 2, seed=1)
    mask = gpu.legal_action_mask(dev)
    mask.copy_to_device(np.zeros(mask.shape, dtype=bool))
    assert dev.to_host().legal.any(axis=1).all()


@pytest.mark.parametrize(("cpu", "gpu", "cfg"), ENGINES, ids=IDS)
def test_observe_from_every_kind_of_seat(cpu, gpu, cfg) -> None:  # type: ignore[no-untyped-def]
    host = cpu.init(cfg, 3, seed=4)
    dev = gpu.to_device(host)
    np.testing.assert_array_equal(gpu.observe(dev).copy_to_host(), cpu.observe(host))
    np.testing.assert_array_equal(
        gpu.observe(dev, seat=1).copy_to_host(), cpu.observe(host, seat=1)
    )
    seats = np.array([1, 0, 1])
    want = cpu.observe(host, seat=seats)
    np.testing.assert_array_equal(gpu.observe(dev, seat=seats).copy_to_host(), want)
    on_device = core_gpu.to_device_array(seats.astype(np.int8))
    out = core_gpu.cuda_module().device_array(want.shape, np.float32)
    assert gpu.observe(dev, seat=on_device, out=out) is out
    np.testing.assert_array_equal(out.copy_to_host(), want)


@pytest.mark.parametrize(("cpu", "gpu", "cfg"), ENGINES, ids=IDS)
def test_reset_games_from_keys_and_a_mask(cpu, gpu, cfg) -> None:  # type: ignore[no-untyped-def]
    host = cpu.init(cfg, 4, seed=3)
    dev = gpu.to_device(host)
    for _ in range(5):
        a = _first_legal(host.legal)
        cpu.step_inplace(host, a)
        gpu.step_inplace(dev, a)
    keys = np.array([77, 88], dtype=np.uint64)
    cpu.reset_games(host, np.array([1, 3]), keys)
    gpu.reset_games(dev, np.array([False, True, False, True]), keys)
    assert dev.to_host() == host
    keys_dev = core_gpu.to_device_array(keys)
    gpu.reset_games(dev, core_gpu.to_device_array(np.array([0, 2])), keys_dev)
    cpu.reset_games(host, np.array([0, 2]), keys)
    assert dev.to_host() == host
    assert gpu.init_from_keys(cfg, keys).to_host() == cpu.init_from_keys(cfg, keys)


@pytest.mark.parametrize(("cpu", "gpu", "cfg"), ENGINES, ids=IDS)
def test_bad_actions_raise_the_cpu_engines_errors_and_change_nothing(cpu, gpu, cfg) -> None:  # type: ignore[no-untyped-def]
    dev = gpu.init(cfg, 2, seed=5)
    before = dev.to_host()
    illegal = (~before.legal).argmax(axis=1).astype(np.int64)
    with pytest.raises(ValueError) as got:
        gpu.step_inplace(dev, illegal)
    with pytest.raises(ValueError) as want:
        cpu.step_inplace(before.copy(), illegal)
    assert str(got.value) == str(want.value)
    with pytest.raises(ValueError, match="out of range"):
        gpu.step_inplace(dev, np.array([-1, 10_000]))
    with pytest.raises(TypeError, match="integers"):
        gpu.step_inplace(dev, np.array([0.0, 1.0]))
    with pytest.raises(ValueError, match=r"shape \(2,\)"):
        gpu.step_inplace(dev, np.zeros(3, dtype=np.int64))
    assert dev.to_host() == before


@pytest.mark.parametrize(("cpu", "gpu", "cfg"), ENGINES, ids=IDS)
def test_bad_arguments_are_named(cpu, gpu, cfg) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ValueError, match="batch_size"):
        gpu.init(cfg, 0)
    with pytest.raises(ValueError, match="first_game"):
        gpu.init(cfg, 2, first_game=2**64 - 1)
    with pytest.raises(TypeError, match="config"):
        gpu.init({"num_players": 3}, 2)
    with pytest.raises(ValueError, match="keys"):
        gpu.init_from_keys(cfg, np.array([1, 2], dtype=np.int64))
    dev = gpu.init(cfg, 2)
    with pytest.raises(ValueError, match="seat"):
        gpu.observe(dev, seat=7)
    with pytest.raises(TypeError, match="seat"):
        gpu.observe(dev, seat=0.5)
    with pytest.raises(ValueError, match="out"):
        gpu.observe(dev, out=np.zeros((2, 3), np.float32))
    with pytest.raises(IndexError, match="game indices"):
        gpu.reset_games(dev, np.array([5]), np.array([1], dtype=np.uint64))
    with pytest.raises(TypeError, match="DeviceState"):
        gpu.step_inplace(dev.to_host(), np.zeros(2, dtype=np.int64))
    with pytest.raises(TypeError, match="State"):
        gpu.to_device(dev)


_K1, _K2 = np.array([11], dtype=np.uint64), np.array([11, 12], dtype=np.uint64)
# (function, arguments from (state, config, legal)): the same arguments for both targets,
# the state each target's own. Good and bad arguments alike.
ARGUMENTS = [
    ("init", lambda s, c, legal: ((c, 3), {})),
    ("init", lambda s, c, legal: ((c, 0), {})),
    ("init", lambda s, c, legal: ((c, 2.0), {})),
    ("init", lambda s, c, legal: ((c, True), {})),
    ("init", lambda s, c, legal: ((c, 3), {"seed": -1})),
    ("init", lambda s, c, legal: ((c, 3), {"seed": 2**64})),
    ("init", lambda s, c, legal: ((c, 3), {"first_game": 2**64 - 2})),
    ("init", lambda s, c, legal: ((c, 3), {"first_game": np.uint64(7)})),
    ("init", lambda s, c, legal: ((None, 3), {})),
    ("init_from_keys", lambda s, c, legal: ((c, _K2), {})),
    ("init_from_keys", lambda s, c, legal: ((c, np.array([1, 2])), {})),
    ("init_from_keys", lambda s, c, legal: ((c, np.zeros(0, np.uint64)), {})),
    ("init_from_keys", lambda s, c, legal: ((c, np.ones((2, 2), np.uint64)), {})),
    ("init_from_keys", lambda s, c, legal: ((c, _K2), {"threads": 2})),
    ("init_from_keys", lambda s, c, legal: ((c, _K2), {"threads": 0})),
    ("init_from_keys", lambda s, c, legal: (({}, _K2), {})),
    ("reset_games", lambda s, c, legal: ((s, [-1], _K1), {})),
    ("reset_games", lambda s, c, legal: ((s, np.array([-4, 3]), _K2), {})),
    ("reset_games", lambda s, c, legal: ((s, [-5], _K1), {})),
    ("reset_games", lambda s, c, legal: ((s, [4], _K1), {})),
    ("reset_games", lambda s, c, legal: ((s, [1.0], _K1), {})),
    ("reset_games", lambda s, c, legal: ((s, np.array([True, False, False, True]), _K2), {})),
    ("reset_games", lambda s, c, legal: ((s, np.array([True, False]), _K1), {})),
    ("reset_games", lambda s, c, legal: ((s, [0, 2], _K1), {})),
    ("reset_games", lambda s, c, legal: ((s, [0, 2], [5, 6]), {})),
    ("reset_games", lambda s, c, legal: ((s, [], []), {})),
    ("reset_games", lambda s, c, legal: ((s, [1], _K1), {"threads": -1})),
    ("step", lambda s, c, legal: ((s, legal.argmax(1)), {})),
    ("step", lambda s, c, legal: ((s, legal.argmax(1).tolist()), {"threads": 3})),
    ("step", lambda s, c, legal: ((s, legal.argmax(1).astype(np.uint8)), {})),
    ("step", lambda s, c, legal: ((s, legal.argmax(1).astype(float)), {})),
    ("step", lambda s, c, legal: ((s, legal.argmax(1) > 0), {})),
    ("step", lambda s, c, legal: ((s, legal.argmax(1)[:3]), {})),
    ("step", lambda s, c, legal: ((s, np.array([0, 999, -1, 0])), {})),
    ("step", lambda s, c, legal: ((s, np.full(4, 2**64 - 1, np.uint64)), {})),
    ("step", lambda s, c, legal: ((s, (~legal).argmax(1)), {})),
    ("step", lambda s, c, legal: ((s, legal.argmax(1)), {"threads": 0})),
    ("step_inplace", lambda s, c, legal: ((s, legal.argmax(1)), {})),
    ("step_inplace", lambda s, c, legal: ((s, legal.argmax(1).astype(float)), {"validate": False})),
    ("step_inplace", lambda s, c, legal: ((s, legal.argmax(1)[:2]), {"validate": False})),
    ("step_inplace", lambda s, c, legal: ((s, (~legal).argmax(1)), {})),
    ("validate_actions", lambda s, c, legal: ((s, legal.argmax(1).astype(np.int32)), {})),
    ("validate_actions", lambda s, c, legal: ((s, [[0, 0, 0, 0]]), {})),
    ("observe", lambda s, c, legal: ((s,), {})),
    ("observe", lambda s, c, legal: ((s, 1), {})),
    ("observe", lambda s, c, legal: ((s, np.int8(1)), {"threads": 2})),
    ("observe", lambda s, c, legal: ((s, [0, 1, 1, 0]), {})),
    ("observe", lambda s, c, legal: ((s, -1), {})),
    ("observe", lambda s, c, legal: ((s, 7), {})),
    ("observe", lambda s, c, legal: ((s, 1.5), {})),
    ("observe", lambda s, c, legal: ((s, True), {})),
    ("observe", lambda s, c, legal: ((s, [0, 1]), {})),
    ("observe", lambda s, c, legal: ((s, 0), {"threads": 0})),
]


def _outcome(fn, *args, **kwargs):  # type: ignore[no-untyped-def]
    """("ok", result) or (the exception's type, its message)."""
    try:
        return "ok", fn(*args, **kwargs)
    except Exception as exc:
        return type(exc).__name__, str(exc)


def _on_host(value):  # type: ignore[no-untyped-def]
    if isinstance(value, core_gpu.DeviceState):
        return value.to_host()
    return core_gpu.host_array(value) if core_gpu.is_device_array(value) else value


@pytest.mark.parametrize(("cpu", "gpu", "cfg"), ENGINES, ids=IDS)
@pytest.mark.parametrize(
    ("name", "arguments"), ARGUMENTS, ids=[f"{n}-{i}" for i, (n, _) in enumerate(ARGUMENTS)]
)
def test_the_device_engine_takes_arguments_as_the_cpu_engine_does(  # type: ignore[no-untyped-def]
    cpu, gpu, cfg, name, arguments
) -> None:
    """The same arguments are taken or refused alike, with the same error; where taken,
    the results and the states agree."""
    host = cpu.init(cfg, 4, seed=3)
    cpu.step_inplace(host, _first_legal(host.legal))
    dev = gpu.to_device(host)
    legal = host.legal.copy()
    args, kwargs = arguments(host, cfg, legal)
    want = _outcome(getattr(cpu, name), *args, **kwargs)
    args, kwargs = arguments(dev, cfg, legal)
    got = _outcome(getattr(gpu, name), *args, **kwargs)
    assert got[0] == want[0]
    if want[0] != "ok":
        assert got[1] == want[1]
    else:
        result = _on_host(got[1])
        if isinstance(want[1], np.ndarray):
            np.testing.assert_array_equal(result, want[1])
        else:
            assert result == want[1]
    assert dev.to_host() == host


def test_the_engines_do_not_take_each_others_states() -> None:
    dev = kahuna_gpu.init(kahuna.Config(), 2)
    with pytest.raises(TypeError, match="kanaloa DeviceState"):
        kanaloa_gpu.observe(dev)


@pytest.mark.parametrize(("cpu", "gpu", "cfg"), ENGINES, ids=IDS)
def test_torch_sees_the_device_arrays_without_a_copy(cpu, gpu, cfg) -> None:  # type: ignore[no-untyped-def]
    torch = pytest.importorskip("torch")
    dev = gpu.init(cfg, 3, seed=8)
    obs = gpu.observe(dev)
    t = core_gpu.as_torch(obs)
    assert t.dtype == torch.float32 and tuple(t.shape) == tuple(obs.shape)
    t.zero_()  # written through to the device array: the same memory
    assert not obs.copy_to_host().any()
    assert t.device.type == ("cpu" if core_gpu.simulator() else "cuda")
    # The learner's actions as a tensor, taken without a copy either.
    legal = core_gpu.as_torch(dev.legal)
    actions = torch.argmax(legal.to(torch.int64), dim=1)
    host = dev.to_host()
    gpu.step_inplace(dev, core_gpu.from_torch(actions))
    assert dev.to_host() == cpu.step(host, _first_legal(host.legal))
