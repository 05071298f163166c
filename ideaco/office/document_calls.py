"""The document tools that can apply for an employee now, with what they may name (issue 20, item 8).

A small model's grammar (the compact wire) offers a document tool only when it can apply, as it
offers task ops only with tasks to touch: `write_document` for a task's expected document not
written yet, `request_review` for one's own document not under review (or being written now),
`revise_document` and `rebut` for one's own rejected document (its version as the only base),
`review` for a document one is asked to review, `sign_off` for a lead reading the boss's words in
its boss chat while a requirement of its department waits for them. Each call's paths (and bases,
and requirements) are choices in the grammar, so a small model cannot name what is not there.
"""

from __future__ import annotations

from ideaco.office import requirements
from ideaco.office.rules import documents as rules
from ideaco.office.state import Employee
from ideaco.office.view import OfficeView

# (tool, the paths it may name, the bases it may name), in the order the grammar lists them.
Call = tuple[str, tuple[str, ...], tuple[str, ...]]

HELP = {
    "write_document": "write_document {path, content}: write the document your task expects",
    "request_review": "request_review {path}: ask for a review of your document",
    "revise_document": "revise_document {path, base, content}: the whole new text, after the review notes",
    "rebut": "rebut {path, argument}: say why the rejection is wrong",
    "review": "review {path, verdict: approve|reject, notes}: judge the document you are asked to review",
    "sign_off": "sign_off {requirement, verdict: approve|reopen, notes}: pass on the boss's word on it",
}


def calls(office: OfficeView, emp: Employee, conversation: str | None = None) -> tuple[Call, ...]:
    """The document tools `emp` can use in this thought (in `conversation`), each with its choices."""
    dept = emp.department
    if dept is None:
        return ()
    docs = [d for d in office.state.documents.values() if d.department == dept]
    written = {d.path for d in docs}
    expected = tuple(
        dict.fromkeys(t.document for t in emp.mind.pending_tasks if t.document and t.document not in written)
    )
    mine = [d for d in docs if d.author == emp.id]
    unreviewed = tuple(d.path for d in mine if d.review is None or d.review.status == rules.REJECTED)
    rejected = [d for d in mine if d.review is not None and d.review.status == rules.REJECTED]
    asked = tuple(
        d.path
        for d in docs
        if d.review is not None
        and d.review.reviewer == emp.id
        and d.review.status in (rules.REQUESTED, rules.REBUTTED)
    )
    out: list[Call] = []
    if expected:
        out.append(("write_document", expected, ()))
    if expected or unreviewed:
        out.append(("request_review", tuple(dict.fromkeys(expected + unreviewed)), ()))
    if rejected:
        paths = tuple(d.path for d in rejected)
        out.append(("revise_document", paths, tuple(dict.fromkeys(d.version for d in rejected))))
        out.append(("rebut", paths, ()))
    if asked:
        out.append(("review", asked, ()))
    waiting = _waiting_for_the_boss(office, emp, conversation)
    if waiting:
        out.append(("sign_off", waiting, ()))
    return tuple(out)


def _waiting_for_the_boss(office: OfficeView, emp: Employee, conversation: str | None) -> tuple[str, ...]:
    """The requirements of `emp`'s department reported to the boss, when `emp` leads it and reads
    unread words of the boss's in its boss chat (only the boss's word signs one off)."""
    dept = office.company_model.departments.get(emp.department or "")
    conv = office.conversations.get(conversation or "")
    if dept is None or dept.lead != emp.id or conv is None:
        return ()
    if not requirements.boss_words(conv, emp.id, emp.desk.cursors.get(conv.id, 0), conv.count):
        return ()  # the tool's own rule (documents._sign_off)
    rooms = {c.id for c in office.conversations.values() if c.department == dept.id}
    signoffs = office.company_model.signoffs
    return tuple(r for r in sorted(signoffs) if signoffs[r] == requirements.REPORTED and r in rooms)


def help_for(offered: tuple[Call, ...]) -> str:
    """The prompt's lines for the tools offered (compact): what each does, in a few words."""
    lines = ["Document tools (in actions, {tool, args}):"]
    return "\n".join(lines + [f"- {HELP[tool]}" for tool, _, _ in offered])
