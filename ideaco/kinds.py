"""The kinds of conversation, message, step and tool, and the verdicts, declared once (spec 1.5, 1.6).

String enums, written to the logs as their values (`ConversationKind.BOSS == "boss"`): a
conversation's `kind` in state.json, a message's `kind` in messages.jsonl, a step's `step` and a
tool's name under a thought's `applied`, a review's or the boss's verdict. The office, the mind's
prompt and schema, a scenario, the record schema and the readers all take them from here.
"""

from __future__ import annotations

from typing import Literal

from ideaco.cycle import Words


class ConversationKind(Words):
    """Where a conversation happens; the gates (spec 2.2) depend on it."""

    WORK = "work"
    CASUAL = "casual"
    DM = "dm"
    BOSS = "boss"


GROUP_KINDS = (ConversationKind.WORK, ConversationKind.CASUAL)  # rooms, as against a DM or a boss chat
# A room's kind where a scenario or a tool names one (a pydantic field's type: "work" or "casual").
RoomKind = Literal[tuple(k.value for k in GROUP_KINDS)]  # type: ignore[valid-type]


class MessageKind(Words):
    """What a logged message is (messages.jsonl's `kind`)."""

    CHAT = "chat"  # an employee's or the boss's words
    SYSTEM = "system"  # the system's line: a room opened, a tool's notice
    CLAIMABLE = "claimable"  # a system line telling a room of work put on the board
    ESCALATION = "escalation"  # an employee's message escalating to the boss (its boss chat)


class StepKind(Words):
    """What a step of a think did (`applied.steps[i].step`, office/core/steps.py; its record's shape
    is store/step_records.py's)."""

    MIND = "mind"  # an employee's mind changed
    EMPLOYEE = "employee"  # someone joined or changed
    CONVERSATION = "conversation"  # a conversation opened or changed
    COMPANY = "company"  # the departments and requirements changed
    OWE = "owe"  # a think owed to an employee
    OWE_AGAIN = "owe_again"  # a think that did not happen, owed again
    DRAFT = "draft"  # a draft's verdict: posted or held by a gate
    GATE_HOLD = "hold"  # a mentioned employee held back by a gate, its reply owed
    BOARD = "board"  # the task board changed
    NOTICE = "notice"  # a system line posted for a think
    TOOL = "tool"  # a tool call: done or refused, and what it said
    DOCUMENT = "document"  # what a document tool changed


class ToolName(Words):
    """A tool a thought calls (an action's `tool`, a tool step's `tool`): the secretary's organization
    tools, the document tools, and the two every employee has."""

    CREATE_DEPARTMENT = "create_department"
    HIRE_EMPLOYEE = "hire_employee"
    CREATE_ROOM = "create_room"
    CREATE_TEAM = "create_team"
    ASSIGN_REQUIREMENT = "assign_requirement"
    DISMISS_EMPLOYEE = "dismiss_employee"
    SUMMARIZE = "summarize"
    WRITE_DOCUMENT = "write_document"
    REVISE_DOCUMENT = "revise_document"
    READ_DOCUMENT = "read_document"
    REQUEST_REVIEW = "request_review"
    REVIEW = "review"
    REBUT = "rebut"
    SIGN_OFF = "sign_off"
    SEND_MESSAGE = "send_message"
    LOAD_SKILL = "load_skill"


# The document tools (issue 20), in the order the model's schema lists them (the secretary's
# organization tools are `mind/thought/model.TOOL_ARGS`, with their arguments).
DOCUMENT_TOOLS = (
    ToolName.WRITE_DOCUMENT,
    ToolName.REVISE_DOCUMENT,
    ToolName.READ_DOCUMENT,
    ToolName.REQUEST_REVIEW,
    ToolName.REVIEW,
    ToolName.REBUT,
    ToolName.SIGN_OFF,
)


class Verdict(Words):
    """A judgment: a reviewer's on a document (approve or reject), the boss's on a requirement
    (approve or reopen: `/approve`, `/reopen`), as a tool's `verdict` and a command say it."""

    APPROVE = "approve"
    REJECT = "reject"
    REOPEN = "reopen"


REVIEW_VERDICTS = (Verdict.APPROVE, Verdict.REJECT)
BOSS_VERDICTS = (Verdict.APPROVE, Verdict.REOPEN)
