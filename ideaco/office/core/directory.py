"""Who works here and who is in which conversation: an index over the office's state, kept until it
changes; and `StateReads`, the state's own reads over it (issue 38, item 1).

Asked several times per look, so it is built once and kept until the company changes
(`invalidate`, or a change in the number of employees or conversations): a look costs the same
at any size.
"""

from __future__ import annotations

from ideaco.ids import display_name
from ideaco.office.core.company import Company
from ideaco.office.core.state import ConversationState, Employee, OfficeState


class Directory:
    """A cache over `OfficeState`; never the source of truth."""

    def __init__(self, state: OfficeState) -> None:
        self._state = state
        self._people: dict[str, str] | None = None
        self._memberships: dict[str, list[str]] | None = None
        self._indexed: tuple[int, int] = (-1, -1)  # (employees, conversations) when indexed

    def over(self, state: OfficeState) -> Directory:
        """This index over a copy of the state with the same people and memberships (a what-if's)."""
        other = Directory(state)
        other._people, other._memberships, other._indexed = self._people, self._memberships, self._indexed
        return other

    def invalidate(self) -> None:
        """Forget who works here and who is in which conversation (after a change to either)."""
        self._people = None
        self._memberships = None

    def _check(self) -> None:
        counts = (len(self._state.employees), len(self._state.conversations))
        if counts != self._indexed:
            self._indexed = counts
            self.invalidate()

    @property
    def people(self) -> dict[str, str]:
        """Who works here now: id -> name (the dismissed are gone from mentions and ops). Read only."""
        self._check()
        if self._people is None:
            self._people = {e.id: e.name for e in self._state.employees.values() if not e.dismissed}
        return self._people

    def conversations_of(self, employee: str) -> list[ConversationState]:
        """The conversations `employee` is a member of, in the office's order."""
        self._check()
        conversations = self._state.conversations
        if self._memberships is None:
            index: dict[str, list[str]] = {}
            for conv in conversations.values():
                for member in dict.fromkeys(conv.members):
                    index.setdefault(member, []).append(conv.id)
            self._memberships = index
        return [conversations[cid] for cid in self._memberships.get(employee, ())]


class StateReads:
    """What may be read of the office's state: the state's own reads, in core so that whoever reads
    it (perceive, decide, resolve, the engine) reads core's code. `Office`, `Landing` and
    `OfficeRead` are each one, over their `state` and `Directory`."""

    state: OfficeState
    _directory: Directory

    @property
    def employees(self) -> dict[str, Employee]:
        return self.state.employees

    @property
    def conversations(self) -> dict[str, ConversationState]:
        return self.state.conversations

    @property
    def company_model(self) -> Company:
        return self.state.company

    @property
    def counters(self) -> dict[str, int]:
        return self.state.counters

    @property
    def people(self) -> dict[str, str]:
        """Who works here now: id -> name (the dismissed are gone from mentions and ops). Read only."""
        return self._directory.people

    def invalidate_index(self) -> None:
        """Forget who works here and who is in which conversation (after a change to either)."""
        self._directory.invalidate()

    def name_of(self, who: str) -> str:
        emp = self.employees.get(who)
        return display_name(who, emp.name if emp else None)

    def conversations_of(self, employee: str) -> list[ConversationState]:
        """The conversations `employee` is a member of, in the office's order."""
        return self._directory.conversations_of(employee)
