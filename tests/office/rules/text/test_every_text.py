"""One policy for every text a person reads (issue 36, item 3): a document's content, a review's
notes, a rebuttal, a task's description and result are held to the text rules as a draft is, and
refused with a reason the model reads; the engine's urgency notes are its own words (issue 37,
item 10)."""

from __future__ import annotations

from datetime import datetime

import pytest

from ideaco.cycle import TextRule
from ideaco.mind import tasks
from ideaco.mind.prompt import EngineText
from ideaco.mind.thought.model import TaskOp
from ideaco.office.rules import documents
from ideaco.office.rules.text import GUARANTEE, STANDARD, STRICT, check, problem, problem_for

NOW = datetime(2026, 1, 5, 9, 30)


@pytest.mark.parametrize(
    ("tool", "arg"),
    [
        ("write_document", "content"),
        ("revise_document", "content"),
        ("review", "notes"),
        ("rebut", "argument"),
    ],
)
def test_a_document_tools_text_is_held_to_the_rules_on_both_sides(tool: str, arg: str) -> None:
    good = "# 发布说明\n\n- 同步更快（2倍）\n- [P0] 修复了登录问题。\n\nSee [the runbook](https://x.io/rb)."
    assert documents.unfit_text(tool, {arg: good}, STRICT) is None
    refused = documents.unfit_text(tool, {arg: "Hello [insert user name], notes below}}},"}, STRICT)
    assert refused is not None and "template slot" in refused.reason and "plain words" in refused.reason
    assert documents.unfit_text(tool, {arg: "249358716"}, STRICT) is not None  # no word
    assert documents.unfit_text(tool, {arg: "249358716"}, STANDARD) is None  # hygiene only
    assert documents.unfit_text(tool, {arg: "ok \u202e"}, STANDARD) is not None  # a guarantee
    assert documents.unfit_text(tool, {}, STRICT) is None  # no text: the tool's own refusal


def _ops(*ops: TaskOp, have: list[tasks.Task] | None = None, filters: str = STRICT) -> tasks.TaskOpsResult:
    held = have if have is not None else []
    counter = iter(range(1, 100))
    return tasks.apply_ops(
        held,
        list(ops),
        NOW,
        owner="ana",
        origin="self",
        new_id=lambda: f"task-{next(counter)}",
        claims={},
        conversations=[],
        employees=["ana"],
        people={"ana": "Ana"},
        text_problem=problem_for(filters),
    )


@pytest.mark.parametrize(
    "description", ["}]{[", "Create a task with TaskOps … (<<*>>)", "Call [company name]"]
)
def test_a_task_whose_description_is_junk_is_refused_with_a_reason_under_strict(description: str) -> None:
    refused = _ops(TaskOp(op="create", description=description))
    assert refused.created == [] and len(refused.refused) == 1
    assert refused.refused[0].startswith("Your new task was refused: its description has")
    assert refused.refused[0].endswith(tasks.PLAIN_WORDS)
    assert [
        t.description for t in _ops(TaskOp(op="create", description=description), filters=STANDARD).created
    ] == [description]


@pytest.mark.parametrize(
    "description", ["写接口文档（v2）", "[P0] Fix checkout for EU customers", "हाँ, रिपोर्ट भेजो"]
)
def test_a_task_in_ordinary_words_in_any_script_is_created(description: str) -> None:
    assert [t.description for t in _ops(TaskOp(op="create", description=description)).created] == [
        description
    ]


def test_a_resolve_whose_result_is_junk_leaves_the_task_open_and_says_why() -> None:
    mine = _ops(TaskOp(op="create", description="Write the launch checklist")).created
    junk = _ops(TaskOp(op="resolve", taskId="task-1", result="what you found or did}}}."), have=list(mine))
    assert junk.resolved == [] and "Your resolve of [task-1] was refused" in junk.refused[0]
    fine = _ops(TaskOp(op="resolve", taskId="task-1", result="清单已完成，共12项。"), have=list(mine))
    assert [t.result for t in fine.resolved] == ["清单已完成，共12项。"]
    bare = _ops(TaskOp(op="resolve", taskId="task-1"), have=list(mine))  # no text: "done"
    assert [t.result for t in bare.resolved] == ["done"]


def test_a_reason_people_read_is_in_plain_words() -> None:
    assert problem("what you found or did") == "words copied from your instructions: 'what you found or did'"
    assert problem("Hi [Your Name]") == "a template slot left unfilled: '[Your Name]'"
    assert problem("好的，收到！") is None


URGENT = EngineText(
    "## Primary objective\nYour open tasks come before anything else:\n"
    "[task-3] Ask Bob about the API — oneshot, overdue: needs immediate attention",
    people=("Ask Bob about the API",),
)


def test_a_copied_urgency_note_is_the_engines_words_only_where_the_prompt_shows_it() -> None:
    copied = "Your task 'Ask Bob about the API' is overdue: needs immediate attention!"
    for filters in (STRICT, STANDARD):
        verdict = check(copied, filters=filters, prompt=URGENT)
        assert verdict is not None and (verdict.rule, verdict.kind) == (TextRule.PROMPT_ECHO, GUARANTEE)
    assert check(copied, filters=STANDARD) is None  # a prompt that does not show it
    assert check("The outage needs immediate attention, @Bob.", filters=STRICT, prompt=URGENT) is None
    critical = EngineText(
        "[task-4] Ship it — oneshot, critical: escalate or resolve now", people=("Ship it",)
    )
    assert check("Critical: escalate or resolve now.", filters=STANDARD, prompt=critical) is not None
    assert check("Critical: escalate or resolve now.", filters=STANDARD, prompt=URGENT) is None
