"""The document tools on the compact wire (issue 20, item 8): offered only when they can apply, with
the paths and versions they may name as choices and the content bounded by the grammar; and a
requirement carried from the boss's words to the boss's approval on that wire alone."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

from benchmarks.requirement import carry
from ideaco.mind.board import default_document
from ideaco.mind.tasks import Task
from ideaco.mind.thought.wire import COMPACT_DOCUMENT_CALLS, WireContext, thought_schema
from ideaco.office.core import documents as core
from ideaco.office.core.refusal import Refusal
from ideaco.office.perceive import document_tools
from ideaco.office.rules import documents as rules
from tests.office.conftest import START, MakeOffice, thought

PATH = "docs/api.md"


def _office(make_office: MakeOffice):
    office = make_office(lambda request: thought())
    office.config.compact_schema = True
    return office


def _expect(office, who: str, path: str = PATH) -> None:
    task = Task(id="task-9", owner=who, description="Write the API spec", created_at=START, document=path)
    office.employees[who].mind.tasks.append(task)


def _write(office, who: str = "bob", path: str = PATH) -> core.Document:
    doc = rules.write(office.state.documents, "eng", path, "# API\n", who, START, "t1", None)
    assert not isinstance(doc, Refusal)
    office.state.documents[doc.key] = doc
    return doc


def test_nothing_is_offered_without_a_document_to_write_or_a_review_to_give(make_office: MakeOffice) -> None:
    office = _office(make_office)
    assert document_tools.calls(office, office.employees["bob"]) == ()
    assert not document_tools.offered(
        office, office.employees["bob"], document_tools.calls(office, office.employees["bob"])
    )
    assert document_tools.prompt_block(office, office.employees["bob"], ()) == ""


def test_a_task_that_expects_a_document_offers_writing_it_and_asking_for_its_review(
    make_office: MakeOffice,
) -> None:
    office = _office(make_office)
    _expect(office, "bob")
    assert document_tools.calls(office, office.employees["bob"]) == (
        ("write_document", (PATH,), ()),
        ("request_review", (PATH,), ()),
    )
    block = document_tools.prompt_block(
        office, office.employees["bob"], document_tools.calls(office, office.employees["bob"])
    )
    assert "- write_document {path, content}" in block and "- review {" not in block
    _write(office)  # once written, only its review is left to ask for
    assert document_tools.calls(office, office.employees["bob"]) == (("request_review", (PATH,), ()),)


def test_a_rejection_offers_the_author_a_revision_on_its_version_or_a_rebuttal(
    make_office: MakeOffice,
) -> None:
    office = _office(make_office)
    doc = _write(office)
    asked = rules.request_review(doc, "bob", "alice")
    rejected = rules.verdict(asked, "alice", "reject", "thin", 3, "alice")
    office.state.documents[doc.key] = asked
    assert document_tools.calls(office, office.employees["alice"]) == (("review", (PATH,), ()),)
    assert document_tools.calls(office, office.employees["bob"]) == ()  # under review: nothing to do
    office.state.documents[doc.key] = rejected
    assert rejected.review.judged == doc.version
    assert document_tools.calls(office, office.employees["bob"]) == (
        ("revise_document", (PATH,), (doc.version,)),
        ("rebut", (PATH,), ()),
    )
    assert document_tools.calls(office, office.employees["alice"]) == ()  # her verdict is given
    revised = rules.revise(rejected, "# API\n\nMore.\n", doc.version, "bob", START, "t2")
    office.state.documents[doc.key] = revised
    # Revised since the rejection: back to its reviewer, not revised again and again.
    assert document_tools.calls(office, office.employees["bob"]) == (("request_review", (PATH,), ()),)
    approved = replace(rejected, review=replace(rejected.review, status=core.APPROVED))
    office.state.documents[doc.key] = approved
    assert document_tools.calls(office, office.employees["bob"]) == ()


def test_a_lead_is_offered_the_sign_off_request_once_its_requirement_is_reported(
    make_office: MakeOffice,
) -> None:
    office = _office(make_office)
    assert office.apply_tool("assign_requirement", {"to": "eng", "description": "Build the users API"}).ok
    alice = office.employees["alice"]
    assert document_tools.calls(office, alice, "boss:alice") == ()  # nothing reported yet
    office.company_model.signoffs["req-1"] = "reported"
    assert document_tools.calls(office, alice, "boss:alice") == (("sign_off", ("req-1",), ()),)
    assert document_tools.calls(office, alice, "req-1") == (
        ("sign_off", ("req-1",), ()),
    )  # asks from anywhere
    assert document_tools.calls(office, office.employees["bob"], "boss:bob") == ()  # only the lead
    office.company_model.signoffs["req-1"] = "asked"
    assert document_tools.calls(office, alice, "boss:alice") == ()  # asked once: the boss decides
    sign_off = thought_schema(WireContext(compact=True, document_calls=(("sign_off", ("req-1",), ()),)))
    [item] = [i for i in sign_off["properties"]["actions"]["items"]["anyOf"] if "sign_off" in str(i)]
    args = item["properties"]["args"]["properties"]
    assert args == {"requirement": {"enum": ["req-1"]}}  # no verdict: the lead decides nothing


def test_the_compact_grammar_names_only_the_offered_paths_and_bounds_the_content() -> None:
    calls = (("write_document", (PATH,), ()), ("revise_document", ("docs/b.md",), ("abcd1234",)))
    actions = thought_schema(WireContext(compact=True, document_calls=calls))["properties"]["actions"]
    items = {i["properties"]["tool"]["enum"][0]: i["properties"]["args"] for i in actions["items"]["anyOf"]}
    # Document work to do: the thought does it (one call at least, only document calls).
    assert set(items) == {"write_document", "revise_document"} and actions["minItems"] == 1
    assert items["write_document"]["properties"]["path"] == {"enum": [PATH]}
    assert items["write_document"]["properties"]["content"]["maxLength"] == 600
    assert items["revise_document"]["properties"]["base"] == {"enum": ["abcd1234"]}
    assert items["revise_document"]["required"] == ["path", "base", "content"]
    assert actions["maxItems"] == COMPACT_DOCUMENT_CALLS == 2
    plain = thought_schema(WireContext(compact=True))["properties"]["actions"]
    assert plain["items"]["properties"]["tool"] == {"enum": ["send_message"]} and plain["maxItems"] == 1
    assert plain.get("minItems", 0) == 0
    # A sign-off alone is offered beside a message, and optional: not every word of the boss is one.
    alone = thought_schema(WireContext(compact=True, document_calls=(("sign_off", ("req-1",), ()),)))
    offered = alone["properties"]["actions"]
    tools = {i["properties"]["tool"]["enum"][0] for i in offered["items"]["anyOf"]}
    assert tools == {"send_message", "sign_off"} and offered.get("minItems", 0) == 0


def test_a_requirements_piece_offered_on_the_compact_wire_expects_a_document_named_by_its_key() -> None:
    assert default_document("api-spec") == "docs/api-spec.md"
    assert default_document("Users API / v2!") == "docs/users-api-v2.md"
    assert default_document("???") == "docs/piece.md"


async def test_a_requirement_goes_from_the_boss_to_approval_on_the_compact_wire_alone() -> None:
    # The scripted company of benchmarks/requirement.py uses a document tool only where the
    # request's grammar lists it, naming only the paths and versions it allows.
    result = await carry(compact=True, within=timedelta(hours=2))
    assert result["approved"], result
    assert set(result["documents"]) == {"eng/docs/api-spec.md", "eng/docs/guide.md"}
    assert result["verdicts"] == ["rejected", "approved", "approved"]
    assert "both documents are approved" in result["report"]  # and the boss's /approve signed it off


async def test_a_seeded_document_task_is_written_reviewed_and_revised_on_the_compact_wire(
    make_office: MakeOffice,
) -> None:
    """Issue 29, item 1: a scenario's task naming its document; on the compact wire the thought
    that can work on it must (actions at least one document call), so a model that writes an
    action only when the grammar requires one still writes, asks for review, reviews (the lead
    rejects the first version) and revises."""
    from ideaco.office.engine.office import Office
    from tests.office.conftest import scenario_dict, step_until, who

    seen: list[str] = []

    def answer(request):
        schema = request.json_schema or {}
        actions = ((schema.get("properties") or {}).get("actions")) or {}
        if not actions.get("minItems"):
            return thought()  # nothing required: this model acts on nothing
        offered = {i["properties"]["tool"]["enum"][0]: i["properties"] for i in actions["items"]["anyOf"]}
        tool = next(t for t in ("revise_document", *offered) if t in offered)  # a rejection: revise
        call = offered[tool]
        args = {name: (spec.get("enum") or ["x"])[0] for name, spec in call["args"]["properties"].items()}
        if tool in ("write_document", "revise_document"):
            args["content"] = f"# Spec, pass {len(seen) + 1}\n"
        if tool == "review":
            args |= {"verdict": "reject" if "rejected" not in seen else "approve", "notes": "More detail."}
            seen.append("rejected" if args["verdict"] == "reject" else "approved")
        seen.append(f"{who(request).employee}:{tool}")
        return thought(actions=[{"tool": tool, "args": args}])

    data = scenario_dict()
    bob = next(e for e in data["employees"] if e["id"] == "bob")
    bob["tasks"] = [{"description": "Write the API spec", "document": PATH}]
    data["script"] = [{"at": "00:00", "to": "api-design", "text": "@Bob the API spec, please."}]
    office: Office = make_office(answer, scenario=data)
    office.config.compact_schema = True
    [task] = office.employees["bob"].mind.tasks
    assert (task.id, task.origin, task.document) == ("task-1", "boss", PATH)
    office.start()
    await step_until(office, lambda: "approved" in seen, within=timedelta(hours=1))
    assert seen == [
        "bob:write_document",
        "bob:request_review",
        "rejected",
        "alice:review",
        "bob:revise_document",
        "bob:request_review",
        "approved",
        "alice:review",
    ]
    doc = office.state.documents[f"eng/{PATH}"]
    assert doc.content.startswith("# Spec, pass") and len(doc.versions) == 2


async def test_a_document_task_stays_open_until_its_document_is_written(make_office: MakeOffice) -> None:
    """The small model wrote its guide as '#' (refused: no words) and resolved the task in the same
    thought, so the tools were never offered again and the guide never written. Now the task stays
    open while its document is unwritten; the thought that writes it may resolve it."""
    from tests.office.conftest import scenario_dict, step_until, who

    resolve = {"op": "resolve", "taskId": "task-1", "result": "done"}
    contents = iter(["#", "# API\nGET /notes lists the notes."])
    bobs: list[str] = []

    def answer(request):
        if who(request).employee != "bob" or len(bobs) == 2:
            return thought()
        bobs.append(next(contents))
        write = {"tool": "write_document", "args": {"path": PATH, "content": bobs[-1]}}
        return thought(actions=[write], taskOps=[resolve])

    data = scenario_dict()
    bob = next(e for e in data["employees"] if e["id"] == "bob")
    bob["tasks"] = [{"description": "Write the API spec", "document": PATH}]
    data["script"] = [{"at": "00:00", "to": "boss:bob", "text": "The API spec, please."}]
    office = make_office(answer, scenario=data)
    office.config.compact_schema = True
    office.start()
    await step_until(
        office, lambda: len(bobs) == 1 and office.employees["bob"].mind.notes, within=timedelta(hours=1)
    )
    [task] = office.employees["bob"].mind.tasks
    assert task.pending and f"eng/{PATH}" not in office.state.documents
    assert any("[task-1] was not resolved" in n for n in office.employees["bob"].mind.notes)
    assert document_tools.unwritten(office, office.employees["bob"]) == (PATH,)  # still offered
    await step_until(
        office, lambda: not office.employees["bob"].mind.tasks[0].pending, within=timedelta(hours=2)
    )
    assert len(bobs) == 2 and office.employees["bob"].mind.tasks[0].status == "resolved"
    assert office.state.documents[f"eng/{PATH}"].content.startswith("# API")


def test_a_small_models_review_gives_its_reasons_before_its_verdict() -> None:
    """A grammar writes fields in order: the notes first, so the verdict follows the reasons (with the
    verdict first, SmolLM2 approved every first draft of the shipped release-docs run; notes first, it
    rejected one, which was revised and approved)."""
    calls = (("review", (PATH,), ()),)
    actions = thought_schema(WireContext(compact=True, document_calls=calls))["properties"]["actions"]
    (review,) = actions["items"]["anyOf"]
    assert list(review["properties"]["args"]["properties"]) == ["path", "notes", "verdict"]
    assert review["properties"]["args"]["required"] == ["path", "notes", "verdict"]
