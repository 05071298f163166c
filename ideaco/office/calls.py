"""The model calls in flight, so that a stop can cut them (and wait for them to end)."""

from __future__ import annotations

import asyncio

from ideaco.llm.base import LLM, ChatRequest
from ideaco.llm.structured import StructuredAnswer, ask_structured
from ideaco.mind.thought import Thought, validate_thought


def _seen(call: asyncio.Future) -> None:
    """Mark a finished call's error as retrieved (`decide` still reads it with `result()`)."""
    if not call.cancelled():
        call.exception()


class Calls:
    """The model calls in flight, so that a stop can cut them (and wait for them to end)."""

    def __init__(self) -> None:
        self._calls: set[asyncio.Future] = set()

    def start(self, llm: LLM, request: ChatRequest) -> asyncio.Future[StructuredAnswer[Thought]]:
        call = asyncio.ensure_future(ask_structured(llm, request, validate_thought))
        self._calls.add(call)
        call.add_done_callback(self._calls.discard)
        call.add_done_callback(_seen)  # a call that fails after the run ended is not a traceback at exit
        return call

    def cancel(self) -> None:
        for call in list(self._calls):
            call.cancel()

    async def drain(self) -> None:
        self.cancel()
        if self._calls:
            await asyncio.gather(*self._calls, return_exceptions=True)
