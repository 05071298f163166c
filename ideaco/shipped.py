"""The scenarios that ship with ideaco (package data): `ideaco run startup` runs one by name."""

from __future__ import annotations

from pathlib import Path

from ideaco.typos import did_you_mean

SCENARIOS_DIR = Path(__file__).resolve().parent / "scenarios"


def shipped_scenarios() -> list[str]:
    """The names of the scenarios that ship with ideaco (run them by name: `ideaco run startup`)."""
    return sorted(p.stem for p in SCENARIOS_DIR.glob("*.yaml"))


def locate_scenario(path: str | Path) -> Path:
    """`path` itself if it exists; else, for a bare name (no suffix, no folder: `startup`), the
    shipped scenario of that name. A missing path (`startup.yaml` in a folder without it) is
    returned as it is: loading it says "not found", never runs another file in its place.
    """
    given = Path(path)
    if given.exists() or given.parent != Path(".") or given.suffix:
        return given
    shipped = SCENARIOS_DIR / f"{given.name}.yaml"
    return shipped if shipped.is_file() else given


def is_shipped(given: str | Path, located: Path) -> bool:
    """Whether `located` is a shipped scenario that `given`, a bare name, stood for."""
    return Path(given) != located and located.parent == SCENARIOS_DIR


def missing_hint(given: str | Path) -> str:
    """What a scenario file that does not exist is told, wherever it was looked for: the shipped
    scenario its name is close to, and the names that run as they are."""
    names = shipped_scenarios()
    return (
        f"{did_you_mean(Path(given).stem, names)} (a shipped scenario runs by its name: {', '.join(names)})"
    )
