"""A --replay file from anyone (issue 22, items 10 and 11), through the CLI.

`--replay` read a .gz whole into memory (3 MB on disk became a MemoryError at 2.5 GB) and trusted
a recording's types and numbers (tracebacks on 5 of 10 variants; negative or huge token counts
accepted). Now each line is checked as the live path checks an endpoint's answer, the file is read
a line at a time within a decompressed-size limit, and each refusal is one line, before anything is
written.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ideaco.cli.main import app
from tests.faults.conftest import CLEAN_ENV
from tests.faults.processes import one_error_line

ROOT = Path(__file__).resolve().parents[2]
SCENARIO = ROOT / "tests" / "guard" / "office.yaml"
GOOD = {"key": "k", "response": {"content": "{}", "usage": {"prompt_tokens": 5}}}


def line(**response) -> str:
    return json.dumps({**GOOD, "response": {**GOOD["response"], **response}})


CASES = {
    "negative tokens": (line(usage={"prompt_tokens": -5}), "usage.prompt_tokens"),
    "tokens past 2**53": (line(usage={"completion_tokens": 2**60}), "usage.completion_tokens"),
    "tokens as text": (line(usage={"cached_tokens": "12"}), "usage.cached_tokens"),
    "content that is a number": (line(content=5), "response.content"),
    "content that is an object": (line(content={"a": 1}), "response.content"),
    "a response that is null": (json.dumps({"key": "k", "response": None}), "response"),
    "no key": (json.dumps({"response": GOOD["response"]}), "key: Field required"),
    "a line that is a list": ("[1, 2, 3]", "line:"),
    "a line that is not JSON": ("{nope", "not a recording line"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_a_bad_recording_line_is_one_line_and_nothing_is_written(tmp_path: Path, case: str) -> None:
    bad, says = CASES[case]
    replay = tmp_path / "calls.jsonl"
    replay.write_text(bad + "\n" + json.dumps(GOOD) + "\n")
    out = tmp_path / "run"
    args = ["run", SCENARIO, "--duration", "5m", "--out", out, "--replay", replay, "--model", "scripted"]
    result = CliRunner().invoke(app, [str(a) for a in args], env=CLEAN_ENV)
    error = one_error_line(result)
    assert error.startswith(f"ideaco: error: --replay {replay}:1: not a recording line") and says in error
    assert not out.exists()


def test_a_compressed_recording_that_unpacks_past_the_limit_is_refused_without_filling_memory(
    tmp_path: Path,
) -> None:
    bomb = tmp_path / "bomb.jsonl.gz"
    with gzip.open(bomb, "wb", compresslevel=9) as f:  # under 1 MB on disk, 600 MB unpacked
        for _ in range(600):
            f.write(b"\n" * (1 << 20))
    assert bomb.stat().st_size < 1 << 20
    out = tmp_path / "run"
    args = ["run", SCENARIO, "--duration", "5m", "--out", out, "--replay", bomb, "--model", "scripted"]
    error = one_error_line(CliRunner().invoke(app, [str(a) for a in args], env=CLEAN_ENV))
    assert "more than 512 MB once decompressed" in error and not out.exists()
