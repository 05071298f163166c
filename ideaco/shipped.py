"""The scenarios that ship with ideaco (package data): `ideaco run startup` runs one by name."""

from __future__ import annotations

from pathlib import Path

SCENARIOS_DIR = Path(__file__).resolve().parent / "scenarios"


def shipped_scenarios() -> list[str]:
    """The names of the scenarios that ship with ideaco (run them by name: `ideaco run startup`)."""
    return sorted(p.stem for p in SCENARIOS_DIR.glob("*.yaml"))


def locate_scenario(path: str | Path) -> Path:
    """`path` itself if it exists; else the shipped scenario of that name (`startup`, `startup.yaml`).

    A missing file that names no shipped scenario is returned as it is: loading it says "not found".
    """
    given = Path(path)
    if given.exists() or given.parent != Path("."):
        return given
    shipped = SCENARIOS_DIR / (given.name if given.suffix == ".yaml" else f"{given.name}.yaml")
    return shipped if shipped.is_file() else given
