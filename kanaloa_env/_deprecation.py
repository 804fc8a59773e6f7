"""Old names kept for one release, each with a `DeprecationWarning` on use.

`renamed_keyword` keeps a renamed keyword argument working; `moved_names` gives a
module the `__getattr__` (PEP 562) that serves renamed classes and functions under
their old names. Nothing here imports the rest of the package.
"""

from __future__ import annotations

import functools
import importlib
import warnings
from collections.abc import Callable
from typing import Any, TypeVar, cast

__all__ = ["moved_names", "renamed_keyword", "warn_deprecated"]

F = TypeVar("F", bound=Callable[..., Any])


def warn_deprecated(message: str, stacklevel: int = 2) -> None:
    """A `DeprecationWarning` saying what to use instead (`stacklevel` counted from the
    caller of this function)."""
    warnings.warn(
        f"{message} (the old name goes in the next release)",
        DeprecationWarning,
        stacklevel=stacklevel + 1,
    )


def renamed_keyword(old: str, new: str) -> Callable[[F], F]:
    """A decorator: the function's parameter `new` may still be passed as the keyword
    `old`, with a DeprecationWarning (TypeError when both are given)."""

    def decorate(fn: F) -> F:
        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            if old in kwargs:
                if new in kwargs:
                    raise TypeError(f"{fn.__qualname__}() got both {old!r} and {new!r}")
                warn_deprecated(
                    f"{fn.__qualname__}(): the keyword {old!r} is now {new!r}", stacklevel=2
                )
                kwargs[new] = kwargs.pop(old)
            return fn(*args, **kwargs)

        return cast(F, wrapper)

    return decorate


def moved_names(module: str, names: dict[str, str]) -> Callable[[str], Any]:
    """A module `__getattr__` serving old names: `names` maps each old name to its new
    place, "attribute" in `module` itself or "package.module:attribute" elsewhere
    (imported on first use)."""

    def __getattr__(name: str) -> Any:
        target = names.get(name)
        if target is None:
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        where, sep, attr = target.rpartition(":")
        where = where if sep else module
        new = f"{where}.{attr}"
        warn_deprecated(f"{module}.{name} is deprecated: use {new}", stacklevel=2)
        return getattr(importlib.import_module(where), attr)

    return __getattr__
