"""One random stream per employee and one for the office (issue 19): reproducible from the run's
seed, independent of each other, one integer of state each, and a copy draws what the original
draws."""

from __future__ import annotations

import json
import statistics
from datetime import timedelta

import pytest

from ideaco.office.engine import persistence
from ideaco.office.engine.build import office_from_state
from ideaco.office.engine.clock import SimClock
from ideaco.office.engine.streams import OFFICE, Stream, Streams
from ideaco.office.resolve.journal import MemoryJournal
from tests.fakes.llm import ScriptedLLM
from tests.office.conftest import ROOM, thought, who


def draws(stream: Stream, n: int = 5) -> list[float]:
    return [stream.random() for _ in range(n)]


def test_a_stream_is_its_seed_and_name() -> None:
    assert draws(Stream(7, "alice")) == draws(Stream(7, "alice"))
    assert draws(Stream(7, "alice")) != draws(Stream(8, "alice"))
    assert draws(Stream(7, "alice")) != draws(Stream(7, "bob"))


def test_a_stream_goes_on_from_how_far_it_has_drawn() -> None:
    whole = Stream(7, "alice")
    first, rest = draws(whole, 3), draws(whole, 20)  # rest crosses a hash block of eight words
    resumed = Stream(7, "alice", drawn=3)
    assert draws(resumed, 20) == rest and whole.getstate() == resumed.getstate() == 23
    assert draws(Stream(7, "alice"), 23) == first + rest  # the same draws as one stream's 23
    assert first != rest[:3]


def test_a_streams_draws_are_fixed_by_its_seed_name_and_count() -> None:
    """state.json keeps only how far each stream drew: the same seed, name and count give the same
    draws in every version of ideaco, or a resumed run (and every recorded guard) would go another way."""
    stream = Stream(7, "alice")
    assert [stream.random() for _ in range(3)] == [
        0.6617956384429409,
        0.05481038961900464,
        0.4909941102606906,
    ]
    assert stream.getrandbits(64) == 2102504144588186119  # one word
    assert stream.getrandbits(100) == 622507999966620908734712180510  # two words, the top 100 bits
    assert (stream.getrandbits(1), stream.getrandbits(64)) == (0, 10674609633284639374)  # a word each
    assert stream.getstate() == 8
    assert Stream(7, "alice", drawn=8).random() == 0.9336135549321475  # resumed at the second hash block


def test_a_copy_draws_what_the_original_draws_and_leaves_it_where_it_was() -> None:
    stream = Stream(7, "alice")
    stream.random()
    twin = stream.copy()
    ahead = [twin.uniform(5, 20), twin.choice("abcdefghij"), twin.randrange(2**31)]
    assert stream.getstate() == 1
    assert [stream.uniform(5, 20), stream.choice("abcdefghij"), stream.randrange(2**31)] == ahead


def test_draws_look_uniform() -> None:
    stream = Stream(1, "x")
    values = draws(stream, 20_000)
    assert all(0.0 <= v < 1.0 for v in values)
    assert abs(statistics.mean(values) - 0.5) < 0.01
    assert abs(statistics.pstdev(values) - (1 / 12) ** 0.5) < 0.01
    counts = [0] * 10
    for _ in range(20_000):
        counts[stream.randrange(10)] += 1
    assert max(counts) - min(counts) < 300
    assert stream.getrandbits(0) == 0 and 0 <= stream.getrandbits(100) < 2**100
    with pytest.raises(ValueError):
        stream.getrandbits(-1)


def test_one_employees_draws_never_move_anothers() -> None:
    quiet, busy = Streams(7), Streams(7)
    for _ in range(50):
        busy.of("bob").random()
    assert draws(quiet.of("alice")) == draws(busy.of("alice"))


def test_the_current_stream_is_the_events_and_comes_back_after_it() -> None:
    streams = Streams(7)
    assert streams.current.name == OFFICE
    with streams.drawing("alice") as alice:
        assert streams.current is alice
        with streams.drawing("bob"):
            assert streams.current.name == "bob"
        assert streams.current is alice
    assert streams.current.name == OFFICE


def test_streams_round_trip_through_state_json_as_counts() -> None:
    streams = Streams(7)
    streams.of("alice").random()
    streams.of("bob")  # made, never drawn: not saved
    saved = json.loads(json.dumps(streams.to_dict()))
    assert saved == {"seed": 7, "drawn": {"alice": 1}}
    again = Streams.from_dict(saved)
    assert draws(again.of("alice")) == draws(streams.of("alice"))


async def test_a_resumed_office_draws_on_from_its_saved_streams(make_office) -> None:
    office = make_office(
        lambda r: thought(True, f"{who(r).employee} here"),
        seed=3,
        script=[{"at": "00:00", "to": ROOM, "text": "Hi"}],
    )
    office.start()
    await office.run(timedelta(minutes=5))
    snapshot = json.loads(json.dumps(persistence.snapshot(office)))
    assert snapshot["office"]["streams"]["drawn"]["alice"] > 0
    resumed = office_from_state(
        snapshot,
        list(office.journal.messages),
        thoughts=list(office.journal.thoughts),
        llm=ScriptedLLM(handler=lambda r: thought()),
        clock=SimClock(office.now()),
        journal=MemoryJournal(),
    )
    for name in ("alice", "bob", OFFICE):
        assert resumed.streams.of(name).getstate() == office.streams.of(name).getstate()


def test_a_state_saved_with_one_generator_starts_streams_from_its_seed() -> None:
    from ideaco.office.engine.persistence import restore_streams

    meta = {"seed": 5, "rng": [3, [1, 2, 3], None]}
    streams = restore_streams(meta)
    assert "rng" not in meta and streams.seed == 5 and streams.of("alice").getstate() == 0
