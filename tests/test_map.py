"""tests/README.md's map of the office's modules to their tests is the one `python -m tests.map` prints."""

from __future__ import annotations

from pathlib import Path

from tests.map import table


def test_the_readme_map_is_current() -> None:
    readme = (Path(__file__).parent / "README.md").read_text(encoding="utf-8")
    assert readme.endswith(table()), "tests/README.md's map is stale: python -m tests.map > the table"
