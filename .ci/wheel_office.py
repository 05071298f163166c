"""CI: one scripted office from the wheel, installed in a fresh venv, run from another directory.

    python .ci/wheel_office.py /path/to/fresh-venv/bin/ideaco

The scripted endpoint is the test suite's fake OpenAI server (this repository's tests/fakes); the
`ideaco` under test is the installed one, run where nothing of the repository can be imported.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.fakes.openai_server import FakeOpenAIServer  # noqa: E402

REPLY = {
    "innerThoughts": "on it",
    "topicSaturation": 3,
    "interestLevel": 7,
    "shouldSpeak": True,
    "reason": "asked",
    "messages": [{"content": "Checklist coming up."}],
}


OWN_SCENARIO = """\
company: Wheel Works
employees:
  - {id: alice, name: Alice, role: Engineer, archetype: old-hand}
script:
  - {at: "00:00", to: "boss:alice", text: "Alice, status please."}
"""


def main(ideaco: str) -> int:
    with tempfile.TemporaryDirectory() as tmp, FakeOpenAIServer(default=REPLY) as fake:
        env = {"PATH": str(Path(ideaco).parent), "HOME": tmp, "LANG": "C.UTF-8"}
        # A scenario of one's own, by its path (its archetype comes from the wheel's package data).
        (Path(tmp) / "office.yaml").write_text(OWN_SCENARIO, encoding="utf-8")
        for args in (
            ["run", "startup", "--duration", "10m", "--out", "by-name"],
            ["run", "office.yaml", "--duration", "10m", "--out", "by-file-name"],
        ):
            done = subprocess.run(
                [ideaco, *args, "--base-url", fake.base_url], cwd=tmp, env=env, capture_output=True, text=True
            )
            print(done.stdout[-600:])
            if done.returncode != 0:
                print(done.stderr, file=sys.stderr)
                return 1
            summary = json.loads((Path(tmp) / args[-1] / "summary.json").read_text())
            if not (summary["thoughts"] and summary["messages"]):
                print(f"nothing happened: {summary}", file=sys.stderr)
                return 1
        for args in (["report", "by-name", "--no-plots"], ["view", "by-name"]):
            done = subprocess.run([ideaco, *args], cwd=tmp, env=env, capture_output=True, text=True)
            if done.returncode != 0:
                print(done.stderr, file=sys.stderr)
                return 1
        # The viewer's template, script and style are package data: the page has them inline.
        page = (Path(tmp) / "by-name" / "view.html").read_text(encoding="utf-8")
        if "ideacoView" not in page or "#grid-head" not in page:
            print("the wheel's view.html lacks its script or style", file=sys.stderr)
            return 1
    print("the wheel's office ran from another directory")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
