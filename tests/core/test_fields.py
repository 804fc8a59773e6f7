"""The field specification (`core.fields`): each field of each engine's state is written
once, in its game's `FIELDS`, and every derived form (the dataclass, the kernels'
structure, a blank state, a fresh game, a saved file, the docs table) follows it."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import numba
import numpy as np
import pytest
from kuhn import engine as kuhn_engine

from kanaloa_env.core import kahuna, kanaloa
from kanaloa_env.core.batch import BASE_FIELDS, GameState
from kanaloa_env.core.fields import Field, allocate, fill_of, kernel_structure, markdown, names
from kanaloa_env.core.fields import shape_of as spec_shape
from kanaloa_env.core.kahuna import state as kahuna_state
from kanaloa_env.core.kanaloa import state as kanaloa_state
from kanaloa_env.core.kernels import JIT_DISABLED

# (game, its state module or engine, configs to check)
ENGINES: list[tuple[str, Any, list[Any]]] = [
    (
        "kanaloa",
        kanaloa_state,
        [kanaloa.Config(num_players=p) for p in (3, 4, 5)],
    ),
    (
        "kahuna",
        kahuna_state,
        [kahuna.Config(), kahuna.Config(stones_per_player=12, first_player=1)],
    ),
    ("kuhn", kuhn_engine, [kuhn_engine.Config(), kuhn_engine.Config(ante=2, bet=3)]),
]
INIT = {"kanaloa": kanaloa.init, "kahuna": kahuna.init, "kuhn": kuhn_engine.init}
IDS = [name for name, _, _ in ENGINES]


@pytest.mark.parametrize(("name", "module", "configs"), ENGINES, ids=IDS)
def test_the_dataclass_fields_are_the_specification(name: str, module: Any, configs: Any) -> None:
    State = module.State
    assert [f.name for f in dataclasses.fields(State)] == ["config", *names(module.FIELDS)]
    assert State.array_names() == names(module.FIELDS)
    assert State.FIELDS == module.FIELDS
    assert dataclasses.is_dataclass(State) and State.__dataclass_params__.frozen


@pytest.mark.parametrize(("name", "module", "configs"), ENGINES[:2], ids=IDS[:2])
def test_the_kernels_structure_is_the_specification(name: str, module: Any, configs: Any) -> None:
    assert module.Arrays._fields == names(module.FIELDS)
    assert module.State.kernel_type is module.Arrays
    # numba's disk cache finds the types by module and name.
    for t in (module.Arrays, module.ArraysType, module.ArraysRef):
        assert t.__module__ == module.__name__
        assert getattr(module, t.__name__) is t
    state = module.State.empty(configs[0], 3)
    struct = state.kernel_arrays()
    if not JIT_DISABLED:  # (the named tuple itself under NUMBA_DISABLE_JIT)
        assert isinstance(struct, module.ArraysRef)
        assert tuple(numba.typeof(struct).field_dict) == names(module.FIELDS)


@pytest.mark.parametrize(("name", "module", "configs"), ENGINES, ids=IDS)
def test_blank_and_fresh_states_follow_the_specification(
    name: str, module: Any, configs: Any
) -> None:
    for config in configs:
        sizes = module.State.sizes(config)
        blank = module.State.empty(config, 5)
        fresh = INIT[name](config, 7, seed=3)
        for f in module.FIELDS:
            for state, B in ((blank, 5), (fresh, 7)):
                got = getattr(state, f.name)
                assert got.dtype == np.dtype(f.dtype), f.name
                assert got.shape == spec_shape(f, sizes, B), f.name
                assert got.flags.c_contiguous and got.flags.writeable, f.name
            assert (getattr(blank, f.name) == fill_of(f, sizes)).all(), f.name


@pytest.mark.parametrize(("name", "module", "configs"), ENGINES, ids=IDS)
def test_a_saved_file_holds_exactly_the_specified_arrays(
    name: str, module: Any, configs: Any, tmp_path: Path
) -> None:
    state = INIT[name](configs[-1], 4, seed=1)
    state.save(tmp_path / "s.npz")
    with np.load(tmp_path / "s.npz") as data:
        assert sorted(data.files) == sorted(["__config__", *names(module.FIELDS)])
    assert module.State.load(tmp_path / "s.npz").equal(state)
    # A file whose array has another dtype than the specification's is refused.
    arrays = state.arrays()
    first = module.FIELDS[1]
    arrays[first.name] = arrays[first.name].astype(np.float64)
    with np.load(tmp_path / "s.npz") as data:
        meta = data["__config__"]
    np.savez(tmp_path / "bad.npz", __config__=meta, **arrays)
    with pytest.raises(ValueError, match=f"array '{first.name}' must be {first.dtype}"):
        module.State.load(tmp_path / "bad.npz")


@pytest.mark.parametrize(("name", "module", "configs"), ENGINES, ids=IDS)
def test_the_docs_table_is_the_specification(name: str, module: Any, configs: Any) -> None:
    table = markdown(module.FIELDS)
    assert table in (module.State.__doc__ or "")
    assert len(table.splitlines()) == 2 + len(module.FIELDS)
    for f in module.FIELDS:
        assert f"| {f.name} | (B" in table and f.meaning in table


@pytest.mark.parametrize(("name", "module", "configs"), ENGINES, ids=IDS)
def test_every_symbol_of_the_specification_has_a_size(name: str, module: Any, configs: Any) -> None:
    for config in configs:
        sizes = module.State.sizes(config)
        for f in module.FIELDS:
            for value in (*f.shape, f.fill):
                if isinstance(value, str):
                    assert value in sizes, (f.name, value)
                    assert isinstance(sizes[value], int)
        assert sizes["A"] == module.State.empty(config, 1).legal.shape[1]


def test_allocate_takes_any_allocator() -> None:
    """A GPU copy allocates its arrays from the same specification with its own `full`."""
    config = kanaloa.Config(num_players=5)
    calls: list[tuple[tuple[int, ...], Any, np.dtype[Any]]] = []

    def full(shape: tuple[int, ...], fill: Any, dtype: np.dtype[Any]) -> np.ndarray:
        calls.append((shape, fill, dtype))
        return np.full(shape, fill, dtype)

    got = allocate(kanaloa_state.FIELDS, kanaloa_state.sizes(config), 6, full=full)
    want = kanaloa.State.empty(config, 6)
    assert list(got) == list(names(kanaloa_state.FIELDS))
    assert all(isinstance(d, np.dtype) for _, _, d in calls)
    assert ((6, 12), np.True_, np.dtype(bool)) in calls  # `present`: N = 12 at 5 players
    assert ((6,), np.uint16((1 << 12) - 1), np.dtype(np.uint16)) in calls  # `present_slots`
    assert want.equal(kanaloa.State(config, **got))


def test_an_unknown_symbol_is_named() -> None:
    field = Field("x", "int8", ("Q",), 0, "")
    with pytest.raises(KeyError, match="'Q' is not one of the sizes"):
        spec_shape(field, {"P": 2}, 1)


def _fields(**changes: Field | None) -> list[Field]:
    base = {f.name: f for f in BASE_FIELDS}
    base.update(changes)  # type: ignore[arg-type]
    return [f for f in base.values() if f is not None]


def _sizes(config: Any) -> dict[str, int]:
    return {"P": 2, "A": 3}


def test_a_state_without_a_base_field_is_refused() -> None:
    with pytest.raises(TypeError, match="field 'legal' must be bool of shape \\(B, A\\)"):

        class NoMask(GameState, fields=_fields(legal=None), sizes=_sizes):
            pass

    wrong = Field("winner", "int64", (), -1, "")
    with pytest.raises(TypeError, match="field 'winner' must be int8"):

        class WideWinner(GameState, fields=_fields(winner=wrong), sizes=_sizes):
            pass


def test_a_field_declared_twice_is_refused() -> None:
    with pytest.raises(TypeError, match="unique"):

        class Twice(GameState, fields=[*_fields(), BASE_FIELDS[0]], sizes=_sizes):
            pass

    with pytest.raises(TypeError, match=r"fields \['cards'\] are declared in the class body"):

        class Body(GameState, fields=_fields(), sizes=_sizes):
            cards: np.ndarray

    with pytest.raises(TypeError, match="needs sizes="):

        class NoSizes(GameState, fields=_fields()):
            pass


def test_a_minimal_state_works_without_ceremony() -> None:
    """The base fields and a config make a state: equality, copies, a blank batch."""

    class Tiny(GameState, fields=_fields(), sizes=_sizes):
        """Tiny."""

    a = Tiny.empty("any config", 3)
    b = a.copy()
    assert a == b and a is not b and a.config == "any config"
    b.winner[0] = 1
    assert a != b
    assert a.num_players == 2 and a.batch_size == 3 and a.legal.shape == (3, 3)
    assert (a.current_player == -1).all() and not a.done.any()


def test_kernel_structure_names_its_types_in_the_module() -> None:
    arrays, type_class, proxy = kernel_structure(__name__, BASE_FIELDS)
    assert arrays._fields == names(BASE_FIELDS)
    assert (type_class.__module__, type_class.__name__) == (__name__, "ArraysType")
    assert (proxy.__module__, proxy.__name__) == (__name__, "ArraysRef")
