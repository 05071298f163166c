"""Keeping each employee's prompt prefix warm on a local llama.cpp: one cache slot per employee.

llama.cpp reuses a slot's cached prompt when the next prompt sent to that slot starts the same
way. An office's prompts start with the employee's identity and rules, so sending every thought of
an employee to the same slot of the same server skips most of the prompt's processing. The
router places keys (employee ids) first come, first placed, spreading them over the servers
before stacking them in slots; past servers x slots, keys share slots.

A prompt sent again to a server that may hold it, in the slot or in its prompt cache in RAM (an
early call dropped, then its think asking the very same thing; a retry), is sent `fresh`, its
cache off. Otherwise llama.cpp would serve it all
from the cache and compute only its last token again, alone, by another kernel than a prompt's:
the logits would move in their last bits and a sampled token could flip, so the answer would
depend on what the slot happened to hold — on the machine's timing. Computed afresh, every prompt's
tokens are computed as prompt tokens, whatever the slot held before (issue 29, item 5).
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import replace

from ideaco.llm.base import LLM, ChatRequest, ChatResult


class SlotRouter:
    """Where a cache key's prompts go: `(server, slot)`, fixed once chosen."""

    def __init__(self, servers: int, slots: int) -> None:
        if servers < 1 or slots < 1:
            raise ValueError("a router needs at least one server and one slot")
        self.servers, self.slots = servers, slots
        self.placed: dict[str, tuple[int, int]] = {}

    def place(self, key: str) -> tuple[int, int]:
        if key not in self.placed:
            k = len(self.placed)
            self.placed[key] = (k % self.servers, (k // self.servers) % self.slots)
        return self.placed[key]


class RoutedLLM:
    """Sends each request to its key's server, naming its slot."""

    def __init__(self, clients: list[LLM], router: SlotRouter) -> None:
        if len(clients) != router.servers:
            raise ValueError(f"{len(clients)} clients for a router of {router.servers} servers")
        self.clients, self.router = clients, router
        # The prompts each server was sent (their hashes): one it may still hold, in a slot or in its
        # prompt cache in RAM, is sent afresh.
        self._sent: list[set[int]] = [set() for _ in clients]
        # One request at a time on each server: two sequences llama.cpp computes in one batch come
        # out in other last bits than each alone (measured: a prompt's few new tokens computed beside
        # another slot's prompt gave another answer), and which calls meet depends on the timing.
        self._one_at_a_time = [asyncio.Lock() for _ in clients]

    async def complete(self, request: ChatRequest) -> ChatResult:
        server, slot = self.router.place(request.cache_key)
        async with self._one_at_a_time[server]:
            prompt = hash(json.dumps(request.messages, sort_keys=True))
            fresh = prompt in self._sent[server]
            self._sent[server].add(prompt)
            return await self.clients[server].complete(replace(request, slot=slot, fresh=fresh))

    async def aclose(self) -> None:
        for client in self.clients:
            await client.aclose()
