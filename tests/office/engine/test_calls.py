"""A model call that fails after the run has ended (nobody reads it any more) leaves no
"Task exception was never retrieved" traceback at exit; one that is read still raises."""

from __future__ import annotations

import asyncio
import gc
import logging

import pytest

from ideaco.llm.base import ChatRequest, LLMError
from ideaco.office.engine.calls import Calls


class Failing:
    async def complete(self, request: ChatRequest):
        raise LLMError("replay miss")

    async def aclose(self) -> None:
        pass


REQUEST = ChatRequest(messages=({"role": "user", "content": "hi"},), model="m")


async def test_an_unread_failed_call_is_no_traceback(caplog) -> None:
    calls = Calls()
    call = calls.start(Failing(), REQUEST)
    await asyncio.wait([call])
    with caplog.at_level(logging.ERROR, logger="asyncio"):
        del call
        gc.collect()
        await asyncio.sleep(0)
    assert "never retrieved" not in caplog.text


async def test_a_read_failed_call_still_raises() -> None:
    call = Calls().start(Failing(), REQUEST)
    await asyncio.wait([call])
    with pytest.raises(LLMError):
        call.result()
