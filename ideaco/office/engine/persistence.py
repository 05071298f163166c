"""The office as plain data for state.json, and the run's random streams as data and back."""

from __future__ import annotations

import time
from typing import Any

from ideaco.office.core.state import OFFICE_FORMAT
from ideaco.office.core.think import ThinkContext
from ideaco.office.engine.streams import Streams
from ideaco.office.perceive.view import OfficeView
from ideaco.office.resolve import change_log
from ideaco.office.resolve.journal import Journal


def snapshot(office: OfficeView) -> dict[str, Any]:
    """The whole office as plain data, for state.json (read only)."""
    return {
        "office": {
            **office.meta,
            "format_version": OFFICE_FORMAT,
            "company": office.company,
            "language": office.language,
            "now": office.now().isoformat(),
            "end_at": office.end_at.isoformat() if office.end_at else None,
            "stop_reason": office.stop_reason,
            "streams": office.streams.to_dict(),
            "counters": office.state.counters,
            "script": office.script,
            "script_next": office.script_next,
            "stats": office.stats.to_dict(),
            "organization": office.state.company.to_dict(),
            "board": [o.to_dict() for o in office.state.board.values()],
            "documents": [d.to_dict() for d in office.state.documents.values()],
        },
        # One TinyDB document per employee and per conversation.
        "employees": [e.to_dict() for e in office.state.employees.values()],
        "conversations": [c.to_dict() for c in office.state.conversations.values()],
    }


def restore_streams(meta: dict[str, Any]) -> Streams:
    """The run's random streams as saved; a state saved before there were streams (one `rng`) starts
    its streams afresh from the run's seed (its draws are not the old generator's)."""
    meta.pop("rng", None)
    saved = meta.pop("streams", None)
    return Streams.from_dict(saved) if saved else Streams(int(meta.get("seed") or 0))


class Saves:
    """When to save state.json: now (`begin`, then `save` the snapshot), or after a thought when `due`.

    A save rewrites the whole office, so saving after every thought of a fast model would cost
    each thought in proportion to the office's size. Thoughts are in the logs as they happen, and
    a resume applies those the last save missed (`build.catch_up`); with a model that takes
    seconds a thought, every thought is still saved. Before a save, each think that began and has
    no record yet (`begun`, kept by the office) is logged to changes.jsonl: state.json holds what beginning it took.
    """

    SHARE = 0.05  # at most this share of a run's wall time goes to saves after thoughts

    def __init__(self, journal: Journal, meta: dict[str, Any] | None = None) -> None:
        self._journal = journal
        self._meta = meta if meta is not None else {}
        self.begun: dict[str, ThinkContext] = {}  # employee -> its think begun whose record is not logged yet
        self._logged: set[str] = set()  # the thinks whose beginning is in changes.jsonl
        self._saved_at = float("-inf")  # perf_counter() at the end of the last save
        self._took = 0.0  # how long it took
        self._started = 0.0  # perf_counter() when the save under way began

    def begin(self) -> None:
        """Before a save: each think that began and has no record yet is logged to changes.jsonl
        (state.json holds what beginning it took)."""
        self._started = time.perf_counter()
        for ctx in list(self.begun.values()):
            if ctx.thought_id not in self._logged:
                self._logged.add(ctx.thought_id)
                record = change_log.begun_record(ctx.at, ctx.employee, ctx.thought_id, ctx.began)
                change_log.log(self._journal, self._meta, record)

    def save(self, snapshot: dict[str, Any]) -> None:
        """Write `snapshot` (the office as plain data, taken after `begin`) as state.json."""
        self._journal.checkpoint(snapshot)
        self._saved_at = time.perf_counter()
        self._took = self._saved_at - self._started

    def due(self) -> bool:
        """Whether a save after a thought keeps saves within their share of the run's wall time."""
        return time.perf_counter() - self._saved_at >= self._took / self.SHARE
