"""Compose the LLM stack in one place: Budget -> Limited -> Retrying -> Paced -> Recording -> base client.

The base client is one endpoint's `OpenAIChatLLM`, or with several endpoints a `BalancedLLM` over
one client each (the fewest calls in flight first; a failing endpoint rested), or a replay.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ideaco.llm.balanced import BalancedLLM
from ideaco.llm.base import LLM
from ideaco.llm.budget import BudgetLLM
from ideaco.llm.config import LLMSettings
from ideaco.llm.limits import LimitedLLM, PacedLLM, Pacer
from ideaco.llm.openai_chat import OpenAIChatLLM
from ideaco.llm.recording import AnswerCheck, RecordingLLM, ReplayLLM, open_record_file
from ideaco.llm.retry import RetryingLLM

if TYPE_CHECKING:  # the embedded module stays unimported unless it is needed
    from ideaco.llm.embedded import EmbeddedServer, Layout


@dataclass
class LLMStack:
    """The outermost LLM to call, its budget (for counters and the stop reason), and what to shut down."""

    llm: LLM
    budget: BudgetLLM
    settings: LLMSettings
    servers: list[EmbeddedServer] = dataclasses.field(default_factory=list)
    layout: Layout | None = None  # how the embedded model runs (None: an endpoint or a replay)
    balancer: BalancedLLM | None = None  # several endpoints
    limits: LimitedLLM | None = None  # the concurrency cap: what it let through (calls, in flight)
    replayed: ReplayLLM | None = None  # the recording a replay answers from
    recorder: RecordingLLM | None = None  # the --record file's writer

    def outside_the_run(self) -> LLM:
        """What an interview asks: past the run's budget, under its concurrency cap, and not
        counted with the run's calls (summary.json's `calls`)."""
        return self.limits.uncounted() if self.limits is not None else self.budget.inner

    def endpoint_counts(self) -> dict[str, dict[str, int]]:
        """Per endpoint: calls answered and failures ({} with one endpoint, none, or a replay)."""
        return self.balancer.counts() if self.balancer is not None else {}

    async def aclose(self) -> None:
        """Close clients and files, then stop the embedded server."""
        try:
            await self.llm.aclose()
        finally:
            self.close()

    def close(self) -> None:
        """Synchronous part of shutting down: stop the embedded servers (idempotent)."""
        servers, self.servers = self.servers, []
        for server in servers:
            server.stop()


def build_llm(
    settings: LLMSettings,
    *,
    record: Path | None = None,
    replay: Path | None = None,
    max_calls: int | None = None,
    max_tokens: int | None = None,
    concurrency: int = 2,
    requests_per_second: float | None = None,
    retry_attempts: int | None = None,
    calls: int = 0,
    tokens: int = 0,
    timeout: float | None = None,
    retry_base_delay: float | None = None,
    employees: int = 0,
    replay_checks: Mapping[str, AnswerCheck] | None = None,
) -> LLMStack:
    """Build the stack. With `replay` nothing is contacted; the embedded server starts only if needed.

    `calls`/`tokens` restore the budget counters of a resumed run. `timeout` (seconds per
    answer), `retry_attempts`, `retry_base_delay` and `requests_per_second` default to the
    settings' (environment IDEACO_TIMEOUT, IDEACO_RETRIES, IDEACO_RETRY_DELAY; --rate or IDEACO_RATE). `employees`: how many prompts the
    embedded model keeps warm (one cache slot each, unless the settings' `slots` say otherwise).
    `replay_checks`: how a replayed answer to a request of a given model is checked (by model).
    """
    timeout = settings.timeout if timeout is None else timeout
    retry_attempts = settings.retry_attempts if retry_attempts is None else retry_attempts
    retry_base_delay = settings.retry_base_delay if retry_base_delay is None else retry_base_delay
    if requests_per_second is None:
        requests_per_second = settings.requests_per_second
    # Opened first: an unwritable --record path is one line before a model starts or a call is paid.
    record_file = open_record_file(record) if record is not None else None
    servers: list[EmbeddedServer] = []
    layout: Layout | None = None
    balancer: BalancedLLM | None = None
    recorder: RecordingLLM | None = None
    base: LLM
    try:
        if replay is not None:
            base = ReplayLLM(replay, replay_checks)
        elif settings.embedded:
            from ideaco.llm.embedded import serve

            layout, servers, base, base_url = serve(settings, concurrency, employees, timeout)
            settings = dataclasses.replace(settings, base_url=base_url)
        elif len(settings.endpoints) > 1:
            note = settings.withheld_note()
            clients = [
                (url, OpenAIChatLLM(url, settings.api_key, timeout=timeout, no_key_note=note))
                for url in settings.endpoints
            ]
            base = balancer = BalancedLLM(clients, rest_s=settings.endpoint_rest)
        else:
            if not settings.base_url:
                raise ValueError("no base_url configured and not embedded")
            base = OpenAIChatLLM(
                settings.base_url, settings.api_key, timeout=timeout, no_key_note=settings.withheld_note()
            )
        llm: LLM = base
        if record is not None:
            llm = recorder = RecordingLLM(llm, record, record_file)
        if requests_per_second is not None and replay is None:  # a replay asks no one
            llm = PacedLLM(llm, Pacer(requests_per_second))
        llm = retrying = RetryingLLM(llm, attempts=retry_attempts, base_delay=retry_base_delay)
        llm = limits = LimitedLLM(llm, concurrency=concurrency)
        budget = BudgetLLM(llm, max_calls=max_calls, max_tokens=max_tokens, calls=calls, tokens=tokens)
        retrying.before_attempt = budget.sending  # each request counts as it goes out, a retry too
    except BaseException:
        for server in servers:
            server.stop()
        if record_file is not None:
            record_file.close()
        raise
    return LLMStack(
        llm=budget,
        budget=budget,
        settings=settings,
        servers=servers,
        layout=layout,
        balancer=balancer,
        limits=limits,
        replayed=base if isinstance(base, ReplayLLM) else None,
        recorder=recorder,
    )
