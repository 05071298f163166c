"""The embedded model's layout for a machine, and each employee's fixed server and slot."""

from __future__ import annotations

from dataclasses import replace

import pytest

from ideaco.llm.config import resolve_settings
from ideaco.llm.embedded import MAX_SLOTS, Layout, choose_layout
from ideaco.llm.routing import SlotRouter


@pytest.mark.parametrize(
    ("cpus", "concurrency", "employees", "threads", "slots", "layout"),
    [
        (2, 2, 6, None, None, Layout(2, 1, 3)),  # the default on 2 cores: two 1-thread instances
        (2, 2, 7, None, None, Layout(2, 1, 4)),  # 7 employees: 4 + 4 slots
        (1, 2, 6, None, None, Layout(1, 1, 6)),  # one core: one instance, whatever the concurrency
        (8, 2, 6, None, None, Layout(2, 1, 3)),  # no more instances than calls in flight
        (2, 1, 6, None, None, Layout(1, 1, 6)),
        (2, 2, 6, 2, None, Layout(1, 2, 6)),  # --threads 2 on 2 cores: one instance of 2 threads
        (4, 2, 6, 2, None, Layout(2, 2, 3)),
        (2, 2, 6, 3, None, Layout(1, 3, 6)),  # more threads than cores: still one instance
        (2, 2, 6, None, 2, Layout(2, 1, 1)),  # --slots 2: one slot per instance
        (2, 2, 6, None, 1, Layout(2, 1, 1)),  # never fewer slots than instances
        (2, 2, 0, None, None, Layout(2, 1, 1)),
        (2, 2, 100, None, None, Layout(2, 1, MAX_SLOTS // 2)),  # slots are capped (memory)
    ],
)
def test_choose_layout(cpus, concurrency, employees, threads, slots, layout) -> None:
    assert choose_layout(cpus, concurrency, employees, threads=threads, slots=slots) == layout


def test_layout_describes_itself() -> None:
    assert Layout(2, 1, 3).describe() == "2 llama.cpp instances x (1 thread, 3 cache slots)"
    assert Layout(1, 2, 1).describe() == "1 llama.cpp instance x (2 threads, 1 cache slot)"


def test_a_key_keeps_its_place_and_keys_spread_over_servers_first() -> None:
    router = SlotRouter(servers=2, slots=2)
    places = [router.place(k) for k in ("ann", "bob", "cyd", "dan", "ann", "eve")]
    assert places == [(0, 0), (1, 0), (0, 1), (1, 1), (0, 0), (0, 0)]  # eve shares ann's slot


def test_a_router_needs_a_server_and_a_slot() -> None:
    with pytest.raises(ValueError):
        SlotRouter(0, 1)
    with pytest.raises(ValueError):
        SlotRouter(1, 0)


@pytest.mark.parametrize(
    ("servers", "slots", "places"),
    [
        (1, 1, [(0, 0), (0, 0), (0, 0)]),  # one server, one slot: everyone shares it
        (1, 2, [(0, 0), (0, 1), (0, 0)]),  # one server: keys stack in its slots, then share
        (2, 1, [(0, 0), (1, 0), (0, 0)]),  # one slot each: keys spread, then share
    ],
)
def test_a_one_server_or_one_slot_router_places_every_key(servers: int, slots: int, places: list) -> None:
    """Issue 37, item 11: the smallest layouts (a one-core machine, --slots 1) are routers too."""
    router = SlotRouter(servers, slots)
    assert [router.place(k) for k in ("ann", "bob", "cyd")] == places


def test_threads_and_slots_come_from_the_flags_or_the_environment() -> None:
    env = {"IDEACO_THREADS": "2", "IDEACO_SLOTS": "4"}
    assert (resolve_settings(env=env).threads, resolve_settings(env=env).slots) == (2, 4)
    assert resolve_settings(env=env, threads=1, slots=8).threads == 1
    assert resolve_settings(env={}).threads is None and resolve_settings(env={}).slots is None
    with pytest.raises(ValueError, match="IDEACO_THREADS: expected a positive integer"):
        resolve_settings(env={"IDEACO_THREADS": "0"})


def test_the_ram_prompt_cache_size_comes_from_the_environment() -> None:
    assert resolve_settings(env={}).cache_ram_mib is None  # the default (embedded.PROMPT_CACHE_MIB)
    assert resolve_settings(env={"IDEACO_CACHE_RAM": "0"}).cache_ram_mib == 0
    assert resolve_settings(env={"IDEACO_CACHE_RAM": " 512 "}).cache_ram_mib == 512
    assert resolve_settings(env={"IDEACO_CACHE_RAM": "1048576"}).cache_ram_mib == 1 << 20  # the most
    for bad in ("-1", "1.5", "lots", "²", "١٢٨", "１２８", "1048577", "4294967296"):
        with pytest.raises(
            ValueError,
            match=f"IDEACO_CACHE_RAM: expected a size in MiB up to 1048576 \\(0 for none\\), got '{bad}'",
        ):
            resolve_settings(env={"IDEACO_CACHE_RAM": bad})


@pytest.mark.parametrize(
    ("name", "good", "bad"),
    [
        ("IDEACO_THREADS", "1024", ("0", "-2", "4294967296", "1025", "²", "٤", "1.5")),
        ("IDEACO_SLOTS", "16", ("0", "4294967296", "３")),
        ("IDEACO_RETRIES", "3", ("0", "99999999999999999999", "٣")),
        ("IDEACO_TIMEOUT", "86400", ("0", "-1", "nan", "inf", "1e400", "86401", "١٢٠")),
        ("IDEACO_RETRY_DELAY", "0.5", ("0", "1e309", "²")),
        ("IDEACO_ENDPOINT_REST", "10", ("-10", "nan", "86400.5")),
    ],
)
def test_every_number_ideaco_reads_from_the_environment_is_range_checked(
    name: str, good: str, bad: tuple[str, ...]
) -> None:
    """Issue 37, item 3: overflow, digits of another script, signs, NaN: one line naming the variable."""
    resolve_settings(env={name: good})
    for value in bad:
        with pytest.raises(
            ValueError, match=f"^environment variable {name}: expected a positive .* got '{value}'$"
        ):
            resolve_settings(env={name: value})


def test_a_rate_from_the_environment_takes_ascii_digits_only() -> None:
    with pytest.raises(ValueError, match="IDEACO_RATE"):
        resolve_settings(env={"IDEACO_RATE": "١٢/min"})
    assert resolve_settings(env={"IDEACO_RATE": "12/min"}).requests_per_second == pytest.approx(0.2)


def test_where_a_request_is_computed_does_not_change_its_recorded_key() -> None:
    from ideaco.llm.base import ChatRequest

    plain = ChatRequest(messages=[{"role": "user", "content": "hi"}], model="m")
    placed = ChatRequest(messages=[{"role": "user", "content": "hi"}], model="m", cache_key="ann", slot=3)
    assert plain.key() == placed.key()


def test_only_a_llama_cpp_request_names_its_slot() -> None:
    from ideaco.llm.base import ChatRequest
    from ideaco.llm.openai_chat import OpenAIChatLLM

    request = ChatRequest(messages=[{"role": "user", "content": "hi"}], model="m", json_schema={}, slot=2)
    local = OpenAIChatLLM("http://127.0.0.1:9/v1", None, llama_grammar=True)
    remote = OpenAIChatLLM("http://127.0.0.1:9/v1", None)
    assert local._arguments(request, "grammar")["extra_body"]["id_slot"] == 2
    assert "id_slot" not in remote._arguments(request, "json_schema")["extra_body"]


async def test_a_prompt_sent_again_to_the_slot_that_holds_it_is_computed_afresh() -> None:
    """Issue 29, item 5: llama.cpp would serve a repeated prompt from the slot's cache and compute
    its last token alone (other arithmetic, another answer): the router asks for it afresh."""
    from ideaco.llm.base import ChatRequest, ChatResult, Usage
    from ideaco.llm.routing import RoutedLLM

    sent: list[ChatRequest] = []

    class Server:
        async def complete(self, request: ChatRequest) -> ChatResult:
            sent.append(request)
            return ChatResult(content="{}", model="m", usage=Usage(1, 1), latency_ms=1.0)

        async def aclose(self) -> None:
            return None

    llm = RoutedLLM([Server(), Server()], SlotRouter(servers=2, slots=2))
    ann = ChatRequest(messages=({"role": "user", "content": "hi"},), model="m", cache_key="ann")
    later = ChatRequest(messages=({"role": "user", "content": "hi again"},), model="m", cache_key="ann")
    bob = ChatRequest(messages=ann.messages, model="m", cache_key="bob")
    for request in (ann, ann, bob, later, ann, ann, ann):
        await llm.complete(request)
    assert [(r.cache_key, r.slot, r.fresh) for r in sent] == [
        ("ann", 0, False),
        ("ann", 0, True),  # the same prompt again to the server that holds it: afresh
        ("bob", 0, False),  # another server (1): its own history
        ("ann", 0, False),
        ("ann", 0, True),  # the server may still hold it (a prompt cache in RAM): afresh
        ("ann", 0, True),
        ("ann", 0, True),
    ]
    assert all(r.key() == ann.key() for r in sent if r.messages == ann.messages and r.cache_key == "ann")


async def test_the_same_prompt_with_its_fields_in_another_order_is_the_same_prompt() -> None:
    """A message's fields in another order are the same prompt to llama.cpp: sent afresh again."""
    from ideaco.llm.base import ChatRequest, ChatResult, Usage
    from ideaco.llm.routing import RoutedLLM

    sent: list[ChatRequest] = []

    class Server:
        async def complete(self, request: ChatRequest) -> ChatResult:
            sent.append(request)
            return ChatResult(content="{}", model="m", usage=Usage(1, 1), latency_ms=1.0)

        async def aclose(self) -> None:
            return None

    llm = RoutedLLM([Server()], SlotRouter(servers=1, slots=1))
    one = ChatRequest(messages=({"role": "user", "content": "hi"},), model="m", cache_key="ann")
    other = ChatRequest(messages=({"content": "hi", "role": "user"},), model="m", cache_key="ann")
    await llm.complete(one)
    await llm.complete(other)
    assert [r.fresh for r in sent] == [False, True]


def test_a_fresh_request_asks_llama_cpp_to_leave_its_cache_alone() -> None:
    from ideaco.llm.base import ChatRequest
    from ideaco.llm.openai_chat import OpenAIChatLLM

    llm = OpenAIChatLLM("http://127.0.0.1:9/v1", None)
    request = ChatRequest(messages=({"role": "user", "content": "hi"},), model="m", slot=1)
    assert "cache_prompt" not in llm._arguments(request, "grammar")["extra_body"]
    fresh = llm._arguments(replace(request, fresh=True), "grammar")["extra_body"]
    assert fresh["cache_prompt"] is False and fresh["id_slot"] == 1


async def test_each_server_computes_one_request_at_a_time() -> None:
    """Issue 29, item 5: llama.cpp batches the requests of its slots together, and a prompt computed
    beside another comes out in other last bits (measured: another answer); which calls meet
    depends on the machine's timing, so the router sends one request at a time to each server."""
    import asyncio

    from ideaco.llm.base import ChatRequest, ChatResult, Usage
    from ideaco.llm.routing import RoutedLLM

    busy = [0, 0]
    most = [0, 0]

    class Server:
        def __init__(self, n: int) -> None:
            self.n = n

        async def complete(self, request: ChatRequest) -> ChatResult:
            busy[self.n] += 1
            most[self.n] = max(most[self.n], busy[self.n])
            await asyncio.sleep(0.01)
            busy[self.n] -= 1
            return ChatResult(content="{}", model="m", usage=Usage(1, 1), latency_ms=1.0)

        async def aclose(self) -> None:
            return None

    llm = RoutedLLM([Server(0), Server(1)], SlotRouter(servers=2, slots=2))
    asks = [
        ChatRequest(messages=({"role": "user", "content": str(i)},), model="m", cache_key=who)
        for i, who in enumerate(["ann", "bob", "cyd", "dan", "ann", "bob"])
    ]
    await asyncio.gather(*(llm.complete(r) for r in asks))
    assert most == [1, 1]  # ann and cyd share server 0, bob and dan server 1: never two at once there
