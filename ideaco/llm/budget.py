"""Run-wide budget: a wrapper that refuses calls once `--max-calls` or `--max-tokens` is spent."""

from __future__ import annotations

from contextvars import ContextVar

from ideaco.llm.base import LLM, BudgetExhausted, ChatRequest, ChatResult


class _Admitted:
    """One call the budget let through: how many requests of it were sent (a retry is one more)."""

    __slots__ = ("sent",)

    def __init__(self) -> None:
        self.sent = 0


# The call the running task is making through the budget (the layers below it run in its task).
_ADMITTED: ContextVar[_Admitted | None] = ContextVar("ideaco_budget_call", default=None)


class BudgetLLM:
    """Counts calls and tokens; raises BudgetExhausted before a call once a limit is reached.

    Counters start from `calls`/`tokens` so a resumed run continues its budget (possibly with
    raised limits). A call counts once its request is sent (`sending`, which the retries call
    before each attempt: a retry is one more request), whatever becomes of it: answered, failed,
    or cut while the endpoint was answering (an early call dropped, a stop); a call cut while it
    still waited for the concurrency cap sent nothing and counts nothing. Calls let through and
    not yet sent hold their place against `max_calls`, so the endpoint never receives more than
    `max_calls` requests, however many callers run at once; a retry past it is refused. Without
    `sending` below (a bare budget), an answered call is one request. Tokens are only known
    afterwards, so `max_tokens` may be passed by the calls that were already running.
    """

    def __init__(
        self,
        inner: LLM,
        max_calls: int | None = None,
        max_tokens: int | None = None,
        calls: int = 0,
        tokens: int = 0,
    ) -> None:
        self.inner = inner
        self.max_calls = max_calls
        self.max_tokens = max_tokens
        self._calls = calls
        self._tokens = tokens
        self._waiting = 0  # let through, nothing sent yet

    @property
    def calls(self) -> int:
        """Requests sent (restored ones included)."""
        return self._calls

    @property
    def tokens(self) -> int:
        """Prompt plus completion tokens of completed calls."""
        return self._tokens

    @property
    def reason(self) -> str | None:
        """Which limit is reached, as the user set it (e.g. "--max-calls 50 reached"), or None."""
        if self.max_calls is not None and self._calls >= self.max_calls:
            return f"--max-calls {self.max_calls} reached"
        if self.max_tokens is not None and self._tokens >= self.max_tokens:
            return f"--max-tokens {self.max_tokens} reached ({self._tokens} used)"
        return None

    def _full(self) -> bool:
        """No room for one more request: those sent and those let through fill `max_calls`."""
        return self.max_calls is not None and self._calls + self._waiting >= self.max_calls

    def sending(self) -> None:
        """A request of the running call is about to be sent: it counts now (its first takes the
        place it held; a retry needs room of its own, else BudgetExhausted)."""
        admitted = _ADMITTED.get()
        if admitted is None:  # not a call through this budget
            return
        if admitted.sent == 0:
            self._waiting -= 1
        elif self._full():
            raise BudgetExhausted(f"--max-calls {self.max_calls} reached")
        admitted.sent += 1
        self._calls += 1

    async def complete(self, request: ChatRequest) -> ChatResult:
        refusal = self.reason or (f"--max-calls {self.max_calls} reached" if self._full() else None)
        if refusal is not None:  # (when full, the remaining requests are already on their way)
            raise BudgetExhausted(refusal)
        admitted = _Admitted()
        self._waiting += 1
        token = _ADMITTED.set(admitted)
        try:
            result = await self.inner.complete(request)
        finally:
            _ADMITTED.reset(token)
            if admitted.sent == 0:
                self._waiting -= 1
        if admitted.sent == 0:  # nothing below counted it: the answer is its one request
            self._calls += 1
        self._tokens += result.usage.prompt_tokens + result.usage.completion_tokens
        return result

    async def aclose(self) -> None:
        await self.inner.aclose()
