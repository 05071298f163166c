"""`--max-calls` holds at the endpoint with calls made early (issue 28, item 8).

A call started early and dropped had reached the endpoint but was never counted: 120 allowed
became 129 requests at the endpoint, 200 became 224. Every call that passes the concurrency cap
now counts, whatever becomes of it; a call dropped while it still waits for the cap does not.
"""

from __future__ import annotations

import json

import pytest

from tests.fakes.openai_server import FakeOpenAIServer, Reply
from tests.guard.runs import HERE as GUARD_DIR
from tests.guard.scripted import as_content, respond

OFFICE = GUARD_DIR / "office.yaml"


@pytest.mark.parametrize(("max_calls", "concurrency"), [(120, 8), (60, 4), (30, 2)])
def test_the_endpoint_never_receives_more_than_max_calls(ideaco, tmp_path, max_calls, concurrency) -> None:
    out = tmp_path / "run"
    # Each answer takes a little real time, so that calls made early are still out when others land.
    with FakeOpenAIServer(handler=lambda body: Reply(as_content(respond(body)), delay=0.01)) as fake:
        flags = [
            "--base-url",
            fake.base_url,
            "--concurrency",
            str(concurrency),
            "--max-calls",
            str(max_calls),
        ]
        result = ideaco("run", OFFICE, "--duration", "8h", "--out", out, "--model", "scripted", *flags)
        served = len(fake.requests)
    assert result.exit_code == 0, result.output
    summary = json.loads((out / "summary.json").read_text())
    assert summary["stop_reason"] == f"--max-calls {max_calls} reached", summary["stop_reason"]
    assert summary["calls"]["dropped"] > 0  # calls were made early and dropped
    assert served <= max_calls, f"{served} requests reached the endpoint for --max-calls {max_calls}"
    # What the run counts is what it sent: a call is counted as it is sent, so one cut by the stop
    # between its count and the wire is counted and never served (under load, 120 made, 119 served;
    # issue 37, item 9). The budget holds either way: never more served than counted, nor counted
    # than allowed.
    assert served <= summary["calls"]["made"] <= max_calls


def test_a_resume_counts_the_early_calls_its_first_session_dropped(ideaco, tmp_path) -> None:
    """The budget a resume restores counts what the endpoint received, not only what thoughts used."""
    out = tmp_path / "run"
    with FakeOpenAIServer(handler=lambda body: Reply(as_content(respond(body)), delay=0.01)) as fake:
        flags = ["--base-url", fake.base_url, "--concurrency", "8"]
        first = ideaco(
            "run",
            OFFICE,
            "--duration",
            "8h",
            "--out",
            out,
            "--model",
            "scripted",
            *flags,
            "--max-calls",
            "150",  # 60 calls dropped 2 early calls, and under load none at times; 150 drop 9-12 beside 3 busy processes
        )
        assert first.exit_code == 0, first.output
        assert json.loads((out / "summary.json").read_text())["calls"]["dropped"] > 0
        resumed = ideaco("run", "--resume", out, *flags, "--max-calls", "300")
        assert resumed.exit_code == 0, resumed.output
        served = len(fake.requests)
    assert json.loads((out / "summary.json").read_text())["stop_reason"] == "--max-calls 300 reached"
    assert served <= 300, f"{served} requests reached the endpoint for --max-calls 300 over two sessions"
