"""Files written whole or not at all: write beside the target, then rename over it.

A reader never sees half a file, an interrupted or failed write (Ctrl-C, a full
disk) leaves the old file as it was, and the partial file is removed.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator


@contextlib.contextmanager
def atomic_write_path(path: str | os.PathLike[str]) -> Iterator[str]:
    """Yield a temporary path in `path`'s folder; on success rename it to `path`.

    On any exception (KeyboardInterrupt included) the temporary file is removed and
    `path` is untouched.
    """
    target = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(target))
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix="-" + os.path.basename(target), dir=folder)
    os.close(fd)
    try:
        yield tmp
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def atomic_write_text(path: str | os.PathLike[str], text: str) -> None:
    """Write `text` (UTF-8) to `path` whole or not at all."""
    with atomic_write_path(path) as tmp, open(tmp, "w", encoding="utf-8") as fh:
        fh.write(text)
        fh.flush()
        os.fsync(fh.fileno())


def atomic_write_bytes(path: str | os.PathLike[str], data: bytes) -> None:
    """Write `data` to `path` whole or not at all."""
    with atomic_write_path(path) as tmp, open(tmp, "wb") as fh:
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())


def check_output_dir(
    path: str | os.PathLike[str], overwrite: bool, make_parents: bool = False
) -> None:
    """ValueError if `path` cannot receive a run's files: it is a file, its parent folder
    does not exist (unless `make_parents`: then no file may stand in the way), or it is a
    folder that holds files and `overwrite` is False (a run's folder never mixes two
    runs' files)."""
    target = os.fspath(path)
    if os.path.exists(target) and not os.path.isdir(target):
        raise ValueError(f"{target!r} exists and is not a directory")
    parent = os.path.dirname(os.path.abspath(target))
    if not make_parents and not os.path.isdir(parent):
        raise ValueError(f"the directory {parent!r} for {target!r} does not exist")
    above = parent
    while not os.path.exists(above):
        above = os.path.dirname(above)
    if not os.path.isdir(above):
        raise ValueError(f"{above!r} exists and is not a directory")
    if os.path.isdir(target) and os.listdir(target) and not overwrite:
        raise ValueError(
            f"{target!r} already holds files (of an earlier run?); choose another directory "
            "or allow overwriting it"
        )


@contextlib.contextmanager
def atomic_output_dir(
    path: str | os.PathLike[str], overwrite: bool = False, make_parents: bool = False
) -> Iterator[str]:
    """Yield a fresh temporary folder beside `path`; on success it replaces `path` whole.

    So a folder of results is never half written and never mixes two runs: an error
    or Ctrl-C while writing leaves `path` as it was. With `overwrite`, an existing
    `path` is replaced (its old files are removed); without it a non-empty `path`
    is a ValueError (see `check_output_dir`). `make_parents` creates missing parent
    folders.
    """
    import shutil

    target = os.path.abspath(os.fspath(path))
    check_output_dir(target, overwrite, make_parents)
    parent, name = os.path.split(target)
    os.makedirs(parent, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix=f".{name}.tmp-", dir=parent)
    old = None
    try:
        yield tmp
        if os.path.isdir(target):
            old = tempfile.mkdtemp(prefix=f".{name}.old-", dir=parent)
            os.rmdir(old)
            os.replace(target, old)
        os.replace(tmp, target)
    except BaseException:
        if old is not None and not os.path.exists(target):
            os.replace(old, target)  # put the earlier run back
            old = None
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)
