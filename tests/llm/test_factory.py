"""build_llm: the composition order, replay without endpoints, and lazy loading of the embedded model."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

from ideaco.llm import (
    BudgetLLM,
    LimitedLLM,
    OpenAIChatLLM,
    RecordingLLM,
    ReplayLLM,
    RetryingLLM,
    build_llm,
    resolve_settings,
)
from ideaco.llm.limits import PacedLLM
from tests.llm.conftest import make_request


def layers(llm) -> list[type]:
    out = []
    while llm is not None:
        out.append(type(llm))
        llm = getattr(llm, "inner", None)
    return out


async def test_order_outermost_first_with_recording(fake, tmp_path):
    fake.push('{"mood":"x","score":1}')
    settings = resolve_settings(cli_base_url=fake.base_url, env={})
    stack = build_llm(settings, record=tmp_path / "rec.jsonl", replay=None, max_calls=5, max_tokens=None)
    assert layers(stack.llm) == [BudgetLLM, LimitedLLM, RetryingLLM, RecordingLLM, OpenAIChatLLM]
    assert stack.budget is stack.llm and stack.servers == []
    await stack.llm.complete(make_request())
    sent = fake.requests[0]  # a configured endpoint gets the cascade, not the grammar
    assert sent["response_format"]["type"] == "json_schema" and "grammar" not in sent
    assert stack.budget.calls == 1
    assert len((tmp_path / "rec.jsonl").read_text().splitlines()) == 1
    await stack.aclose()


async def test_a_rate_paces_inside_the_retries_so_a_retry_is_paced_too(fake):
    settings = resolve_settings(cli_base_url=fake.base_url, env={"IDEACO_RATE": "120/min"})
    stack = build_llm(settings)
    assert layers(stack.llm) == [BudgetLLM, LimitedLLM, RetryingLLM, PacedLLM, OpenAIChatLLM]
    assert stack.llm.inner.inner.inner.pacer.interval == 0.5
    await stack.aclose()


async def test_replay_contacts_nothing_even_when_embedded(tmp_path):
    path = tmp_path / "rec.jsonl"
    request = make_request()
    line = {"key": request.key(), "response": {"content": "from file", "usage": {"prompt_tokens": 3}}}
    path.write_text(json.dumps(line) + "\n")
    stack = build_llm(resolve_settings(env={}), record=None, replay=path, max_calls=None, max_tokens=None)
    assert stack.settings.embedded and stack.servers == []
    assert layers(stack.llm)[-1] is ReplayLLM
    assert (await stack.llm.complete(request)).content == "from file"
    assert stack.budget.tokens == 3
    await stack.aclose()


async def test_restored_budget_counters(fake):
    settings = resolve_settings(cli_base_url=fake.base_url, env={})
    stack = build_llm(settings, record=None, replay=None, max_calls=10, max_tokens=None, calls=10, tokens=99)
    assert stack.budget.reason is not None and stack.budget.tokens == 99
    await stack.aclose()


def test_with_a_base_url_the_embedded_model_is_never_imported():
    code = textwrap.dedent(
        """
        import sys
        from ideaco.llm import build_llm, resolve_settings
        settings = resolve_settings(cli_base_url="http://127.0.0.1:9/v1", env={})
        stack = build_llm(settings, record=None, replay=None, max_calls=None, max_tokens=None)
        stack.close()
        print(sorted(m for m in ("xllamacpp", "ideaco.llm.embedded") if m in sys.modules))
        """
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert out.stdout.strip() == "[]"
