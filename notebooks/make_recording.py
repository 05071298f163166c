"""(Re)create `notebooks/data/startup.jsonl`, the recorded model calls the notebooks replay.

    python notebooks/make_recording.py

It drives the session the notebooks replay (the startup scenario, seed 7, the same run lengths,
steps and boss line at the same simulated moments) against a scripted fake OpenAI endpoint, with
`record=`. The fake model answers every thought from the prompt alone (who is thinking, what is
unread, which tasks are open), seeded by a hash of the prompt: some employees speak a short line in
character, some stay silent, some remember things, change their minds about a colleague, take on
and finish tasks. A replay answers by request key (model, messages, schema, sampling settings),
so any change to the prompts, the scenario or the session below means re-running this script.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))  # the fake endpoint lives in tests/, not in the package

# The session: notebook 1 runs these exact calls; notebook 2 runs them and then REST.
SCENARIO = ROOT / "scenarios" / "startup.yaml"
RECORDING = HERE / "data" / "startup.jsonl"
SEED = 7
MODEL = "scripted"
# The replay never contacts this address, but giving one keeps the run's settings those of a
# remote endpoint (full-length schema), as when recording; see notebook 1.
BASE_URL = "http://127.0.0.1:9/v1"
FIRST_RUN = "10m"
STEPS = 6
BOSS_ROOM = "launch"
BOSS_LINE = "Thanks, all. @Sam, can you pair with Zoe on the onboarding screens today?"
SECOND_RUN = "5m"
REST = "50m"  # notebook 2 only: on to 10:05 or so, past the scenario's script

TALKATIVE = {"dan": 0.3, "zoe": 0.4, "kai": 0.15, "lena": 0.7, "sam": 0.5}
DOMAIN = {
    "dan": {"sync", "status"},
    "zoe": {"qa", "design", "status"},
    "kai": {"staging"},
    "lena": {"status", "cut"},
    "sam": {"design", "cut"},
}
TOPICS = (  # in this order when a message touches several
    ("staging", ("staging",)),
    ("qa", ("qa", "test")),
    ("sync", ("sync", "risk", "backend", "conflict")),
    ("cut", ("cut", "ship on time")),
    ("design", ("onboarding", "mockup", "screen", "design")),
    ("lunch", ("lunch", "thursday", "pizza", "ramen")),
    ("status", ("checklist", "status", "blocked", "launch")),
)

LINES: dict[str, dict[str, list[str]]] = {
    "dan": {
        "sync": [
            "Sync is fine on the happy path. It's the flaky-network cases that will bite us.",
        ],
        "status": [
            "Backend: conflict resolution done, rate limiting left. Two days if nothing catches fire.",
            "Sync service is feature-complete. Now it's load tests and boring fixes.",
        ],
        "qa": ["@Zoe test offline edits on two phones at once. That's where the bodies are buried."],
        "staging": ["Staging shares a database with the nightly reindex. Seen this movie before."],
        "cut": ["Cut the share-to-web feature. It doubles the sync surface."],
        "lunch": ["Anything but the salad place.", "Ramen. It's always ramen."],
        "design": ["Keep onboarding to three screens. Nobody reads the fourth."],
        "chat": ["Noted.", "Seen worse launches. We'll be fine if we stop adding features."],
    },
    "zoe": {
        "qa": [
            "I can take QA if nobody has it yet. Sync conflicts and offline mode worry me most.",
            "I'm worried we have no tests for account deletion. Adding it to the QA plan.",
        ],
        "status": [
            "App: 14 open bugs, 3 of them crashers. I won't sleep until the crashers are gone.",
            "I still need a stable staging build to finish the regression pass.",
        ],
        "sync": ["@Dan what happens if the app is killed mid-sync? I want a test for that."],
        "design": [
            "Happy to pair, Sam! The empty state on screen 2 still clips on small phones.",
            "Onboarding is close, just the dark mode colours fail contrast checks.",
        ],
        "staging": ["Staging timed out twice during my test run this morning, so yes, it's bad."],
        "lunch": ["Could we do somewhere quiet? I'd love to actually hear people."],
        "cut": ["Please don't cut the crash reporter, it's how we'll find what I missed."],
        "chat": [
            "Sorry, just double-checking: is that for 1.0 or after?",
            "Okay, noted. Adding it to my list.",
        ],
    },
    "kai": {
        "staging": ["Staging is on the smallest instance. That's most of the story."],
        "status": ["Infra's fine. Mostly."],
        "lunch": ["Whatever's closest."],
        "chat": ["Sure."],
    },
    "lena": {
        "status": [
            "Great energy team! I'm building the launch checklist right now, design and QA rows first!",
            "Checklist update: most rows are green, sync load tests and app store assets are the blockers!",
        ],
        "cut": [
            "Honestly? Widgets. Nobody will miss them in week one and they eat a whole sprint!",
            "I'd cut the themes picker, we can ship it in 1.1 with a blog post!",
        ],
        "qa": ["Love it Zoe! Can the QA plan go in the checklist doc so it's all in one place?"],
        "sync": ["Dan, can we get a one-line risk summary for the launch doc?"],
        "design": ["Sam's onboarding flow is SO good, I showed it to my mum!"],
        "lunch": ["Thai place on Elm! Or tacos! Or both??"],
        "staging": ["If staging is slow for the demo I will personally cry."],
        "chat": ["Ooh, good point!", "Wait, has everyone seen the beta feedback? People love the search!"],
    },
    "sam": {
        "design": [
            "Design-wise: onboarding is three screens and nearly done, the empty states need some love.",
            "Thanks Zoe, great catch on the contrast. I'll fix the colours and send new screens.",
        ],
        "cut": [
            "I see Lena's point, and I'd cut the themes picker too. Let's keep the polish on the core.",
            "Maybe cut widgets, and keep the time for onboarding polish?",
        ],
        "status": ["Design: onboarding and settings are done, empty states need one more pass."],
        "qa": ["Thanks for owning QA, Zoe. Shout if you need screenshots for the test plan."],
        "lunch": ["Thank you! Anything works for me, as long as Zoe gets the quiet table."],
        "staging": ["Kai, shout if you need a hand testing staging after the fix."],
        "sync": ["Thanks Dan, that's super clear."],
        "chat": ["Nice work, everyone. Really.", "You ok, Zoe? That's a lot on your plate."],
    },
}
TOPIC_WORDS = {
    "staging": "staging",
    "qa": "QA",
    "sync": "the sync backend",
    "cut": "what to cut",
    "design": "onboarding",
    "lunch": "lunch",
    "status": "the launch checklist",
    "chat": "this",
}
INNER = {  # (when speaking, when silent); {topic} is filled in
    "dan": (
        ["Seen this before with {topic}. Say it plainly and move on.", "Short answer, no drama."],
        [
            "Not worth a message. They'll sort out {topic}.",
            "Nothing to add on {topic}. Back to the sync code.",
        ],
    ),
    "zoe": (
        [
            "If I don't flag {topic} now it'll be a bug report later.",
            "I hope I'm not overstepping, but {topic} matters.",
        ],
        [
            "Maybe I'm overthinking {topic}. I'll check again later.",
            "Someone else probably has {topic} covered. Probably.",
        ],
    ),
    "kai": (
        ["Fine. A few words on {topic}.", "Might as well answer."],
        ["Not my fire.", "Coffee first, {topic} later."],
    ),
    "lena": (
        ["Ooh, I have thoughts on {topic}!", "Perfect moment to rally everyone on {topic}."],
        ["I've talked a lot already, let others jump in.", "Biting my tongue on {topic}. For now."],
    ),
    "sam": (
        ["Let me make sure people feel heard on {topic}.", "A kind word on {topic} goes a long way."],
        [
            "Others have {topic} covered, I'll cheer quietly.",
            "Nothing to add on {topic}; I'll keep an eye on Zoe.",
        ],
    ),
}
IDLE_OPENERS = {
    "lena": "Random question: what's everyone's favourite note-taking app that ISN'T ours?",
    "sam": "Small win of the day: the beta has zero crash reports since Friday!",
}
# (owner, words in the boss's request, the task taken on, what finishing it finds, what the owner says).
TASKS = [
    (
        "zoe",
        ("qa plan",),
        {
            "description": "Write the QA plan for Pine Notes 1.0",
            "claimKey": "qa-plan",
            "onResolveTarget": "launch",
            "onResolveHint": "post the plan's headline in the launch room",
        },
        "QA plan drafted: 42 cases, sync conflicts and offline mode first",
        "Yes, I'll own the QA plan! Drafting it now: sync conflicts and offline mode first.",
    ),
    (
        "kai",
        ("staging",),
        {
            "description": "Find out why staging is slow",
            "claimKey": "staging-slow",
            "onResolveTarget": "boss",
            "onResolveHint": "tell the boss the cause and the fix",
        },
        "Nightly reindex on the smallest DB instance; moved it off hours, p95 back to 300 ms",
        "On it. Probably the nightly reindex eating the box.",
    ),
    (
        "lena",
        ("need a launch checklist",),
        {
            "description": "Put together the launch checklist",
            "claimKey": "launch-checklist",
            "onResolveTarget": "launch",
            "onResolveHint": "share the link and the blockers",
        },
        "Checklist has 18 items: 11 done, 5 in progress, 2 blocked on sync load tests",
        "On it! Starting the launch checklist now, design and QA rows first!",
    ),
    (
        "dan",
        ("biggest risk",),
        {
            "description": "Write up the sync backend risks",
            "claimKey": "sync-risks",
            "onResolveTarget": "boss",
            "onResolveHint": "one line per risk",
        },
        "Top risk is offline edit conflicts; mitigation: conflict copies plus a soak test",
        "Biggest risk is conflict handling when two devices edit offline. I want a week of soak tests on it.",
    ),
    (
        "sam",
        ("onboarding",),
        {
            "description": "Pair with Zoe on the onboarding screens",
            "claimKey": "onboarding-pairing",
            "onResolveTarget": "launch",
            "onResolveHint": "",
        },
        "Reviewed onboarding with Zoe: 3 fixes, all in today's build",
        "On it! @Zoe, want to grab 30 minutes after lunch for the onboarding screens?",
    ),
]
DMS = {  # a private word to a colleague when taking on a task
    "qa-plan": (
        "dan",
        "Could you list the sync edge cases you worry about most? I want them in the QA plan.",
    ),
    "staging-slow": ("dan", "Did anything change on staging last week? Seeing load spikes every night."),
}
# Who gets on whose nerves a little (the rest warm up to each other).
FRICTION = {("dan", "lena"), ("zoe", "kai"), ("kai", "lena")}
IMPRESSIONS = {
    "up": ["reliable, knows their stuff", "kind and easy to work with", "gets things done without fuss"],
    "down": ["talks a lot, says little", "too relaxed about the launch", "interrupts a lot"],
}

LINE = re.compile(r"^([* ]) \[(\d\d:\d\d)\] (.+?)( \(BOSS\))?( \(you\))?: (.*)$")


def _topic(text: str, me: str) -> str:
    """What a message is about, for `me`: my own field if it touches it, else its first topic."""
    low = text.lower()
    found = [topic for topic, words in TOPICS if any(w in low for w in words)]
    mine = [t for t in found if t in DOMAIN.get(me, ())]
    return (mine or found or ["chat"])[0]


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def think(body: dict[str, Any]) -> dict[str, Any]:
    """One Flow-of-Thought, decided from the request alone (so the same prompt gets the same answer)."""
    system = body["messages"][0]["content"]
    user = body["messages"][-1]["content"]
    me = re.match(r"You are (\w+)", system).group(1).lower()  # an employee id is its name, lowercased
    rng = random.Random(hashlib.sha256(user.encode()).hexdigest())
    properties = body["response_format"]["json_schema"]["schema"]["properties"]
    present = properties["relationshipOps"]["items"]["properties"]["employeeId"].get("enum", [])
    in_boss_chat = "(id boss, your boss)" in system
    lines = [m.groups() for m in map(LINE.match, user.splitlines()) if m]
    said = {text for *_, text in lines}
    unread = [(sender, bool(boss), text) for star, _, sender, boss, _, text in lines if star == "*"]
    boss_words = " ".join(text for _, boss, text in unread if boss)
    addressed = bool(boss_words) and (
        in_boss_chat or f"@{me.capitalize()}" in boss_words or "@" not in boss_words
    )
    notes = re.findall(r"^\[system\] (.*)$", user, re.M)
    pending = re.findall(r"^\[(task-\d+)\] (.+?) — \S+, (\w+)", user, re.M)
    # Answer the boss's words when addressed, else the latest message.
    about = boss_words if addressed else (unread[-1][2] if unread else " ".join(notes))
    topic = _topic(about, me)

    out: dict[str, Any] = {
        "innerThoughts": "",
        "topicSaturation": min(9, 2 + len(lines) // 4),
        "interestLevel": max(1, min(10, (8 if topic in DOMAIN.get(me, ()) else 4) + rng.randint(-1, 1))),
        "shouldSpeak": False,
        "reason": "",
        "messages": [],
        "actions": [],
        "memorySummary": None,
        "memoryOps": [],
        "relationshipOps": [],
        "taskOps": [],
    }
    say: str | None = None

    # Owed thinks first: a finished task to report, a back-and-forth to wrap up, a stuck task.
    report = next((re.search(r"Result: (.+?)\.( Hint|\s+Report)", n) for n in notes if "is done" in n), None)
    if report:
        say = f"Done: {report.group(1)}."
        out["reason"] = "report my finished task"
    elif any("back and forth" in n for n in notes):
        say = "To sum up: we agree on the plan, details in the doc. Let's leave it there."
        out["reason"] = "wrap up the thread"
    elif any("has not moved" in n or "escalate" in n.lower() for n in notes) and pending:
        say = f"Quick update on '{pending[0][1]}': still on it, should be done within the hour."
        out["reason"] = "the boss should know where it stands"

    # Take on what the boss asks of me.
    if addressed:
        out["interestLevel"] = 9
        for owner, words, task, _, accept in TASKS:
            if owner == me and any(w in boss_words.lower() for w in words):
                if not any(desc == task["description"] for _, desc, _ in pending):
                    out["taskOps"] = [{"op": "create", "type": "oneshot", **task}]
                    say, out["reason"] = accept, "the boss asked me"
                    out["memoryOps"] = [
                        {
                            "op": "add",
                            "id": "",
                            "type": "short_term",
                            "content": f"The boss asked me to: {task['description'].lower()}",
                            "category": "instruction",
                            "importance": 7,
                        }
                    ]
                    if task["claimKey"] in DMS:
                        to, text = DMS[task["claimKey"]]
                        out["actions"] = [{"tool": "send_message", "args": {"to": to, "content": text}}]
                break
        if "two weeks" in boss_words and not out["memoryOps"]:
            out["memoryOps"] = [
                {
                    "op": "add",
                    "id": "",
                    "type": "long_term",
                    "content": "Pine Notes 1.0 launches in two weeks",
                    "category": "fact",
                    "importance": 8,
                }
            ]

    # Finish a task once it has aged a little (or is overdue).
    if pending and not out["taskOps"] and not report:
        task_id, desc, level = pending[0]
        if level in ("overdue", "critical") or (level == "aging" and rng.random() < 0.6):
            result = next((r for _, _, t, r, _ in TASKS if t["description"] == desc), "done")
            out["taskOps"] = [{"op": "resolve", "taskId": task_id, "result": result}]

    # Speak or not: addressed people answer, others by temperament; nobody repeats a line.
    # A colleague writing to me alone nearly always gets an answer.
    chance = 0.9 if re.search(r"^## Recent messages in \w+ & \w+ ", user, re.M) else TALKATIVE.get(me, 0.2)
    if say is None and (addressed or (unread and rng.random() < chance)):
        # Small talk only when asked: a topic with nothing fresh left means silence.
        bank = LINES.get(me, {})
        fresh = [
            t for t in bank.get(topic, []) + (bank.get("chat", []) if addressed else []) if t not in said
        ]
        say = fresh[0] if fresh else None
        out["reason"] = "I was asked" if addressed else f"I have something to add on {topic}"
        if say is None:
            out["reason"] = "nothing new to add"
    elif say is None and not unread and "quiet for a while" in user and me in IDLE_OPENERS:
        if IDLE_OPENERS[me] not in said and rng.random() < 0.5:
            say, out["reason"] = IDLE_OPENERS[me], "the room is quiet"
    if say:
        out["shouldSpeak"] = True
        out["messages"] = [{"content": _clip(say, 240)}]
    else:
        out["reason"] = out["reason"] or ("not my area" if unread else "nothing new")
    inner = INNER.get(me, (["Worth a word on {topic}."], ["Nothing to add on {topic}."]))
    out["innerThoughts"] = rng.choice(inner[0 if say else 1]).format(topic=TOPIC_WORDS[topic])

    # A colleague who spoke moves my opinion of them a little.
    speakers = [sender.lower() for sender, boss, _ in unread if not boss and sender.lower() in present]
    if speakers and rng.random() < 0.5:
        other = speakers[-1]
        shown = re.search(rf"\({other}\): affinity (\d+)", user)
        current = int(shown.group(1)) if shown else 50
        down = (me, other) in FRICTION or (other, me) in FRICTION
        delta = -rng.randint(4, 9) if down else rng.randint(3, 9)
        out["relationshipOps"] = [
            {
                "employeeId": other,
                "impression": rng.choice(IMPRESSIONS["down" if down else "up"]),
                "affinity": max(1, min(100, current + delta)),
            }
        ]
    if lines and rng.random() < 0.4:
        last_sender, _, last_text = unread[-1] if unread else (lines[-1][2], None, lines[-1][5])
        out["memorySummary"] = _clip(f"Latest: {last_sender}: {last_text}", 200)
    return out


def reply(body: dict[str, Any]) -> Any:
    """The fake endpoint's answer, with prefix caching for a conversation read before."""
    from tests.fakes.openai_server import Reply

    system = body["messages"][0]["content"]
    user = body["messages"][-1]["content"]
    seen_before = any(m and m.group(1) == " " for m in map(LINE.match, user.splitlines()))
    return Reply(
        json.dumps(think(body), ensure_ascii=False, separators=(",", ":")),
        cached_tokens=len(system) // 4 if seen_before else 0,
    )


