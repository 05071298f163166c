"""Shared fixtures of the fault-injection suite (issue 6): generic on purpose, each test file adds its own.

result = ideaco("run", scenario, "--base-url", fake.base_url, env={"IDEACO_TIMEOUT": "0.3"})
retry_sleeps                      # backoff waits, recorded instead of slept
read_jsonl(path)                  # the records of a run log
asked(body)                       # who a request to the fake endpoint asks to think, where, what
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from ideaco.cli.main import app
from ideaco.llm import retry

# No ambient endpoint, key or resilience setting may leak into a test run.
CLEAN_ENV: dict[str, str | None] = {
    name: None
    for name in (
        "IDEACO_BASE_URL",
        "OPENAI_BASE_URL",
        "OPENAI_API_KEY",
        "IDEACO_MODEL",
        "IDEACO_TIMEOUT",
        "IDEACO_RETRIES",
        "IDEACO_RETRY_DELAY",
        "IDEACO_RATE",
    )
}


@dataclass(frozen=True)
class Asked:
    """One chat request as the engine builds it: who thinks, in which scene, the prompt, a repair or not."""

    name: str
    scene: str
    system: str
    prompt: str
    repair: bool

    @property
    def unread(self) -> list[str]:
        """The chat lines marked new since the employee last looked."""
        return [line for line in self.prompt.splitlines() if line.startswith("* [")]


def asked(body: dict[str, Any]) -> Asked:
    """Parse a request body received by the fake endpoint."""
    messages = body["messages"]
    system = str(messages[0]["content"])
    prompt = str(messages[1]["content"])
    name = re.match(r"You are ([^,]+),", system)
    scene = re.search(r"## Recent messages in (.+?) \(oldest first", prompt)
    repair = len(messages) > 2 and str(messages[-1]["content"]).startswith("Your answer was not valid")
    return Asked(name.group(1) if name else "", scene.group(1) if scene else "", system, prompt, repair)


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    """Every record of a JSONL log ([] if the file is missing)."""
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


@pytest.fixture
def ideaco() -> Callable[..., Result]:
    """Invoke the `ideaco` CLI in-process with a clean environment plus `env`."""

    def invoke(*args: str | Path, env: dict[str, str] | None = None) -> Result:
        return CliRunner().invoke(app, [str(a) for a in args], env={**CLEAN_ENV, **(env or {})})

    return invoke


@pytest.fixture
def retry_sleeps(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """The waits of every retry backoff in the run, recorded instead of slept (so tests stay fast)."""
    waits: list[float] = []

    async def record(seconds: float) -> None:
        waits.append(seconds)
        await asyncio.sleep(0)

    monkeypatch.setattr(retry, "backoff_sleep", record)
    return waits
