"""The model calls in flight, so that a stop can cut them (and wait for them to end)."""

from __future__ import annotations

import asyncio

from ideaco.llm import tentative
from ideaco.llm.base import LLM, ChatRequest
from ideaco.llm.structured import StructuredAnswer, ask_structured
from ideaco.mind.thought import Thought, validate_thought

InFlight = asyncio.Future  # a model call in flight: the future of its StructuredAnswer[Thought]


def _seen(call: asyncio.Future) -> None:
    """Mark a finished call's error as retrieved (`decide` still reads it with `result()`)."""
    if not call.cancelled():
        call.exception()


async def _tentatively(
    llm: LLM, request: ChatRequest, mark: tentative.Tentative
) -> StructuredAnswer[Thought]:
    tentative.enter(mark)  # this task's context only: the stack sees a call made ahead
    # (the ask is made here: a call cut before it began leaves no coroutine never awaited)
    return await ask_structured(llm, request, validate_thought)


class Calls:
    """The model calls in flight, so that a stop can cut them (and wait for them to end)."""

    def __init__(self) -> None:
        self._calls: set[asyncio.Future] = set()

    def start(
        self, llm: LLM, request: ChatRequest, mark: tentative.Tentative | None = None
    ) -> asyncio.Future[StructuredAnswer[Thought]]:
        """Ask for a thought; with `mark`, as a tentative call (made before its moment)."""
        if mark is None:
            call = asyncio.ensure_future(ask_structured(llm, request, validate_thought))
        else:
            call = asyncio.ensure_future(_tentatively(llm, request, mark))
        self._calls.add(call)
        call.add_done_callback(self._calls.discard)
        call.add_done_callback(_seen)  # a call that fails after the run ended is not a traceback at exit
        return call

    def track(self, work: asyncio.Future) -> None:
        """Other work a stop cuts with the calls and waits for (an agent employee's command)."""
        self._calls.add(work)
        work.add_done_callback(self._calls.discard)

    def cancel(self) -> None:
        for call in list(self._calls):
            call.cancel()

    async def drain(self) -> None:
        self.cancel()
        if self._calls:
            await asyncio.gather(*self._calls, return_exceptions=True)
