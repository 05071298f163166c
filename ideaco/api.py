"""The Python API: an office you can run, step, talk to as the boss, and look inside.

    import ideaco
    sim = ideaco.load("scenarios/startup.yaml", out="runs/demo", seed=7)   # or a run directory
    sim.run("30m")                     # simulated time; or sim.step() event by event
    sim.say("launch", "Status check?")   # as the boss (a room, boss:<id>, or an employee id)
    sim.employee("dan").tasks          # memory, relationships, tasks, stamina
    sim.interview("dan", "How is the launch going?")   # in character; the run does not change
    sim.close()                        # summary.json written, model stopped

The office runs on its own event loop in a background thread, so the same calls work in a
script, a REPL and a Jupyter notebook (whose own loop is already running). The CLI is a thin
layer over the same `ideaco.session` this module uses.
"""

from __future__ import annotations

import asyncio
import threading
import time
import warnings
from collections.abc import Coroutine, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, TypeVar

from ideaco.fork import ForkChanges, open_fork
from ideaco.interview import Answer, ask_everyone, interviewees, interviewees_now, parse_at, staff
from ideaco.kinds import Verdict
from ideaco.mind import relationships as rel
from ideaco.mind import stamina as st
from ideaco.mind.memory import MemoryItem
from ideaco.mind.tasks import Task
from ideaco.office.core.conversation import Message
from ideaco.office.engine.office import Office
from ideaco.office.rules.mentions import near_misses
from ideaco.session import ModelOptions, OpenedRun, open_existing, open_new, parse_run_duration, read_log
from ideaco.store.runlog import RunLog

T = TypeVar("T")


@dataclass(frozen=True)
class EmployeeView:
    """A read-only look at one employee's mind, as of the moment it was taken."""

    id: str
    name: str
    role: str
    long_term: list[MemoryItem]
    short_term: list[MemoryItem]
    summaries: dict[str, str]
    relationships: dict[str, dict[str, Any]]  # id -> {name, impression, affinity (drifted), updated_at}
    tasks: list[Task]
    stamina: dict[str, Any]  # patience, fatigue, stress, comfort, zone

    @property
    def memory(self) -> list[MemoryItem]:
        return [*self.long_term, *self.short_term]


