"""``serve --workers N``: N server processes, each listening on a socket of its own.

uvicorn's own workers share one listening socket, and an event loop woken by it accepts
every connection waiting. Clients that open their keep-alive connections at once (a
proxy's pool, benchmarks/load.py's 50 clients) then often all land on one process, and
the server runs on one core while the other idles: a quarter to a third of load.py's
turns did, at half the requests per second. Here every process binds the port with
``SO_REUSEPORT``, and the kernel spreads new connections over the processes' sockets.
(Linux lets only processes of the same user share a port that way.)

This process only supervises: it holds the port bound (not listening, so it is handed no
connection) so that a port taken by another program is said at once, starts the
processes again if one dies after it has served, and ends them when it is told to end.
"""

from __future__ import annotations

import multiprocessing
import signal
import socket
import threading
import time
from typing import Any

RESTART_AFTER = 5.0  # seconds a process must have run to be started again when it dies
BACKLOG = 2048       # uvicorn's default
# A stopped server waits this long for the answers still going out, then ends them: a live
# match's followers (web.follow) hold streams open that would otherwise keep it waiting
# (sse-starlette ends them on uvicorn's signal; this bounds the rest).
GRACEFUL_SECONDS = 5


def bound(host: str, port: int) -> socket.socket:
    """A TCP socket bound to ``host:port`` that other sockets of this user may share."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    try:
        sock.bind((host, port))
    except OSError:
        sock.close()
        raise
    return sock


def _serve_one(host: str, port: int) -> None:
    import uvicorn

    sock = bound(host, port)
    sock.listen(BACKLOG)
    config = uvicorn.Config("web.cli:served_app", factory=True, host=host, port=port,
                            proxy_headers=False,  # web.access reads them (web/cli.py)
                            timeout_graceful_shutdown=GRACEFUL_SECONDS)
    uvicorn.Server(config).run(sockets=[sock])


def run(host: str, port: int, workers: int) -> int:
    """Serve with ``workers`` processes until told to end (SIGINT, SIGTERM); the exit code.
    ``OSError`` if the port cannot be bound."""
    holder = bound(host, port)
    spawn = multiprocessing.get_context("spawn")
    stop = threading.Event()

    def start() -> tuple[Any, float]:
        process = spawn.Process(target=_serve_one, args=(host, port), name="domino-ledger")
        process.start()
        return process, time.monotonic()

    def ask_to_stop(signum: int, frame: Any) -> None:
        stop.set()

    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, ask_to_stop)
    running = [start() for _ in range(workers)]
    code = 0
    try:
        while not stop.wait(0.5):
            for i, (process, since) in enumerate(running):
                if process.is_alive():
                    continue
                if time.monotonic() - since < RESTART_AFTER:  # it could not start: say so
                    code = process.exitcode or 1
                    stop.set()
                    break
                running[i] = start()
    finally:
        for process, _ in running:
            if process.is_alive():
                process.terminate()
        for process, _ in running:
            process.join(30)
            if process.is_alive():
                process.kill()
                process.join(5)
        holder.close()
    return code
