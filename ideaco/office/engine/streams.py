"""One random stream per employee and one for the office, all derived from the run's seed.

A think's draws (its look, its typing pause, its perspective and sampling seed, its next look, the
wakes its posts set off) come from its employee's own stream, so what one employee draws never
depends on what the others did: the request of an upcoming think can be built before its moment
(`office/engine/early.py`) and is the request that moment builds. The office's stream serves what no
employee does: the boss's messages and commands, the first looks of a new run.

A stream is counter-based: draw number n of stream (seed, name) is a keyed hash of n (BLAKE2b,
64 bytes: eight 64-bit words per hash), so its whole state is how many words it has drawn — one
integer per employee in state.json, and a copy is free (the `SeedSequence.spawn` idea, without
any shared generator). It is a `random.Random`, so every rule that takes an `rng` takes one.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

OFFICE = "office"  # the name of the office's own stream (not an employee id: ids are validated slugs)
_WORDS = 8  # 64-bit words per hash


class Stream(random.Random):
    """A reproducible random stream named `name` in the run seeded `seed`; its state is `drawn`."""

    def __init__(self, seed: int, name: str, drawn: int = 0) -> None:
        self.name = name
        self.drawn = drawn
        self._key = hashlib.blake2b(f"{seed}/{name}".encode(), digest_size=32).digest()
        self._block: tuple[int | None, tuple[int, ...]] = (None, ())  # the last hash block, none yet
        super().__init__()

    def seed(self, *args: Any, **kwargs: Any) -> None:
        """The stream is keyed by (seed, name) once; `random.Random.__init__` calls this, it does nothing."""

    def getstate(self) -> int:  # type: ignore[override]
        return self.drawn

    def setstate(self, state: int) -> None:  # type: ignore[override]
        self.drawn = int(state)

    def copy(self) -> Stream:
        """The same stream at the same place: what it draws next, the original draws too."""
        twin = Stream.__new__(Stream)
        twin.name, twin.drawn, twin._key, twin._block = self.name, self.drawn, self._key, self._block
        twin.gauss_next = None
        return twin

    def _word(self) -> int:
        n = self.drawn
        self.drawn = n + 1
        block, offset = divmod(n, _WORDS)
        if self._block[0] != block:
            digest = hashlib.blake2b(block.to_bytes(8, "little"), key=self._key, digest_size=64).digest()
            words = tuple(int.from_bytes(digest[i : i + 8], "little") for i in range(0, 64, 8))
            self._block = (block, words)
        return self._block[1][offset]

    def getrandbits(self, k: int) -> int:
        if k < 0:
            raise ValueError("number of bits must be non-negative")
        out, have = 0, 0
        while have < k:
            out |= self._word() << have
            have += 64
        return out >> (have - k)  # the top k bits of the words drawn

    def random(self) -> float:
        return (self._word() >> 11) * (1.0 / 9007199254740992.0)  # 53 bits, like random.random


class Streams:
    """The run's streams: one per employee (made on first use) and the office's (`OFFICE`).

    `current` is the stream of the event being handled (a think's employee, or the office);
    `Office.rng` is that stream, so the apply step draws from whoever's event it is.
    """

    def __init__(self, seed: int, drawn: dict[str, int] | None = None) -> None:
        self.seed = seed
        self._streams: dict[str, Stream] = {}
        for name, count in (drawn or {}).items():
            self._streams[name] = Stream(seed, name, count)
        self.current = self.of(OFFICE)

    def of(self, name: str) -> Stream:
        stream = self._streams.get(name)
        if stream is None:
            stream = self._streams[name] = Stream(self.seed, name)
        return stream

    @contextmanager
    def drawing(self, name: str) -> Iterator[Stream]:
        """Handle an event of `name` (an employee, or `OFFICE`): its draws come from that stream."""
        previous, self.current = self.current, self.of(name)
        try:
            yield self.current
        finally:
            self.current = previous

    def to_dict(self) -> dict[str, Any]:
        """For state.json: the seed and how far each stream has drawn (untouched streams left out)."""
        return {"seed": self.seed, "drawn": {n: s.drawn for n, s in sorted(self._streams.items()) if s.drawn}}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Streams:
        return cls(int(data["seed"]), {str(k): int(v) for k, v in (data.get("drawn") or {}).items()})