class Simulation:
    """One office and its run directory, driven from Python."""

    def __init__(self, opened: OpenedRun) -> None:
        self._opened = opened
        self.office: Office = opened.office
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="ideaco-office", daemon=True)
        self._thread.start()
        self._wall = 0.0
        self._started = False
        self._closed = False

    # ------------------------------------------------------------------ driving

    def _call(self, coro: Coroutine[Any, Any, T]) -> T:
        if self._closed:
            raise RuntimeError("this simulation is closed")
        return asyncio.run_coroutine_threadsafe(coro, self._loop).result()

    async def _ensure_started(self) -> None:
        if not self._started:
            self._started = True
            await self._opened.begin()

    def run(self, duration: str | timedelta | None = None) -> None:
        """Run for a simulated duration ("30m", "2h", a timedelta), or to the run's end."""
        length = parse_run_duration(duration) if isinstance(duration, str) else duration

        async def go() -> None:
            await self._ensure_started()
            await self.office.run(length) if length is not None else await self.office.run()

        began = time.monotonic()
        try:
            self._call(go())
        finally:
            self._wall += time.monotonic() - began

    def step(self) -> bool:
        """Run the next scheduled event (a wake, a think, a script line); False when none is left."""

        async def go() -> bool:
            await self._ensure_started()
            return await self.office.step()

        return self._call(go())

    def say(self, conversation: str, text: str) -> dict[str, Any]:
        """Post as the boss in a room, `boss:<employee>`, or an employee id (its boss chat).

        An `@` that names nobody but runs on from a name (`@张伟你好`) is a warning, as in the chat.
        """

        async def go() -> Message:
            await self._ensure_started()
            return self.office.post_as_boss(conversation, text)

        message = self._call(go())
        for miss in near_misses(message.text, self.office.people):
            warnings.warn(miss.hint, UserWarning, stacklevel=2)
        return message.to_record()

    def approve(self, requirement: str) -> dict[str, Any]:
        """The boss approves a requirement its lead reported done (`/approve req-1` in the lead's
        boss chat): only the boss's own act approves one. Raises ValueError if it is not waiting."""
        return self._sign_off(requirement, Verdict.APPROVE, "")

    def reopen(self, requirement: str, notes: str) -> dict[str, Any]:
        """The boss reopens a requirement its lead reported done; `notes` say what to rework (the
        lead's new task quotes them). Raises ValueError if it is not waiting or `notes` is empty."""
        return self._sign_off(requirement, Verdict.REOPEN, notes)

    def _sign_off(self, requirement: str, verdict: str, notes: str) -> dict[str, Any]:
        async def go() -> Message:
            await self._ensure_started()
            return self.office.sign_off(requirement, verdict, notes)

        return self._call(go()).to_record()

    @property
    def now(self) -> datetime:
        return self.office.now()

    # ------------------------------------------------------------------ looking

    @property
    def path(self) -> Path:
        return Path(self._opened.rundir.path)

    @property
    def messages(self) -> list[dict[str, Any]]:
        """Every message so far, as in messages.jsonl."""
        return read_log(self._opened.rundir.messages_path)

    @property
    def thoughts(self) -> list[dict[str, Any]]:
        """Every thought so far, as in thoughts.jsonl."""
        return read_log(self._opened.rundir.thoughts_path)

    @property
    def employees(self) -> list[str]:
        return sorted(self.office.employees)

    def employee(self, employee_id: str) -> EmployeeView:
        """Memory, relationships, tasks and stamina of one employee."""
        emp = self.office.employees.get(employee_id)
        if emp is None:
            raise KeyError(f"no employee {employee_id!r} (known: {', '.join(self.employees)})")
        now, mind = self.now, emp.mind
        return EmployeeView(
            id=emp.id,
            name=emp.name,
            role=emp.role,
            long_term=list(mind.memory.long_term),
            short_term=list(mind.memory.short_term),
            summaries=dict(mind.memory.summaries),
            relationships={
                other: {
                    "name": r.name,
                    "impression": r.impression,
                    "affinity": round(rel.current_affinity(r, now), 1),
                    "updated_at": r.updated_at,
                }
                for other, r in mind.relationships.items()
            },
            tasks=list(mind.tasks),
            stamina={
                **mind.stamina.to_dict(),
                "comfort": st.comfort(mind.stamina),
                "zone": st.zone(mind.stamina),
            },
        )

    # ------------------------------------------------------------------ interviews

    def interview(self, employee: str, question: str, *, at: str | datetime | None = None) -> str:
        """Ask one employee a question; it answers in character from its memory, relationships and
        tasks — as they are now, or at `at` ("09:30" or a datetime) — and the run does not change."""
        if employee not in self.office.employees:
            raise KeyError(f"no employee {employee!r} (known: {', '.join(self.employees)})")
        return self._interview(question, [employee], at)[employee]

    def interview_all(self, question: str, *, at: str | datetime | None = None) -> dict[str, str]:
        """Ask everyone (the secretary aside: `interview("secretary", ...)`) the same question: employee id -> answer."""
        return self._interview(question, None, at)

    def _interview(self, question: str, who: list[str] | None, at: str | datetime | None) -> dict[str, str]:
        office = self.office
        if at is None:
            now, people = self.now, interviewees_now(office)
        else:
            run = RunLog.open(self.path)
            now = at if isinstance(at, datetime) else parse_at(at, run.start.date())
            people = interviewees(run, now)
        people = staff(people) if who is None else {e: people[e] for e in who if e in people}
        llm = self._opened.stack.outside_the_run()  # an interview is not part of the run

        async def go() -> list[Answer]:
            return await ask_everyone(
                llm,
                people,
                [question],
                now,
                company=office.company,
                language=office.language,
                model_for=lambda e: office.models.of(office.employees[e].model),
                temperature=office.config.temperature,
            )

        return {a.employee: a.answer for a in self._call(go())}

    # ------------------------------------------------------------------ forking

    def fork(
        self,
        *,
        at: str | datetime,
        out: str | Path | None = None,
        say: Sequence[tuple[str, str]] = (),
        switches: dict[str, str] | None = None,
        archetypes: dict[str, str] | None = None,
        drop_script: bool = False,
        seed: int | None = None,
        duration: str | None = None,
        **model: Any,
    ) -> Simulation:
        """A new run whose past up to `at` is this one's, with the changes made at that moment
        (`say`: boss lines as (room, text); `switches`, `archetypes` {employee: archetype}, `drop_script`,
        `seed`), ready to run; on this run's model unless model options are given (as `load` takes them).
        This run is only read, and goes on as it was."""
        changes = ForkChanges(
            say=tuple((room, text) for room, text in say),
            switches=dict(switches or {}),
            archetypes=dict(archetypes or {}),
            drop_script=drop_script,
            seed=seed,
        )
        options = _model_options(**model) if model else self._opened.model_options
        opened = open_fork(
            self.path,
            at=at,
            changes=changes,
            model=options,
            out=out,
            duration=duration,
            lock_held=not self._closed,
        )
        return Simulation(opened)

    # ------------------------------------------------------------------ closing

    def close(self) -> dict[str, Any]:
        """Write summary.json and the state, stop the model; returns the summary."""
        if self._closed:
            return {}

        async def drain() -> None:
            await self.office.drain()

        try:
            self._call(drain())
            summary = self._opened.finish(self._wall)
        finally:
            self._closed = True
            self._opened.close()
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(timeout=10)
        return summary

    def __enter__(self) -> Simulation:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def load(
    source: str | Path,
    *,
    out: str | Path | None = None,
    seed: int = 7,
    duration: str | None = None,
    base_url: str | list[str] | None = None,
    model: str | None = None,
    api_key_env: str | None = None,
    gguf: str | Path | None = None,
    record: str | Path | None = None,
    replay: str | Path | None = None,
    max_calls: int | None = None,
    max_tokens: int | None = None,
    concurrency: int = 2,
    switches: dict[str, str] | None = None,
    rate: str | None = None,
) -> Simulation:
    """A scenario file (a new run) or a run directory (continued), ready to run or step.

    Takes the same model options as `ideaco run` (`rate="60/min"` is `--rate`); with none, the embedded model. `switches`
    turn parts of the engine off for a new run, e.g. `{"gates": "off"}` (docs/evaluation.md).
    """
    options = _model_options(
        base_url=base_url,
        model=model,
        api_key_env=api_key_env,
        gguf=gguf,
        record=record,
        replay=replay,
        max_calls=max_calls,
        max_tokens=max_tokens,
        concurrency=concurrency,
        rate=rate,
    )
    path = Path(source)
    if path.is_dir():
        opened = open_existing(path, model=options, duration=duration)
    else:
        opened = open_new(path, model=options, seed=seed, out=out, duration=duration, switches=switches)
    return Simulation(opened)


def _model_options(**flags: Any) -> ModelOptions:
    """The model options `load` and `fork` take (paths as strings too), as `ModelOptions`."""
    for name in ("gguf", "record", "replay"):
        if flags.get(name):
            flags[name] = Path(flags[name])
    return ModelOptions(**flags)
