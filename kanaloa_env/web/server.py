"""`python -m kanaloa_env.web`: serve the page (see `kanaloa_env.web`) with uvicorn.

Prints the address to open, serves until Ctrl-C (SIGINT) or SIGTERM, then says so and
exits 0: requests under way get 5 s to finish. Exit status 2 for a bad command line (a
policy file that is not a readable `.npz`, a record folder that does not exist, a port
in use, a limit that is not positive) or a missing `web` extra. The limits on what a
request, a page and all pages may take are flags (`limits.FLAGS`, docs/web.md).
"""

from __future__ import annotations

import argparse
import dataclasses
import ipaddress
import signal
import socket
import sys
from collections.abc import Sequence
from typing import Any

from .limits import FLAGS, Limits

__all__ = ["exposure_warning", "main"]

_LOCAL = ("127.0.0.1", "localhost", "::1")


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def exposure_warning(host: str, port: int, record_dirs: Sequence[str]) -> str | None:
    """What listening on `host` at `port` exposes (games, and the files of `record_dirs`),
    or None for a loopback address."""
    if _is_loopback(host):
        return None
    folders = ", ".join(record_dirs) if record_dirs else "none given"
    where = f"{host}:{port}" if port else f"{host} (a free port)"
    return (
        f"WARNING: listening on {where}, not only on this machine: anyone who can reach "
        "that address can, without any login, play and watch games here (using this "
        "machine's CPU), read every record file (*.jsonl) in the --records folders "
        f"({folders}) and download the records of the games played. Use --host 127.0.0.1 "
        "(the default) unless that is what you want."
    )


def _build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        prog="python -m kanaloa_env.web",
        description="Play and watch the package's games in the browser (a local web page).",
    )
    ap.add_argument(
        "--host",
        default="127.0.0.1",
        help="the address to listen on (default 127.0.0.1: this machine only); another "
        "address opens the page to the network, without any login",
    )
    ap.add_argument(
        "--port", type=int, default=8000, help="the port (default 8000; 0: any free port)"
    )
    ap.add_argument(
        "--records",
        action="append",
        default=[],
        metavar="DIR",
        help="a folder whose record files (*.jsonl, sub-folders too) the page may open; "
        "repeat for more (the page can always upload a record file)",
    )
    ap.add_argument(
        "--policy",
        action="append",
        default=[],
        metavar="FILE.npz",
        help="a policy file (.npz, weights only) the page may seat as a bot; repeat for "
        "more. Model .zip files are refused: they are unpickled when they load",
    )
    limits = ap.add_argument_group("limits (docs/web.md)")
    defaults = Limits()
    for flag, name, unit, scale, text in FLAGS:
        default = getattr(defaults, name) / scale
        limits.add_argument(
            flag,
            type=float,
            default=default,
            metavar=unit.upper().replace(" ", "_"),
            help=f"{text} (default {default:g} {unit})",
        )
    return ap


def limits_of(args: argparse.Namespace) -> Limits:
    """The `Limits` the command line's flags give.

    Raises:
        ValueError: a limit that is not positive, or more games per tab than in all.
    """
    values: dict[str, Any] = {}
    for flag, name, _, scale, _ in FLAGS:
        value = getattr(args, flag.lstrip("-").replace("-", "_")) * scale
        kind = type(getattr(Limits, name))
        if kind is int:
            if value != int(value):
                raise ValueError(f"{flag} must be a whole number, got {value / scale:g}")
            value = int(value)
        if not value > 0:
            raise ValueError(f"{flag} must be positive, got {value / scale:g}")
        values[name] = value
    return dataclasses.replace(Limits(), **values)


class _Stop(Exception):
    """SIGTERM, raised where the server stops (as Ctrl-C raises KeyboardInterrupt)."""


def _on_sigterm(signum: int, frame: Any) -> None:
    raise _Stop


def main(argv: Sequence[str] | None = None) -> int:
    """The command line, with `argv` as its arguments (default: `sys.argv[1:]`); returns the
    exit status."""
    ap = _build_parser()
    args = ap.parse_args(argv)
    if not 0 <= args.port < 65536:
        ap.error(f"--port must be in 0..65535, got {args.port}")
    try:
        limits = limits_of(args)
    except ValueError as e:
        ap.error(str(e))
    try:
        import uvicorn

        from .app import create_app
        from .timeouts import uvicorn_config
    except ImportError as e:
        print(
            f"python -m kanaloa_env.web needs the 'web' extra ({e}): "
            'pip install -e ".[web]"  (or pip install "kanaloa_env[web]")',
            file=sys.stderr,
        )
        return 2
    from .session import Catalogue

    try:
        catalogue = Catalogue.from_paths(args.policy, args.records, limits.max_record_bytes)
    except ValueError as e:
        ap.error(str(e))
    warning = exposure_warning(args.host, args.port, args.records)
    if warning:
        print(warning, file=sys.stderr, flush=True)
    try:
        sock = socket.create_server(
            (args.host, args.port), family=socket.AF_INET6 if ":" in args.host else socket.AF_INET
        )
    except OSError as e:
        ap.error(f"cannot listen on {args.host}:{args.port}: {e.strerror or e}")
    port = sock.getsockname()[1]
    local = _is_loopback(args.host)
    hosts = list(_LOCAL) if local else ["*"]
    if not local and args.host not in ("0.0.0.0", "::"):
        hosts = [args.host, *_LOCAL]
    app = create_app(catalogue, allowed_hosts=hosts, limits=limits)
    shown = f"[{args.host}]" if ":" in args.host else args.host
    if args.host in ("0.0.0.0", "::"):
        shown = "127.0.0.1" if args.host == "0.0.0.0" else "[::1]"
    print(f"kanaloa_env web: open http://{shown}:{port}/  (Ctrl-C stops the server)", flush=True)
    # Ctrl-C or SIGTERM: requests under way get 5 s to finish (they take milliseconds).
    server = uvicorn.Server(uvicorn_config(app, limits, timeout_graceful_shutdown=5))
    # uvicorn catches both signals, stops, then raises them again with the handlers it
    # found: Ctrl-C's raises KeyboardInterrupt, and this one _Stop (the default would end
    # the process by the signal, before the line below).
    previous = signal.signal(signal.SIGTERM, _on_sigterm)
    try:
        server.run(sockets=[sock])
    except (KeyboardInterrupt, _Stop):
        pass
    finally:
        signal.signal(signal.SIGTERM, previous)
        sock.close()
    print("kanaloa_env web: stopped", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
