"""Several endpoints behind one `LLM`: each call goes to the endpoint with the fewest calls in flight.

An endpoint whose call fails in a way another endpoint may not (it cannot be reached, times out,
is overloaded or rate-limits) is *rested*: no call goes to it until its rest is over (`rest_s`,
doubling with each failure in a row up to MAX_REST_S), and the call is tried at once on another
endpoint that is not resting. When every endpoint is resting, the one whose rest ends first is
tried anyway (a call is never refused for want of an endpoint), and the error of the last endpoint
tried goes up to `RetryingLLM`, which backs off and asks again. A request the endpoint rejected
(a bad request, a refused key) is not the endpoint's fault: it goes up as it is.

Per-endpoint counts (`counts()`: calls answered, failures, rests) land in summary.json.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ideaco.llm.base import LLM, ChatRequest, ChatResult, LLMError
from ideaco.llm.config import DEFAULT_ENDPOINT_REST
from ideaco.llm.retry import RETRYABLE

MAX_REST_S = 120.0


@dataclass
class Endpoint:
    """One endpoint and what the balancer knows of it."""

    name: str  # its base URL (never a key)
    llm: LLM
    in_flight: int = 0
    calls: int = 0  # calls it answered
    failures: int = 0  # calls it failed (each one rested it)
    failing: int = 0  # failures in a row (the rest doubles with each)
    rested_until: float = float("-inf")

    def resting(self, now: float) -> bool:
        return now < self.rested_until


def choose(endpoints: Sequence[Endpoint], now: float, tried: set[str]) -> Endpoint | None:
    """The endpoint for the next call: not yet tried for it, not resting, fewest in flight
    (then fewest calls answered, then the order given); if all untried ones rest, the one whose
    rest ends first; None when every endpoint has been tried."""
    untried = [e for e in endpoints if e.name not in tried]
    if not untried:
        return None
    awake = [e for e in untried if not e.resting(now)]
    if awake:
        return min(awake, key=lambda e: (e.in_flight, e.calls, endpoints.index(e)))
    return min(untried, key=lambda e: (e.rested_until, endpoints.index(e)))


def rest_for(failing: int, rest_s: float = DEFAULT_ENDPOINT_REST, max_rest_s: float = MAX_REST_S) -> float:
    """Seconds an endpoint rests after its `failing`-th failure in a row (1, 2, 3, ...)."""
    return min(rest_s * 2 ** (failing - 1), max_rest_s)


class BalancedLLM:
    """Spreads calls over several endpoints (see the module docstring)."""

    def __init__(
        self,
        endpoints: Sequence[tuple[str, LLM]],
        *,
        rest_s: float = DEFAULT_ENDPOINT_REST,
        max_rest_s: float = MAX_REST_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if not endpoints:
            raise ValueError("BalancedLLM needs at least one endpoint")
        names = [name for name, _ in endpoints]
        if len(set(names)) != len(names):
            raise ValueError(f"the same endpoint is given twice: {names}")
        self.endpoints = [Endpoint(name, llm) for name, llm in endpoints]
        self.rest_s = rest_s
        self.max_rest_s = max_rest_s
        self._clock = clock

    async def complete(self, request: ChatRequest) -> ChatResult:
        tried: set[str] = set()
        while True:
            endpoint = choose(self.endpoints, self._clock(), tried)
            assert endpoint is not None  # the loop below leaves before every endpoint is tried
            tried.add(endpoint.name)
            endpoint.in_flight += 1
            try:
                result = await endpoint.llm.complete(request)
            except LLMError as exc:
                if exc.kind not in RETRYABLE:
                    raise  # the request's fault, not the endpoint's
                endpoint.failures += 1
                endpoint.failing += 1
                endpoint.rested_until = self._clock() + rest_for(
                    endpoint.failing, self.rest_s, self.max_rest_s
                )
                if len(tried) == len(self.endpoints):
                    raise
                continue
            finally:
                endpoint.in_flight -= 1
            endpoint.calls += 1
            endpoint.failing = 0
            endpoint.rested_until = float("-inf")
            return result

    def counts(self) -> dict[str, dict[str, Any]]:
        """Per endpoint: calls answered and failures (each failure rested it)."""
        return {e.name: {"calls": e.calls, "failures": e.failures} for e in self.endpoints}

    async def aclose(self) -> None:
        errors = []
        for endpoint in self.endpoints:
            try:
                await endpoint.llm.aclose()
            except Exception as exc:  # close every client, then report the first failure
                errors.append(exc)
        if errors:
            raise errors[0]
