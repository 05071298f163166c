"""`ideaco chat`: the boss's terminal chat with a running office.

At a terminal the office runs on the real clock (APScheduler, `--speed` times faster) while
the boss types: the prompt (prompt_toolkit) and the office share one asyncio loop, and
incoming messages are printed above the line being typed (`patch_stdout`), never through it.
With standard input not a terminal, the chat is a script on the simulated clock: each line
is posted at the current simulated moment, and only `/wait DURATION` lets time pass.
`/quit` (or Ctrl-C, Ctrl-D, end of input) saves the state and summary.json; running
`ideaco chat RUNDIR` again continues the same office.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import sys
import time
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from pathlib import Path

from rich.console import Console
from rich.text import Text

from ideaco.cli import chat_commands as views
from ideaco.cli import chat_resume, lag, org_commands, signals, work_commands
from ideaco.cli.chat_commands import Command, CommandError, default_conversation, parse_line
from ideaco.cli.display import Transcript, safe_text
from ideaco.cli.errors import UserError, write_failure
from ideaco.cli.stdin_lines import start_reader
from ideaco.cycle import Phase
from ideaco.errors import IdeacoError
from ideaco.ids import boss_conversation_id
from ideaco.kinds import BOSS_VERDICTS
from ideaco.office.decide import commands
from ideaco.office.decide.speech import outsiders
from ideaco.office.engine.clock import RealClock, SimClock
from ideaco.office.engine.office import Office
from ideaco.office.rules import holds, mentions
from ideaco.session import ModelOptions, OpenedRun, open_existing, open_new, open_new_company, read_log

QUIT_REASON = "the boss left the chat"
# The real clock runs until the boss quits; the horizon only bounds the scheduler's wait.
HORIZON = timedelta(days=3650)
WAIT_POLL_S = 0.05


@dataclass
class ChatOptions:
    source: Path | None
    out: Path | None
    speed: float | None  # None: the last chat's in this run directory, else 1
    seed: int
    model: ModelOptions
    new: str | None = None  # an empty company with this name (--new)


def chat_command(options: ChatOptions, *, interactive: bool | None = None) -> int:
    """Open (or reopen) an office and chat with it until /quit; 0 when done."""
    if interactive is None:
        interactive = _is_tty(sys.stdin) and _is_tty(sys.stdout)
    # Not a terminal: plain text, whatever FORCE_COLOR says; never wrap a line in two.
    console = Console(highlight=False, soft_wrap=True, force_terminal=interactive)
    options = replace(options, speed=chat_resume.speed(options.speed, options.source))
    with signals.interruptible():
        opened = open_chat(options, console, interactive=interactive)
    office = opened.office
    session = ChatSession(opened, console, interactive=interactive)
    office.observers.append(session.transcript)
    console.print(
        Text.assemble(
            (f"{'continuing' if opened.resumed else 'opening'} {safe_text(office.company)}", "bold"),
            f" · {opened.describe_model()} · "
            + (f"real clock ×{options.speed:g}" if interactive else "simulated clock")
            + f" · run directory {opened.rundir.path} · /help for commands",
        )
    )
    if opened.resumed:
        session.show(chat_resume.recap(office, session.conversation))
    wall_start = time.monotonic()
    try:
        asyncio.run(session.run())
        chat_resume.remember(office, options.speed, session.conversation)
        with signals.held():  # a second Ctrl-C waits for the save
            summary = opened.finish(time.monotonic() - wall_start)
    except Exception as exc:
        failure = write_failure(exc, opened.rundir.path)
        if failure is None:
            raise
        raise failure from None
    finally:
        with signals.held():
            opened.close()
    if office.failed:
        raise UserError(f"{office.stop_reason} (logs so far in {opened.rundir.path})")
    if office.stop_reason and office.stop_reason != QUIT_REASON:
        console.print(Text(f"stopped: {office.stop_reason}", style="bold"))
    console.print(
        Text(
            f"saved: {summary['messages']} messages, {summary['thoughts']} thoughts. "
            f"Continue with: ideaco chat {opened.rundir.path}",
            style="bold",
        )
    )
    return signals.exit_code(session.stopped_by) if session.stopped_by is not None else 0


def _is_tty(stream: object) -> bool:
    try:
        return bool(stream is not None and stream.isatty())  # type: ignore[attr-defined]
    except (AttributeError, ValueError):  # a closed or unusual stream
        return False


def open_chat(options: ChatOptions, console: Console, *, interactive: bool) -> OpenedRun:
    """A scenario file opens a new office; a run directory continues its office."""

    def status(line: str) -> None:
        console.print(Text(line, style="dim"))

    source = options.source
    if (source is None) == (options.new is None):
        raise UserError(
            "give a scenario file (a new office), a run directory (to continue one), or --new NAME (an empty company)"
        )
    speed = options.speed

    def real_clock(start: datetime) -> RealClock:
        clock = RealClock(start, speed=speed)
        clock.pause()  # time starts with the session, not while the model and the state load
        return clock

    clock = real_clock if interactive else SimClock
    if options.new is not None:
        return open_new_company(
            options.new, model=options.model, seed=options.seed, out=options.out, clock=clock, status=status
        )
    assert source is not None
    if source.is_dir():
        if options.out is not None:
            raise UserError("--out does not apply to a run directory: the chat continues in it")
        return open_existing(source, model=options.model, clock=clock, status=status)
    return open_new(
        source, model=options.model, seed=options.seed, out=options.out, clock=clock, status=status
    )


async def advance(office: Office, until: datetime) -> None:
    """Let the office run to `until` (or until stopped), then save.

    Unlike `Office.run`, the run's `end_at` is left alone: a chat has no end of its own, and a
    later `ideaco run --resume` must still see the scenario's.
    """
    try:
        await office.clock.run_until(until, office.stop_event)
    finally:
        office.checkpoint()


async def settle(office: Office) -> None:
    """Step the simulated clock until the thinks in flight now have finished.

    New thinks that start meanwhile are left running: this waits for answers, not for silence.
    """
    busy = {e.id for e in office.employees.values() if e.desk.phase == Phase.THINKING}
    while busy and not office.stop_event.is_set():
        if not await office.step():
            break
        busy = {i for i in busy if office.employees[i].desk.phase == Phase.THINKING}


class ChatSession:
    """The boss at the keyboard: the current conversation, and what each typed line does."""

    def __init__(self, opened: OpenedRun, console: Console, *, interactive: bool) -> None:
        self.opened = opened
        self.office = opened.office
        self.console = console
        self.interactive = interactive
        self.conversation = chat_resume.conversation(self.office, default_conversation(self.office))
        self.done = False
        self.quit_event: asyncio.Event | None = None
        self.stopped_by: int | None = None  # Ctrl-C or SIGTERM: saved like /quit, exit 130 or 143
        self.transcript = Transcript(console, marks_script=True)

    @property
    def prompt(self) -> str:
        return f"[{self.conversation}] boss> "

    def show(self, lines: list[Text]) -> None:
        for line in lines:
            self.console.print(line)
        self.transcript.new_block()

    def hint(self, text: str) -> None:
        self.console.print(Text(text, style="yellow"))
        self.transcript.new_block()

    def quit(self, signum: int | None = None) -> None:
        """Ctrl-C or a termination signal: leave as /quit does (the exit code says which)."""
        if signum is not None and self.stopped_by is None:
            self.stopped_by = signum
        self.done = True
        self.office.stop(QUIT_REASON)
        if self.quit_event is not None:
            self.quit_event.set()

    # ------------------------------------------------------------------ the session

    async def run(self) -> None:
        self.quit_event = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
                loop.add_signal_handler(sig, self.quit, sig)
        office = self.office
        if office.clock.paused:
            office.clock.resume()
        office.start()
        try:
            if self.interactive:
                await self._interactive()
            else:
                await self._scripted()
        finally:
            office.stop(QUIT_REASON)  # keeps an earlier reason (a spent budget)
            await office.drain()  # cut thinks are re-woken when the chat continues
            office.clock.close()

    async def _scripted(self) -> None:
        """Lines from standard input, on the simulated clock; end of input is /quit."""
        lines: asyncio.Queue[str | None] = asyncio.Queue()
        start_reader(asyncio.get_running_loop(), lines)
        assert self.quit_event is not None
        quitting = asyncio.ensure_future(self.quit_event.wait())
        try:
            while not self.done and not self.office.stop_event.is_set():
                getting = asyncio.ensure_future(lines.get())
                await asyncio.wait({getting, quitting}, return_when=asyncio.FIRST_COMPLETED)
                if not getting.done():
                    getting.cancel()
                    break
                line = getting.result()
                if line is None:
                    break
                await self.handle(line)
        finally:
            quitting.cancel()

    async def _interactive(self) -> None:
        """The prompt and the office on the real clock, in this one loop."""
        from prompt_toolkit import PromptSession
        from prompt_toolkit.patch_stdout import patch_stdout

        office = self.office
        running = asyncio.ensure_future(advance(office, office.clock.now() + HORIZON))
        assert self.quit_event is not None
        quitting = asyncio.ensure_future(self.quit_event.wait())
        prompt: PromptSession[str] = PromptSession(erase_when_done=True)  # the transcript shows the line once

        async def ask() -> str:
            try:  # handle_sigint=False: Ctrl-C is a key here; a real SIGINT stays ours
                return await prompt.prompt_async(self.prompt, handle_sigint=False)
            except KeyboardInterrupt:  # the Ctrl-C key: leave, saved, as an interrupt (exit 130)
                self.stopped_by = self.stopped_by or signal.SIGINT
                return "/quit"
            except EOFError:  # Ctrl-D: an ordinary leave; caught here, out of a task they end the loop
                return "/quit"

        watching = asyncio.ensure_future(self._watch_lag())
        try:
            # raw: rich's colours pass through; agent text is already made safe by safe_text.
            with patch_stdout(raw=True):
                while not self.done and not running.done():
                    asking = asyncio.ensure_future(ask())
                    await asyncio.wait({asking, running, quitting}, return_when=asyncio.FIRST_COMPLETED)
                    if not asking.done():
                        asking.cancel()
                        with contextlib.suppress(asyncio.CancelledError, EOFError, KeyboardInterrupt):
                            await asking
                        break
                    await self.handle(asking.result())
        finally:
            quitting.cancel()
            watching.cancel()
            office.stop(QUIT_REASON)
            await running

    async def _watch_lag(self) -> None:
        """Once a real second, a status line if the model has fallen behind the clock (`lag.py`)."""
        office = self.office
        notice = lag.LagNotice(float(getattr(office.clock, "speed", 1.0)))
        while True:
            await asyncio.sleep(1.0)
            names = {e.id: e.name for e in office.employees.values()}
            line = notice.line(office.thinking.values(), office.now(), office.config.think_seconds, names)
            if line is not None:
                self.hint(line)

    # ------------------------------------------------------------------ one line

    async def handle(self, line: str) -> None:
        """Post a message, or run a command; a bad line gets a one-line hint, never a crash."""
        try:
            parsed = parse_line(line)
            if parsed is None:
                return
            if isinstance(parsed, str):
                message = self.office.post_as_boss(self.conversation, parsed)
                conv = self.office.conversations[message.conversation]
                words = [w for m in message.mentions for w in (m, self.office.name_of(m))]
                order = holds.boss_order(message.text, words) is not None  # an order reaches them anywhere
                for who in [] if order else outsiders(conv, message):  # told, instead of vanishing
                    name = safe_text(self.office.name_of(who))
                    self.hint(
                        f"{name} is not in {safe_text(conv.name)}: your @{name} reached no one (/dm {who})"
                    )
                for miss in mentions.near_misses(message.text, self.office.people):  # `@张伟你好`
                    self.hint(safe_text(miss.hint))
                said = commands.sign_off_hint(self.office.state, message.conversation, message.text)
                if said is not None:  # "Looks good, approved!" approves nothing: the command does
                    self.hint(said)
                return
            await self.command(parsed)
            self.transcript.new_block()  # what a command printed stands between: the next message's room is said
        except (CommandError, IdeacoError) as exc:
            self.hint(str(exc).splitlines()[0] if str(exc) else "cannot do that")

    async def command(self, cmd: Command) -> None:
        office, args = self.office, cmd.args
        if cmd.name == "quit":
            self.done = True
        elif cmd.name == "help":
            topic = args[0] if args else None
            self.show(views.help_lines(topic) + org_commands.help_lines(office, topic))
        elif cmd.name in org_commands.TOOLS:
            org_commands.run(office, cmd, self.conversation)
        elif cmd.name in ("room", "dm"):
            resolve = views.resolve_room if cmd.name == "room" else views.resolve_dm
            self.conversation = resolve(office, args[0])
            conv = office.conversations[self.conversation]
            self.console.print(Text(f"now writing in {conv.id} ({safe_text(conv.name)})", style="dim"))
        elif cmd.name == "who":
            self.show(views.who_lines(office) + org_commands.department_lines(office))
        elif cmd.name == "tasks":
            self.show(views.tasks_lines(office, views.resolve_employee(office, args[0]) if args else None))
        elif cmd.name in ("docs", "requirement", *BOSS_VERDICTS):  # the workspace (issue 20)
            self._work(cmd.name, args[0] if args else None, " ".join(args[1:]))
        elif cmd.name == "mind":
            employee = views.resolve_employee(office, args[0])
            count = int(args[1]) if len(args) > 1 else views.MIND_DEFAULT
            thoughts = read_log(self.opened.rundir.thoughts_path)
            self.show(views.mind_lines(office, thoughts, employee, count))
        elif cmd.name in ("mem", "rel", "stamina"):
            view = {"mem": views.mem_lines, "rel": views.rel_lines, "stamina": views.stamina_lines}[cmd.name]
            self.show(view(office, views.resolve_employee(office, args[0])))
        elif cmd.name in ("hold", "release"):
            self._hold(cmd.name, views.resolve_employee(office, args[0]), " ".join(args[1:]))
        elif cmd.name in ("pause", "resume"):
            self._pause(cmd.name == "pause")
        elif cmd.name == "wait":
            assert cmd.duration is not None
            await self._wait(cmd.duration)

    def _work(self, command: str, arg: str | None, notes: str = "") -> None:
        try:
            if command in BOSS_VERDICTS:
                said = work_commands.sign_off(self.office, str(arg), command, notes)
                self.console.print(Text(said, style="dim"))
            else:
                view = work_commands.docs_lines if command == "docs" else work_commands.requirement_lines
                self.show(view(self.office, arg))
        except work_commands.WorkCommandError as exc:
            raise CommandError(str(exc)) from None

    def _hold(self, command: str, employee: str, reason: str) -> None:
        """A hold or release is a boss order in the employee's boss chat, so the logs keep it."""
        emp = self.office.employees[employee]
        if emp.dismissed:
            raise CommandError(f"{employee} has left the company")
        if command == "release" and emp.desk.hold is None:
            raise CommandError(f"{employee} is not on hold")
        verb = holds.STOP if command == "hold" else holds.CONTINUE
        self.office.post_as_boss(boss_conversation_id(employee), holds.order_text(emp.name, verb, reason))
        said = (
            f"is on hold: no thinks until /release {employee}"
            if command == "hold"
            else "is back: what reached them meanwhile comes as one batch"
        )
        self.console.print(Text(f"{safe_text(emp.name)} {said}", style="dim"))

    def _pause(self, pause: bool) -> None:
        clock = self.office.clock
        if clock.paused == pause:
            raise CommandError("the clock is already paused" if pause else "the clock is not paused")
        if pause:
            clock.pause()
        else:
            clock.resume()
        at = clock.now().strftime("%H:%M:%S")
        word = f"paused at {at}: nobody wakes until /resume" if pause else f"resumed at {at}"
        self.console.print(Text(word, style="dim"))

    async def _wait(self, duration: timedelta) -> None:
        office = self.office
        if office.clock.paused:
            raise CommandError("the clock is paused: /resume first")
        target = office.clock.now() + duration
        if self.interactive:  # the clock runs by itself: just let the boss watch
            self.console.print(Text(f"waiting until {target.strftime('%H:%M:%S')} …", style="dim"))
            self.transcript.new_block()
            while office.clock.now() < target and not office.stop_event.is_set() and not self.done:
                await asyncio.sleep(WAIT_POLL_S)
            return
        await advance(office, target)
        await settle(office)
