"""`python -m kanaloa_env.web`: serve the page (see `kanaloa_env.web`) with uvicorn.

Prints the address to open, serves until Ctrl-C (or SIGTERM), then says so and exits 0.
Exit status 2 for a bad command line (a policy file that is not a readable `.npz`, a
record folder that does not exist, a port in use) or a missing `web` extra.
"""

from __future__ import annotations

import argparse
import ipaddress
import socket
import sys
from collections.abc import Sequence

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
    return ap


def main(argv: Sequence[str] | None = None) -> int:
    """The command line, with `argv` as its arguments (default: `sys.argv[1:]`); returns the
    exit status."""
    ap = _build_parser()
    args = ap.parse_args(argv)
    if not 0 <= args.port < 65536:
        ap.error(f"--port must be in 0..65535, got {args.port}")
    try:
        import uvicorn

        from .app import create_app
    except ImportError as e:
        print(
            f"python -m kanaloa_env.web needs the 'web' extra ({e}): "
            'pip install -e ".[web]"  (or pip install "kanaloa_env[web]")',
            file=sys.stderr,
        )
        return 2
    from .session import Catalogue

    try:
        catalogue = Catalogue.from_paths(args.policy, args.records)
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
    app = create_app(catalogue, allowed_hosts=hosts)
    shown = f"[{args.host}]" if ":" in args.host else args.host
    if args.host in ("0.0.0.0", "::"):
        shown = "127.0.0.1" if args.host == "0.0.0.0" else "[::1]"
    print(f"kanaloa_env web: open http://{shown}:{port}/  (Ctrl-C stops the server)", flush=True)
    server = uvicorn.Server(
        # Ctrl-C: requests under way get 5 s to finish (they take milliseconds).
        uvicorn.Config(app, log_level="warning", lifespan="off", timeout_graceful_shutdown=5)
    )
    try:
        server.run(sockets=[sock])
    except KeyboardInterrupt:  # uvicorn re-raises the Ctrl-C it handled
        pass
    finally:
        sock.close()
    print("kanaloa_env web: stopped", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
