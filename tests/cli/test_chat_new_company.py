"""`ideaco chat --new NAME`: an empty company grows by talking to the secretary (issue 5's must-show)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

from tests.fakes.openai_server import FakeOpenAIServer, last_user_content

ROOT = Path(__file__).resolve().parents[2]
CLEAN_ENV = ("IDEACO_BASE_URL", "OPENAI_BASE_URL", "OPENAI_API_KEY", "IDEACO_MODEL", "FORCE_COLOR")
ASK = "Open an Engineering department and hire a backend engineer who is an old hand, named Bob."
REQUIREMENT = "Hand the requirement Build the login API to Engineering."


def silent() -> dict:
    return {"innerThoughts": "nothing for me", "topicSaturation": 2, "interestLevel": 3, "shouldSpeak": False}


def says(text: str, actions: list | None = None) -> dict:
    return {
        "innerThoughts": "on it",
        "topicSaturation": 2,
        "interestLevel": 8,
        "shouldSpeak": True,
        "messages": [{"content": text}],
        "actions": actions or [],
    }


def answer(body: dict) -> dict:
    """A scripted model: the secretary acts on the boss's latest request; Bob introduces himself."""
    who = re.search(r"You are (\w+)", body["messages"][0]["content"]).group(1)  # type: ignore[union-attr]
    prompt = last_user_content(body)
    if who == "Secretary":
        if "Tell the boss what was done" in prompt:
            return says("Done as you asked.")
        if f"(BOSS): {REQUIREMENT}" in prompt and "* [" in prompt and "req-1" not in prompt:
            return says(
                "Handing it over.",
                [{"tool": "assign_requirement", "args": {"to": "eng", "description": "Build the login API"}}],
            )
        if f"(BOSS): {ASK}" in prompt and "department eng" not in prompt:
            return says(
                "Right away.",
                [
                    {
                        "tool": "create_department",
                        "args": {"id": "eng", "name": "Engineering", "mission": "Ship"},
                    },
                    {
                        "tool": "hire_employee",
                        "args": {
                            "name": "Bob",
                            "role": "Backend engineer",
                            "archetype": "old-hand",
                            "department": "eng",
                        },
                    },
                ],
            )
        return silent()
    if "Introduce yourself" in prompt:
        return says("Hi all, I'm Bob. Back in 2015 we tried that.")
    return silent()


def test_a_scripted_session_grows_an_empty_company(tmp_path: Path) -> None:
    out = tmp_path / "acme"
    env = {k: v for k, v in os.environ.items() if k not in CLEAN_ENV}
    env["PYTHONPATH"] = str(ROOT)
    lines = [ASK, "/wait 3m", REQUIREMENT, "/wait 3m", "/quit"]
    with FakeOpenAIServer(handler=answer) as fake:
        result = subprocess.run(
            [
                sys.executable,
                "-m",
                "ideaco",
                "chat",
                "--new",
                "Acme Robotics",
                "--out",
                str(out),
                "--base-url",
                fake.base_url,
            ],
            input="".join(line + "\n" for line in lines),
            capture_output=True,
            text=True,
            env=env,
            cwd=tmp_path,
            timeout=90,
        )
    assert result.returncode == 0, result.stderr
    messages = [json.loads(x) for x in (out / "messages.jsonl").read_text().splitlines()]
    boss = [m for m in messages if m["sender"] == "boss"]
    assert [m["conversation"] for m in boss] == [
        "boss:secretary",
        "boss:secretary",
    ]  # the default conversation
    assert any(
        m["sender"] == "bob" and m["conversation"] == "eng-casual" and "I'm Bob" in m["text"]
        for m in messages
    )
    assert "Hi all, I'm Bob" in result.stdout

    from ideaco.store.state import StateStore

    state = StateStore(out / "state.json").load()
    bob = next(e for e in state["employees"] if e["id"] == "bob")
    assert bob["persona"]["id"] == "old-hand" and bob["role"] == "Backend engineer"
    conversations = {c["id"]: c for c in state["conversations"]}
    assert "bob" in conversations["eng-casual"]["members"]
    [task] = bob["mind"]["tasks"]
    assert task["description"] == "Build the login API" and task["status"] == "pending"
    organization = state["office"]["organization"]
    assert organization["departments"][0]["lead"] == "bob"
