"""The field specification of a game's batched state: each array written down once.

A game lists its state's arrays as `FIELDS`, a tuple of `Field` (name, dtype, shape
after the batch axis, fill value of a blank state, one line of meaning), and says
what the symbols of those shapes and fills are for a config (`sizes(config)`: for
Kanaloa `{"P": 4, "N": 12, ...}`). Everything else is derived from the two: the state
dataclass's fields and their order (`batch.GameState`), the named tuple and structure
the compiled kernels take (`kernel_structure`), a blank batch (`allocate`, with any
array allocator: numpy's `np.full` here, a device library's `full` for a GPU copy),
the dtype and shape checks of a loaded file, and the table of the docs (`markdown`).

```python
from kanaloa_env.core.fields import allocate
from kanaloa_env.core.kanaloa.state import FIELDS, sizes

arrays = allocate(FIELDS, sizes(config), batch_size=8192)   # {name: np.ndarray}
arrays = allocate(FIELDS, sizes(config), 8192, full=cupy.full)  # the same on a GPU
```
"""

from __future__ import annotations

import collections
from collections.abc import Callable, Mapping, Sequence
from typing import Any, NamedTuple, cast

import numpy as np

from .kernels import struct_types

Size = int | str
"""One axis of a field's shape after the batch axis, or its fill value: a number, or
the name of an entry of the game's `sizes(config)`."""


class Field(NamedTuple):
    """One array of a batched state: `(B, *shape)` of `dtype`, blank as `fill`."""

    name: str
    dtype: str  # a numpy dtype name: "int8", "uint64", "bool", "float32", ...
    shape: tuple[Size, ...]  # the axes after the batch axis B: ints or names of sizes
    fill: int | float | bool | str  # a blank state's value: a number or a name of sizes
    meaning: str  # one line, with the rule ids it implements


def names(fields: Sequence[Field]) -> tuple[str, ...]:
    """The names of `fields`, in order."""
    return tuple(f.name for f in fields)


def _resolve(value: Size, sizes: Mapping[str, int], what: str) -> int:
    if isinstance(value, str):
        if value not in sizes:
            raise KeyError(f"{what}: {value!r} is not one of the sizes {sorted(sizes)}")
        return int(sizes[value])
    return value


def shape_of(field: Field, sizes: Mapping[str, int], batch_size: int) -> tuple[int, ...]:
    """The shape `(B, ...)` of `field` for a config's `sizes`, B the `batch_size`."""
    return (batch_size, *(_resolve(d, sizes, f"field {field.name!r}") for d in field.shape))


def fill_of(field: Field, sizes: Mapping[str, int]) -> Any:
    """The value of `field` in a blank state, as a scalar of its dtype (`sizes`: the
    config's sizes, which a fill may name)."""
    value = field.fill
    if isinstance(value, str):
        value = _resolve(value, sizes, f"fill of field {field.name!r}")
    return np.dtype(field.dtype).type(value)


def resolve(fields: Sequence[Field], sizes: Mapping[str, int]) -> tuple[Resolved, ...]:
    """Each of `fields`' shape after the batch axis, fill value and dtype for a config's
    `sizes`, in order: what `allocate` needs, worked out once."""
    return tuple(
        Resolved(f.name, shape_of(f, sizes, 0)[1:], fill_of(f, sizes), np.dtype(f.dtype))
        for f in fields
    )


class Resolved(NamedTuple):
    """A field for one config: its name, shape after the batch axis, fill and dtype."""

    name: str
    shape: tuple[int, ...]
    fill: Any
    dtype: np.dtype[Any]


def allocate(
    fields: Sequence[Field] | Sequence[Resolved],
    sizes: Mapping[str, int],
    batch_size: int,
    full: Callable[[tuple[int, ...], Any, np.dtype[Any]], Any] = np.full,
) -> dict[str, Any]:
    """A blank batch of `batch_size` games: `{name: full(shape, fill, dtype)}` for every
    field, in order.

    `full` allocates one array (numpy's by default; `cupy.full`, or a wrapper of
    `torch.full` that maps the numpy dtype, gives device arrays of the same layout).
    `fields` may also be `resolve`'s output for these sizes (then `sizes` is unused).
    """
    if fields and isinstance(fields[0], Resolved):
        done = cast("tuple[Resolved, ...]", tuple(fields))
    else:
        done = resolve(cast("Sequence[Field]", fields), sizes)
    out = {}
    for name, shape, fill, dtype in done:
        if full is np.full and not fill:
            out[name] = np.zeros((batch_size, *shape), dtype)  # (faster than np.full)
        else:
            out[name] = full((batch_size, *shape), fill, dtype)
    return out


def markdown(fields: Sequence[Field]) -> str:
    """The fields as a Markdown table (field, shape and dtype, blank value, meaning)."""

    rows = ["| field | shape, dtype | blank | meaning |", "|---|---|---|---|"]
    for f in fields:
        shape = ", ".join(["B", *map(str, f.shape)])
        shape = f"({shape},)" if not f.shape else f"({shape})"
        rows.append(f"| {f.name} | {shape} {np.dtype(f.dtype).name} | {f.fill} | {f.meaning} |")
    return "\n".join(rows)


def kernel_structure(module: str, fields: Sequence[Field]) -> tuple[type, type, type]:
    """The types the compiled kernels take a state's arrays as, for a game's state
    module `module` (its `__name__`): a named tuple `Arrays` of the fields in order,
    the numba type `ArraysType` and its proxy `ArraysRef` (`kernels.define_struct`).

    The module must bind the three under these names at its top level: numba's disk
    cache finds the types again by module and name.
    """
    arrays = collections.namedtuple("Arrays", names(fields), module=module)  # type: ignore[misc]
    arrays.__doc__ = "The arrays of a `State` as the compiled kernels take them, in order."
    return (arrays, *struct_types(module, "Arrays", names(fields)))