def drive(sim: Any, *, rest: bool) -> None:
    """The session notebook 1 runs (and notebook 2 with `rest`)."""
    sim.run(FIRST_RUN)
    for _ in range(STEPS):
        sim.step()
    sim.say(BOSS_ROOM, BOSS_LINE)
    sim.run(SECOND_RUN)
    if rest:
        sim.run(REST)


def main() -> None:
    import ideaco
    from tests.fakes.openai_server import FakeOpenAIServer

    RECORDING.parent.mkdir(parents=True, exist_ok=True)
    RECORDING.unlink(missing_ok=True)
    with FakeOpenAIServer(handler=reply) as fake, tempfile.TemporaryDirectory() as tmp:
        sim = ideaco.load(
            SCENARIO,
            out=Path(tmp) / "run",
            seed=SEED,
            base_url=fake.base_url,
            model=MODEL,
            record=RECORDING,
        )
        try:
            drive(sim, rest=True)
        finally:
            summary = sim.close()
    lines = RECORDING.read_text(encoding="utf-8").splitlines()
    print(
        f"{RECORDING.relative_to(ROOT)}: {len(lines)} calls, {RECORDING.stat().st_size // 1024} kB; "
        f"{summary['messages']} messages, {summary['thoughts']} thoughts, "
        f"silences {summary['silences_by_gate']}, tasks {summary['tasks_by_status']}"
    )


if __name__ == "__main__":
    main()
