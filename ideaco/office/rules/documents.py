"""Documents in a department's workspace and their reviews (issue 20): pure rules, `now` passed in.

A document, its versions and its review are data (`office/core/documents.py`). Every write is a
new `Version` (a short hash of its content); a revision names the version it revises (`base`),
so a stale one is refused and no update is lost. A review thread runs on the document: the
author asks, a reviewer who is not the author approves or rejects the version it read, the
author (nobody else while the review is open) revises or rebuts, for at most `rounds` rejections; then the department's lead decides (or, when the lead is the reviewer or the author,
the last rejection is final).
Each function returns the new `Document` or a `Refusal` whose reason the employee reads.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime
from typing import Any

from ideaco.kinds import REVIEW_VERDICTS, ToolName, Verdict
from ideaco.office.core.documents import (
    APPROVED,
    FAILED,
    OPEN,
    REBUTTED,
    REJECTED,
    REQUESTED,
    Document,
    Review,
    Version,
    check_path,
    find,
    same_path,
    version_hash,
    with_versions,
)
from ideaco.office.core.refusal import Refusal
from ideaco.office.rules import text

MAX_BYTES = 16_000  # one document's content, UTF-8
MAX_DOCUMENTS = 200  # in a run's workspace
MAX_NOTES = 1000  # review notes, a rebuttal's argument


FOLDER_CLASH = "a document's path may not be another document's folder"


def in_the_way(documents: dict[str, Document], department: str, path: str) -> str | None:
    """The path of a document of `department` that `path` cannot sit beside on disk: one whose
    folder `path` is (`docs` beside `docs/a.md`), or one that is a folder of `path` (`specs/b.md`
    beside `specs`), case and normalisation aside (`Docs` beside `docs/a.md`: one folder on a
    case-insensitive disk). Only whole parts count: `docs2/a.md` and `docsx` sit beside `docs/a.md`."""
    own = {same_path(d.path): d.path for d in documents.values() if d.department == department}
    parts = same_path(path).split("/")
    for n in range(1, len(parts)):  # a document at one of the folders `path` is in
        folder = own.get("/".join(parts[:n]))
        if folder is not None:
            return folder
    inside = same_path(path) + "/"
    return next((p for folded, p in own.items() if folded.startswith(inside)), None)


def clashes(documents: dict[str, Document]) -> list[tuple[str, str]]:
    """Each pair of documents (keys) that cannot both be files: one is the other's folder."""
    out = []
    for key in documents:
        parts = key.split("/")
        out += [("/".join(parts[:n]), key) for n in range(2, len(parts)) if "/".join(parts[:n]) in documents]
    return out


def check_content(content: Any) -> str | Refusal:
    if not isinstance(content, str) or not content.strip():
        return Refusal("a document needs content")
    if not any(ch.isalnum() for ch in content):
        return Refusal("a document needs words, not only marks")  # '#', '---', '[]': nothing to review
    size = len(content.encode("utf-8"))
    if size > MAX_BYTES:
        return Refusal(f"content of {size} bytes is over the limit of {MAX_BYTES}")
    return content


# The arguments of a document tool that people read: a version's content, a review's notes, a
# rebuttal's argument.
TEXT_ARGS = {
    ToolName.WRITE_DOCUMENT: "content",
    ToolName.REVISE_DOCUMENT: "content",
    ToolName.REVIEW: "notes",
    ToolName.REBUT: "argument",
}


def unfit_text(tool: str, args: dict[str, Any], filters: str) -> Refusal | None:
    """Why the text a document tool would show people is refused by the office's text rules under
    `filters` (office/rules/text/: the guarantees, and small-model hygiene under strict), in words
    its writer reads; None when it may be shown, or when the tool itself refuses it (empty, too
    long)."""
    name = TEXT_ARGS.get(tool)
    said = args.get(name) if name else None
    if not isinstance(said, str) or isinstance(check_content(said), Refusal):
        return None  # the tool's own refusal says why (no content, too long)
    why = text.problem(said, filters)
    return Refusal(f"its {name} has {why}: write it in plain words") if why else None


def write(
    documents: dict[str, Document],
    department: str,
    path: str,
    content: str,
    author: str,
    now: datetime,
    thought: str,
    task: str | None = None,
) -> Document | Refusal:
    """A new document (refused if the file exists, the workspace is full, or a document is a folder of
    its path or in a folder it names)."""
    checked = writable(documents, department, path)
    if isinstance(checked, Refusal):
        return checked
    text = check_content(content)
    if isinstance(text, Refusal):
        return text
    version = Version(version_hash(text), author, now, thought)
    return Document(department, checked, author, text, (version,), task)


def writable(documents: dict[str, Document], department: str, path: str) -> str | Refusal:
    """The path a new document would have, or why no content could be written there (a bad path,
    a document there already, a full workspace, a document in its folders' way)."""
    checked = check_path(path)
    if isinstance(checked, Refusal):
        return checked
    current = find(documents, department, checked)  # the same document, case aside
    if current is not None:
        return Refusal(
            f"{current.path} exists (version {current.version}): revise_document it with base {current.version}"
        )
    if len(documents) >= MAX_DOCUMENTS:
        return Refusal(f"the workspace holds {MAX_DOCUMENTS} documents already")
    other = in_the_way(documents, department, checked)
    if other is not None:
        return Refusal(f"{FOLDER_CLASH}: {checked} and {other} cannot both be files")
    return checked


