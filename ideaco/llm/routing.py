"""Keeping each employee's prompt prefix warm on a local llama.cpp: one cache slot per employee.

llama.cpp reuses a slot's cached prompt when the next prompt sent to that slot starts the same
way. An office's prompts start with the employee's identity and rules, so sending every thought of
an employee to the same slot of the same server skips most of the prompt's processing. The
router places keys (employee ids) first come, first placed, spreading them over the servers
before stacking them in slots; past servers x slots, keys share slots.
"""

from __future__ import annotations

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

    async def complete(self, request: ChatRequest) -> ChatResult:
        server, slot = self.router.place(request.cache_key)
        return await self.clients[server].complete(replace(request, slot=slot))

    async def aclose(self) -> None:
        for client in self.clients:
            await client.aclose()
