"""The whole path with the real embedded model: scenario -> office -> llama.cpp -> a valid thought."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from ideaco.llm.config import resolve_settings
from ideaco.llm.embedded import ModelMissing, find_default_model
from ideaco.llm.factory import build_llm
from ideaco.mind.thought import validate_thought
from ideaco.office.engine.build import office_from_scenario
from ideaco.office.engine.clock import SimClock
from ideaco.office.resolve.journal import MemoryJournal
from ideaco.scenario import load_scenario

SCENARIO = Path(__file__).resolve().parent.parent / "scenarios" / "rest-vs-graphql.yaml"


def succeeded(record: dict[str, Any]) -> bool:
    """A thought the model answered validly at the first try."""
    return (
        record["thought"] is not None
        and record["llm"] is not None
        and not any(c.startswith("repair") for c in record["corrections"])
    )


@pytest.mark.embedded
async def test_the_embedded_model_drives_an_office_to_valid_thoughts():
    try:
        find_default_model()
    except ModelMissing as exc:
        pytest.skip(f"embedded SmolLM2 model not installed: {exc}")
    scenario = load_scenario(SCENARIO)
    stack = build_llm(resolve_settings(env={}), concurrency=1)
    try:
        assert stack.servers and stack.settings.embedded
        office = office_from_scenario(
            scenario,
            SCENARIO.parent,
            llm=stack.llm,
            clock=SimClock(scenario.start),
            seed=1,
            journal=MemoryJournal(),
        )
        office.config.compact_schema = True

        class StopOnFirstSuccess:
            """The 2 simulated minutes bound the run; one good thought is all this test needs."""

            def on_message(self, office: Any, message: Any) -> None:
                pass

            def on_thought(self, office: Any, record: dict[str, Any]) -> None:
                if succeeded(record):
                    office.stop("a thought succeeded")

        office.observers.append(StopOnFirstSuccess())
        office.start()
        await office.run(duration=timedelta(minutes=2))
    finally:
        try:
            await stack.llm.aclose()
        finally:
            stack.close()
    assert not stack.servers

    thoughts = office.journal.thoughts
    assert thoughts, "nobody thought within 2 simulated minutes of the boss's question"
    good = [t for t in thoughts if succeeded(t)]
    assert good, f"no thought succeeded without repair: {[(t['gate'], t.get('error')) for t in thoughts]}"
    first = good[0]
    assert first["llm"]["prompt_tokens"] > 0 and first["llm"]["completion_tokens"] > 0
    assert first["llm"]["model"]
    thought, corrections = validate_thought(first["thought"])
    assert corrections == []  # what was recorded is already clean
    assert 1 <= thought.topicSaturation <= 10 and 1 <= thought.interestLevel <= 10
    assert len(thought.innerThoughts) <= 120  # the compact schema's bound held
    assert first["conversation"] == "api-design" and first["trigger"] == "boss"


@pytest.mark.embedded
async def test_the_shipped_work_scenario_writes_a_document_on_the_embedded_model(tmp_path: Path):
    """Issue 29, item 1: `release-docs` seeds tasks that name their documents, so the small model's
    grammar offers write_document; its first document lands in the run's workspace."""
    try:
        find_default_model()
    except ModelMissing as exc:
        pytest.skip(f"embedded SmolLM2 model not installed: {exc}")
    scenario = load_scenario(SCENARIO.parent / "release-docs.yaml")
    stack = build_llm(resolve_settings(env={}), concurrency=1)
    written: list[str] = []
    try:
        office = office_from_scenario(
            scenario,
            tmp_path,
            llm=stack.llm,
            clock=SimClock(scenario.start),
            seed=7,
            journal=MemoryJournal(),
        )
        office.config.compact_schema = True

        class StopOnFirstDocument:
            def on_message(self, office: Any, message: Any) -> None:
                pass

            def on_thought(self, office: Any, record: dict[str, Any]) -> None:
                steps = record["applied"]["steps"]
                written.extend(s["tool"] for s in steps if s["step"] == "tool" and s["ok"])
                if "write_document" in written:
                    office.stop("a document was written")

        office.observers.append(StopOnFirstDocument())
        office.start()
        await office.run(duration=timedelta(minutes=10))
    finally:
        try:
            await stack.llm.aclose()
        finally:
            stack.close()
    assert "write_document" in written, f"no document within 10 simulated minutes: {written}"
    docs = office.state.documents
    assert docs and all(key.startswith("eng/docs/") and doc.content.strip() for key, doc in docs.items())
