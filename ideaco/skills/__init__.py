"""Skills (issue 20, item 5): Markdown files whose first line is their summary.

The shipped ones live here (package data); a scenario may add its own folder (`skills: PATH`,
relative to the scenario file and inside its folder). An employee lists the skills it has; its
prompt lists their summaries, and the `load_skill {name}` action puts one's text in its next
prompt, as IdeaCo's progressive disclosure does: `load_skill` leaves a note marked `MARK` on the
employee's mind (`office/decide/tools/skillbook.py`), and `split_notes` turns the marked notes into
the loaded texts the next prompt quotes. `fits` is the pure rule a lead's board uses to give members
whose skills fit a piece the first dibs on it.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SHIPPED_DIR = Path(__file__).resolve().parent
SKILL_NAME = re.compile(r"^[a-z0-9][a-z0-9_-]{0,39}$")
MAX_SKILL_BYTES = 16_000  # one skill file
MAX_SKILLS = 64  # in one folder
MAX_EMPLOYEE_SKILLS = 12
SUMMARY_CHARS = 200
TEXT_CHARS = 4000  # of one skill in a prompt
MARK = "@skill "  # a note that is no note: the next prompt quotes this skill
LOADED = 2  # skills quoted in one prompt
_WORD = re.compile(r"[a-z0-9]+")
STEM = 4  # letters two words share to fit: "test" fits "tests" and "testing"


@dataclass(frozen=True)
class Skill:
    name: str
    summary: str
    text: str  # the whole file, bounded by TEXT_CHARS

    def to_dict(self) -> dict[str, str]:
        return {"name": self.name, "summary": self.summary, "text": self.text}


class SkillError(ValueError):
    """A skill file or folder that cannot be used; `str()` is one line naming it."""

    def __init__(self, path: str | Path, message: str) -> None:
        self.path = str(path)
        self.message = message
        super().__init__(f"{self.path}: {message}")


def read_skill(path: Path) -> Skill:
    """One skill file: UTF-8, bounded, its first line (a leading '#' dropped) its summary."""
    if path.stat().st_size > MAX_SKILL_BYTES:
        raise SkillError(path, f"larger than {MAX_SKILL_BYTES} bytes")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise SkillError(path, "not UTF-8 text") from None
    first = text.strip().splitlines()[0] if text.strip() else ""
    summary = " ".join(first.lstrip("#").split())
    if not summary:
        raise SkillError(path, "empty (its first line is the skill's summary)")
    if len(summary) > SUMMARY_CHARS:
        raise SkillError(path, f"its first line (the summary) is longer than {SUMMARY_CHARS} characters")
    body = text.strip()
    if len(body) > TEXT_CHARS:
        body = body[:TEXT_CHARS] + "\n[...cut]"
    return Skill(path.stem, summary, body)


def read_skills(folder: Path) -> dict[str, Skill]:
    """The `*.md` skills of a folder, by name (links and other files ignored)."""
    if not folder.is_dir():
        raise SkillError(folder, "not a folder")
    files = sorted(p for p in folder.glob("*.md") if p.is_file() and not p.is_symlink())
    if len(files) > MAX_SKILLS:
        raise SkillError(folder, f"more than {MAX_SKILLS} skill files")
    out: dict[str, Skill] = {}
    for path in files:
        if not SKILL_NAME.match(path.stem):
            raise SkillError(path, "a skill's name is lowercase letters, digits, '-' and '_'")
        out[path.stem] = read_skill(path)
    return out


def skills_folder(base_dir: str | Path, given: str) -> Path:
    """A scenario's `skills:` folder, which must lie inside the scenario's folder (a scenario from
    anyone must not read your files into a prompt)."""
    path = Path(base_dir) / given
    if not path.resolve().is_relative_to(Path(base_dir).resolve()):
        raise SkillError(given, "outside the scenario's folder (a skills folder lies beside its scenario)")
    return path


def library(base_dir: str | Path | None = None, given: str | None = None) -> dict[str, Skill]:
    """The shipped skills, and a scenario's own folder's (which win over a shipped one's name)."""
    out = read_skills(SHIPPED_DIR)
    if given is not None and base_dir is not None:
        out |= read_skills(skills_folder(base_dir, given))
    return out


def unknown(names: Iterable[str], known: Mapping[str, Skill]) -> str | None:
    """The first name not in `known`, as a one-line problem with a did-you-mean; None if all are known."""
    for name in names:
        if name not in known:
            close = difflib.get_close_matches(name, list(known), n=1)
            hint = f"did you mean {close[0]!r}?" if close else f"known: {', '.join(sorted(known))}"
            return f"unknown skill {name!r} ({hint})"
    return None


def names_of(persona: Mapping[str, object]) -> tuple[str, ...]:
    """The skills an employee's persona carries, by name (resolved ones are mappings with a name)."""
    listed = persona.get("skills") or ()
    return tuple(str(s["name"]) for s in listed if isinstance(s, Mapping) and "name" in s)  # type: ignore[union-attr]


def book(persona: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
    """An employee's skills by name, as its persona carries them resolved (empty without any)."""
    listed = persona.get("skills") or ()
    return {s["name"]: s for s in listed if isinstance(s, Mapping) and "name" in s}


def split_notes(persona: Mapping[str, Any], notes: Sequence[str]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The notes to show as notes, and the loaded skills' texts to quote (at most LOADED, bounded)."""
    known = book(persona)
    plain = tuple(n for n in notes if not n.startswith(MARK))
    names = dict.fromkeys(n[len(MARK) :] for n in notes if n.startswith(MARK))
    quoted = tuple(
        f"{name}\n{str(known[name].get('text', ''))[:TEXT_CHARS]}" for name in names if name in known
    )
    return plain, quoted[:LOADED]


def _stems(text: str) -> set[str]:
    return {w[:STEM] for w in _WORD.findall(text.lower()) if len(w) >= 3}


def fits(skills: Iterable[str], piece: str) -> bool:
    """Whether a piece of work fits one of these skills: a word of a skill's name shares its first
    letters (STEM) with a word of the piece ("code-review" fits "Review the payment flow")."""
    words = _stems(piece)
    return any(_stems(name.replace("-", " ").replace("_", " ")) & words for name in skills)
