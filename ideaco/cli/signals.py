"""Ctrl-C and SIGTERM: the run stops, saves, and the exit code says it was interrupted (130, 143).

While the office runs, the event loop's handlers turn either signal into a clean stop (the office
saves and writes its summary). Before the loop starts (loading, starting the embedded model) they
end the command at once, in one line; while the run saves, a repeated signal waits for the save.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


def exit_code(signum: int) -> int:
    """The shell's convention: 128 + the signal number (Ctrl-C 130, SIGTERM 143)."""
    return 128 + signum


class Interrupted(BaseException):
    """A stop signal arrived before the office was running: nothing to save yet.

    A BaseException, like KeyboardInterrupt: cleanup (`finally`, `except BaseException`) runs,
    ordinary `except Exception` handlers do not swallow it.
    """

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def _raise(signum: int, _frame: object) -> None:
    raise Interrupted(signum)


@contextlib.contextmanager
def interruptible() -> Iterator[None]:
    """Both signals raise `Interrupted` (start-up: loading, starting a model) until the block ends."""
    if threading.current_thread() is not threading.main_thread():  # only the main thread may
        yield
        return
    previous = {sig: signal.signal(sig, _raise) for sig in STOP_SIGNALS}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


@contextlib.contextmanager
def held() -> Iterator[list[int]]:
    """While saving: a stop signal is noted (in the yielded list), not acted on, so the save completes."""
    noted: list[int] = []
    if threading.current_thread() is not threading.main_thread():
        yield noted
        return
    previous = {sig: signal.signal(sig, lambda signum, _frame: noted.append(signum)) for sig in STOP_SIGNALS}
    try:
        yield noted
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