def revise(
    doc: Document, content: str, base: str, author: str, now: datetime, thought: str
) -> Document | Refusal:
    """A new version of `doc`, if `base` is the version it has now (else the reviser read a stale one)."""
    text = check_content(content)
    if isinstance(text, Refusal):
        return text
    refused = revisable(doc, base, author)
    if refused is not None:
        return refused
    if version_hash(text) == doc.version:
        return Refusal(f"{doc.path}: the revision is the same text")
    return with_versions(doc, (Version(version_hash(text), author, now, thought),), text)


def revisable(doc: Document, base: str, author: str) -> Refusal | None:
    """Why `author` could not revise `doc` from `base` with any content; None if some content would do."""
    if str(base or "").strip() != doc.version:
        return Refusal(
            f"{doc.path} is at version {doc.version}, not {base!r}: read_document it and revise that"
        )
    if doc.review is not None and doc.review.status == APPROVED:
        return Refusal(f"{doc.path} is approved: it is not revised any more")
    if author != doc.author and doc.review is not None and doc.review.status in OPEN:
        return Refusal(f"{doc.path} is under review: only its author revises it now")
    return None


def request_review(doc: Document, author: str, reviewer: str | None) -> Document | Refusal:
    """The author asks for a review; `reviewer` is whom the office names (never the author): the
    one reviewing it already, unless that one has left."""
    if author != doc.author:
        return Refusal(f"only its author asks for a review of {doc.path}")
    if reviewer is None or reviewer == author:
        return Refusal(f"nobody but you could review {doc.path}")
    review = doc.review
    if review is not None and review.status in (REQUESTED, REBUTTED, APPROVED, FAILED):
        return Refusal(f"{doc.path} is {review.status} already")
    if review is None:
        return replace(doc, review=Review(reviewer))
    return replace(doc, review=replace(review, status=REQUESTED, reviewer=reviewer))


def version_at(doc: Document, at: datetime) -> str | None:
    """The version `doc` had at `at` (what a think that began then read), None before its first."""
    return next((v.hash for v in reversed(doc.versions) if v.at <= at), None)


def verdict(
    doc: Document,
    reviewer: str,
    decision: str,
    notes: str,
    rounds: int,
    lead: str | None,
    read: str | None = None,
) -> Document | Refusal:
    """A reviewer's approve or reject of the version it read (`read`; None: the current one), refused
    if the document changed since. The `rounds`-th rejection hands the decision to the lead (when
    the lead is neither author nor reviewer), whose verdict is final; when the lead reviews it (the
    default) or wrote it, or there is no lead, that rejection is the final one itself."""
    review = doc.review
    if review is None or review.status not in (REQUESTED, REBUTTED):
        return Refusal(f"{doc.path} is not waiting for a review")
    if reviewer != review.reviewer:
        return Refusal(f"{doc.path} is not yours to review")
    if read is not None and read != doc.version:
        seen = f" (version {read})" if read else ""
        return Refusal(
            f"{doc.path} changed to version {doc.version} after you read it{seen}: it is quoted in your "
            "next thought; judge that one"
        )
    if decision not in REVIEW_VERDICTS:
        return Refusal(f"verdict is {Verdict.APPROVE} or {Verdict.REJECT}, not {decision!r}")
    notes = " ".join(str(notes or "").split())[:MAX_NOTES]
    review = replace(review, notes=notes, judged=doc.version)
    if decision == Verdict.APPROVE:
        return replace(doc, review=replace(review, status=APPROVED, streak=0))
    if review.final:
        return replace(doc, review=replace(review, status=FAILED))
    rejected = replace(review, status=REJECTED, round=review.round + 1, streak=review.streak + 1)
    if rejected.round >= rounds and lead is not None and lead not in (doc.author, reviewer):
        rejected = replace(rejected, status=REQUESTED, reviewer=lead, final=True)
    elif rejected.round >= rounds:  # nobody else to decide: the reviews are spent, the piece fails
        rejected = replace(rejected, status=FAILED)
    return replace(doc, review=rejected)


def rebut(doc: Document, author: str, argument: str) -> Document | Refusal:
    """The author argues against a rejection; the reviewer reads it and gives a verdict again."""
    review = doc.review
    if author != doc.author:
        return Refusal(f"only its author rebuts a review of {doc.path}")
    if review is None or review.status != REJECTED:
        return Refusal(f"{doc.path} has no rejection to rebut")
    argument = " ".join(str(argument or "").split())[:MAX_NOTES]
    if not argument:
        return Refusal("a rebuttal needs an argument")
    return replace(doc, review=replace(review, status=REBUTTED, argument=argument))


def reviewer_for(
    author: str, lead: str | None, members: list[str], skilled: Sequence[str] = ()
) -> str | None:
    """Whom a review goes to: the first of `skilled` (members whose skills fit the review: the lead
    names them) who is not the author; else the department's lead, unless it wrote the document;
    then the first other member."""
    fitting = next((m for m in skilled if m != author), None)
    if fitting is not None:
        return fitting
    if lead is not None and lead != author:
        return lead
    return next((m for m in members if m != author), None)
