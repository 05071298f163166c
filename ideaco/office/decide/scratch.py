"""The office's state as one think would leave it, copy-on-write, turned into steps.

A think decides against a `Scratch`: it reads through to the office and copies an employee, a
conversation or the company the first time it changes one, so the office itself is never
touched. `take()` returns what changed since the last `take()` as steps (`steps.py`), in the
order things were first touched, so a think's steps can interleave changes with posts and owed
thinks exactly as they happen.
"""

from __future__ import annotations

import copy
from datetime import datetime
from typing import Any

from ideaco.ids import TASK
from ideaco.kinds import StepKind
from ideaco.mind import changes as mind_changes
from ideaco.mind.board import Offer
from ideaco.mind.tasks import task_id
from ideaco.office.core.company import Company
from ideaco.office.core.documents import Document
from ideaco.office.core.state import (
    CONVERSATION_FIELDS,
    IDENTITY,
    ConversationState,
    Employee,
    OfficeState,
)
from ideaco.office.core.steps import (
    BoardStep,
    CompanyStep,
    ConversationStep,
    DocumentStep,
    EmployeeStep,
    MindStep,
    Step,
)


class Scratch:
    """A copy-on-write view of an `OfficeState`; the original is never changed."""

    def __init__(self, state: OfficeState) -> None:
        self._base = state
        self.employees: dict[str, Employee] = dict(state.employees)
        self.conversations: dict[str, ConversationState] = dict(state.conversations)
        self.counters = dict(state.counters)
        self.board: dict[str, Offer] = dict(state.board)  # changed in place; diffed at take()
        self._board_before = dict(state.board)
        self.documents: dict[str, Document] = dict(state.documents)  # set through set_document
        self._documents_taken = dict(state.documents)  # as of the last take()
        self._document_tools: dict[str, str] = {}  # key -> the tool that changed it since the last take
        self._company: Company | None = None  # a copy, once changed
        self._before: dict[tuple[StepKind, str], Any] = {}  # (kind, id) -> object as of the last take()
        self._new: set[tuple[StepKind, str]] = set()
        self._events: dict[str, list[str]] = {}

    # ------------------------------------------------------------------ reading

    @property
    def company(self) -> Company:
        return self._company or self._base.company

    def people(self) -> dict[str, str]:
        """Who works here now: id -> name."""
        return {e.id: e.name for e in self.employees.values() if not e.dismissed}

    # ------------------------------------------------------------------ writing

    def employee(self, employee_id: str) -> Employee:
        """The employee, to change (copied on its first change since the last take)."""
        key = (StepKind.EMPLOYEE, employee_id)
        if key not in self._before and key not in self._new:
            self._before[key] = self.employees[employee_id]
            self.employees[employee_id] = self.employees[employee_id].copy()
        return self.employees[employee_id]

    def conversation(self, conversation_id: str) -> ConversationState:
        """The conversation, to change (copied on its first change since the last take)."""
        key = (StepKind.CONVERSATION, conversation_id)
        if key not in self._before and key not in self._new:
            self._before[key] = self.conversations[conversation_id]
            self.conversations[conversation_id] = self.conversations[conversation_id].copy()
        return self.conversations[conversation_id]

    def edit_company(self) -> Company:
        key = (StepKind.COMPANY, "")
        if key not in self._before:
            self._before[key] = self.company
            self._company = copy.deepcopy(self.company)
        return self.company

    def add_employee(self, employee: Employee) -> None:
        self.employees[employee.id] = employee
        self._new.add((StepKind.EMPLOYEE, employee.id))
        self._before.setdefault((StepKind.EMPLOYEE, employee.id), None)

    def add_conversation(self, conversation: ConversationState) -> None:
        self.conversations[conversation.id] = conversation
        self._new.add((StepKind.CONVERSATION, conversation.id))
        self._before.setdefault((StepKind.CONVERSATION, conversation.id), None)

    def stamina_event(self, employee_id: str, event: str) -> None:
        """Note a stamina event of `employee_id` (logged with its next mind step)."""
        self._events.setdefault(employee_id, []).append(event)

    def set_document(self, document: Document, tool: str) -> None:
        """A document written, revised or reviewed (a document step at the next take)."""
        self.documents[document.key] = document
        self._document_tools[document.key] = tool

    def next_task_id(self) -> str:
        self.counters[TASK] = self.counters.get(TASK, 0) + 1
        return task_id(self.counters[TASK])

    # ------------------------------------------------------------------ steps

    def take(self, now: datetime, read: dict[str, tuple[str, int]] | None = None) -> list[Step]:
        """What changed since the last take, as steps; `read` adds cursor moves to mind steps."""
        steps: list[Step] = []
        read = dict(read or {})
        for (kind, ident), before in self._before.items():
            if kind == StepKind.EMPLOYEE:
                steps += self._employee_steps(ident, before, now, read.pop(ident, None))
            elif kind == StepKind.CONVERSATION:
                steps += self._conversation_steps(ident, before)
            elif self.company.to_dict() != before.to_dict():
                steps.append(CompanyStep(self.company.to_dict()))
        for employee, cursor in read.items():  # a cursor moved and nothing else changed
            steps.append(MindStep(employee, mind_changes.MindChanges(), cursor))
        if self.board != self._board_before:
            added = tuple(o for k, o in self.board.items() if self._board_before.get(k) != o)
            removed = tuple(k for k in self._board_before if k not in self.board)
            steps.append(BoardStep(added, removed))
            self._board_before = dict(self.board)
        for key, tool in self._document_tools.items():
            steps.append(DocumentStep.between(self._documents_taken.get(key), self.documents[key], tool))
            self._documents_taken[key] = self.documents[key]
        self._document_tools.clear()
        self._before.clear()
        self._new.clear()
        self._events.clear()
        return steps

    def _employee_steps(
        self, ident: str, before: Employee | None, now: datetime, read: tuple[str, int] | None
    ) -> list[Step]:
        after = self.employees[ident]
        if before is None:
            return [EmployeeStep(ident, joined=after.to_dict())]
        steps: list[Step] = []
        fields = {
            name: getattr(after, name) for name in IDENTITY if getattr(after, name) != getattr(before, name)
        }
        if fields:
            steps.append(EmployeeStep(ident, fields=fields))
        changes = mind_changes.diff(before.mind, after.mind, now, self._events.get(ident, ()))
        if changes or read is not None:
            steps.append(MindStep(ident, changes, read))
        return steps

    def _conversation_steps(self, ident: str, before: ConversationState | None) -> list[Step]:
        after = self.conversations[ident]
        if before is None:
            return [ConversationStep(ident, opened=after.to_dict())]
        fields = {
            name: getattr(after, name)
            for name in CONVERSATION_FIELDS
            if getattr(after, name) != getattr(before, name)
        }
        return [ConversationStep(ident, fields=fields)] if fields else []
