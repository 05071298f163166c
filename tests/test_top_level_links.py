"""The repository's `scenarios/` and `personas/` are links to the package data, one for each file."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("name", ["scenarios", "personas"])
def test_each_shipped_file_has_its_link_at_the_top(name) -> None:
    shipped = sorted(p.name for p in (ROOT / "ideaco" / name).glob("*.yaml"))
    links = sorted((ROOT / name).iterdir())
    assert [p.name for p in links] == shipped and len(shipped) >= 3
    for link in links:
        assert link.is_symlink() and link.resolve() == (ROOT / "ideaco" / name / link.name).resolve()
