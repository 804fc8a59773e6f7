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
