"""Run-wide budget: a wrapper that refuses calls once `--max-calls` or `--max-tokens` is spent."""

from __future__ import annotations

from ideaco.llm.base import LLM, BudgetExhausted, ChatRequest, ChatResult


class BudgetLLM:
    """Counts calls and tokens; raises BudgetExhausted before a call once a limit is reached.

    Counters start from `calls`/`tokens` so a resumed run continues its budget (possibly with
    raised limits). Calls still in flight count against `max_calls`, so concurrent callers
    cannot overshoot it; tokens are only known afterwards, so `max_tokens` may be passed by
    the calls that were already running.
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
        self._in_flight = 0

    @property
    def calls(self) -> int:
        """Completed calls."""
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

    def _refusal(self) -> str | None:
        reason = self.reason
        if reason is None and self.max_calls is not None and self._calls + self._in_flight >= self.max_calls:
            # The remaining calls are already running; this one would go over.
            reason = f"--max-calls {self.max_calls} reached"
        return reason

    async def complete(self, request: ChatRequest) -> ChatResult:
        refusal = self._refusal()
        if refusal is not None:
            raise BudgetExhausted(refusal)
        self._in_flight += 1
        try:
            result = await self.inner.complete(request)
        finally:
            self._in_flight -= 1
        self._calls += 1
        self._tokens += result.usage.prompt_tokens + result.usage.completion_tokens
        return result

    async def aclose(self) -> None:
        await self.inner.aclose()
