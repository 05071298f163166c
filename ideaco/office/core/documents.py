"""A document in a department's workspace and its review thread, as plain data (issue 20).

A document is a plain UTF-8 file at `<department>/<path>` in the run's workspace; every write is
a new `Version` (a short hash of its content); its `Review` says who reviews it and where the
review stands (`REQUESTED`, `REJECTED`, `REBUTTED`, `APPROVED`, `FAILED`). What a path may be is
part of what a document is (`check_path`): every path the office keeps, and every one a log
names, is one. The rules that change a document are `office/rules/documents.py`.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

import regex

from ideaco.office.core.refusal import Refusal

MAX_PATH = 120
MAX_DEPTH = 4  # folders and file
HASH_CHARS = 8
KEPT_VERSIONS = 20  # a document's latest versions the office keeps (thoughts.jsonl logs every one)
# A folder or file name: letters (with their marks) and digits of any script, `.`, `_` and `-`,
# starting with a letter or a digit (`docs/接口文档.md`, `notes/план.md`).
_SEGMENT = regex.compile(r"[\p{L}\p{N}][\p{L}\p{M}\p{N}._-]{0,63}")
# Names Windows keeps for devices, whatever the extension: a user opening the folder there must not trip on one.
RESERVED = frozenset(
    {"con", "prn", "aux", "nul", *(f"com{i}" for i in range(10)), *(f"lpt{i}" for i in range(10))}
)

# Where a review stands (`Review.status`).
REQUESTED, REJECTED, REBUTTED, APPROVED, FAILED = "requested", "rejected", "rebutted", "approved", "failed"
OPEN = (REQUESTED, REJECTED, REBUTTED)  # a review not over: its reviewer still has a word to say


@dataclass(frozen=True)
class Version:
    hash: str
    author: str
    at: datetime
    thought: str

    def to_dict(self) -> dict[str, Any]:
        return {"hash": self.hash, "author": self.author, "at": self.at.isoformat(), "thought": self.thought}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Version:
        return cls(d["hash"], d["author"], datetime.fromisoformat(d["at"]), d.get("thought", ""))


@dataclass(frozen=True)
class Review:
    """A document's review thread: who reviews it, where it stands, how many rejections so far."""

    reviewer: str
    status: str = REQUESTED
    round: int = 0  # rejections so far
    streak: int = 0  # rejections in a row (an approval or a persuasive rebuttal ends it)
    notes: str = ""  # the last verdict's notes
    argument: str = ""  # the author's last rebuttal
    final: bool = False  # the rounds are spent: the lead decides
    judged: str = ""  # the version the last verdict applied to

    def to_dict(self) -> dict[str, Any]:
        return {
            "reviewer": self.reviewer,
            "status": self.status,
            "round": self.round,
            "streak": self.streak,
            "notes": self.notes,
            "argument": self.argument,
            "final": self.final,
            "judged": self.judged,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Review:
        return cls(
            reviewer=d["reviewer"],
            status=d.get("status", REQUESTED),
            round=int(d.get("round") or 0),
            streak=int(d.get("streak") or 0),
            notes=d.get("notes") or "",
            argument=d.get("argument") or "",
            final=bool(d.get("final")),
            judged=d.get("judged") or "",
        )


@dataclass(frozen=True)
class Document:
    department: str
    path: str
    author: str
    content: str
    versions: tuple[Version, ...]
    task: str | None = None
    review: Review | None = None
    earlier: int = 0  # versions before the KEPT_VERSIONS kept: state.json stays bounded

    @property
    def key(self) -> str:
        return f"{self.department}/{self.path}"

    @property
    def count(self) -> int:
        """How many versions it has had."""
        return self.earlier + len(self.versions)

    @property
    def version(self) -> str:
        return self.versions[-1].hash

    def to_dict(self) -> dict[str, Any]:
        return {
            "department": self.department,
            "path": self.path,
            "author": self.author,
            "content": self.content,
            "versions": [v.to_dict() for v in self.versions],
            "task": self.task,
            "review": self.review.to_dict() if self.review else None,
        } | ({"earlier": self.earlier} if self.earlier else {})

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Document:
        review = d.get("review")
        return cls(
            d["department"],
            d["path"],
            d["author"],
            d["content"],
            tuple(Version.from_dict(v) for v in d.get("versions") or ()),
            d.get("task"),
            Review.from_dict(review) if review else None,
            int(d.get("earlier") or 0),
        )


def with_versions(doc: Document, added: Sequence[Version], content: str) -> Document:
    """`doc` with new versions and the text they made; only the latest KEPT_VERSIONS are kept."""
    versions = (*doc.versions, *added)
    cut = max(0, len(versions) - KEPT_VERSIONS)
    return replace(doc, content=content, versions=versions[cut:], earlier=doc.earlier + cut)


def version_hash(content: str) -> str:
    """The short hash a prompt shows for a version (and a revision names as its base)."""
    return hashlib.sha256(content.encode("utf-8")).hexdigest()[:HASH_CHARS]


def same_path(path: str) -> str:
    """What makes two paths one document: Unicode normalisation and case aside (issue 37, item 4).
    `Docs/A.md` and `docs/a.md` are one file on a case-insensitive disk (macOS, Windows), so they
    are one document everywhere."""
    return unicodedata.normalize("NFC", path).casefold()


def find(documents: Mapping[str, Document], department: str, path: str) -> Document | None:
    """The department's document at `path`: as named, or named with another case or normalisation."""
    doc = documents.get(f"{department}/{path}")
    if doc is not None:
        return doc
    want = same_path(path)
    return next(
        (d for d in documents.values() if d.department == department and same_path(d.path) == want), None
    )


def folder_clash(paths: Iterable[str]) -> tuple[str, str] | None:
    """Two of `paths` (one department's) that cannot both be files: one is a folder of the other
    (`docs` and `docs/a.md`), case and normalisation aside; None if there are none."""
    own = {same_path(p): p for p in paths}
    for folded, path in own.items():
        parts = folded.split("/")
        for n in range(1, len(parts)):
            folder = own.get("/".join(parts[:n]))
            if folder is not None:
                return folder, path
    return None


def check_path(path: str) -> str | Refusal:
    """A workspace path as stored (folders with `/`), or why it is not one.

    Relative, at most MAX_DEPTH parts of letters (any script, with their marks), digits, `.`, `_`
    and `-`, none starting with a dot (so no `..`, no hidden files), no device names: it can only
    name a plain file inside the department's folder. Kept in NFC, so that a name typed composed or
    decomposed (`é`, `e` + `´`) is one document.
    """
    if not isinstance(path, str) or not path.strip():
        return Refusal("a document needs a path, like notes/plan.md")
    path = unicodedata.normalize("NFC", path.strip())
    if len(path) > MAX_PATH:
        return Refusal(f"path longer than {MAX_PATH} characters")
    if path.startswith(("/", "\\")) or re.match(r"[A-Za-z]:", path):
        return Refusal(f"{path!r} is not relative to the workspace")
    parts = path.split("/")
    if len(parts) > MAX_DEPTH:
        return Refusal(f"{path!r} is more than {MAX_DEPTH} folders deep")
    for part in parts:
        if part in ("", ".", ".."):
            return Refusal(f"{path!r} leaves its folder (empty, . or .. part)")
        if not _SEGMENT.fullmatch(part) or part.endswith("."):
            return Refusal(f"{part!r} in {path!r}: use letters (any script), digits, '.', '_' and '-' only")
        if part.split(".", 1)[0].lower() in RESERVED:
            return Refusal(f"{part!r} is a reserved name")
    return path
