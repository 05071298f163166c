"""Standard input's lines for the chat, read on a daemon thread and fed to the event loop."""

from __future__ import annotations

import asyncio
import codecs
import os
import sys
import threading


def start_reader(loop: asyncio.AbstractEventLoop, lines: asyncio.Queue[str | None]) -> None:
    """Feed standard input's lines to `lines` from a daemon thread (None at end of input).

    `os.read` on the descriptor works for pipes, files and terminals alike, and holds no Python
    I/O lock, so a reader still blocked when the chat ends cannot hang the interpreter's exit.
    """

    def put(item: str | None) -> bool:
        try:
            loop.call_soon_threadsafe(lines.put_nowait, item)
            return True
        except RuntimeError:  # the loop is gone: the chat is over
            return False

    def read() -> None:
        try:
            fd = sys.stdin.fileno()
        except (AttributeError, ValueError, OSError):  # no descriptor (a test harness's stream)
            stream = sys.stdin
            for line in iter(stream.readline, "") if stream is not None else ():
                if not put(line.rstrip("\n")):
                    return
            put(None)
            return
        decoder = codecs.getincrementaldecoder("utf-8")("replace")
        pending = ""
        while True:
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                chunk = b""
            pending += decoder.decode(chunk, final=not chunk)
            *complete, pending = pending.split("\n")
            for line in complete:
                if not put(line):
                    return
            if not chunk:
                if pending:
                    put(pending)
                put(None)
                return

    threading.Thread(target=read, name="ideaco-chat-stdin", daemon=True).start()
