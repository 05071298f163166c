"""A real run directory (the guard's scripted office, one answer made hostile) and a headless Chromium.

The browser is the system's Chromium driven through its own chromedriver (Debian's `chromium` and
`chromium-driver`, which `.ci/run` installs where they are missing); selenium is told both paths,
so it never fetches a browser or a driver. Without them the browser tests skip, saying why.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner

from ideaco.cli.main import app
from ideaco.office.core.documents import version_hash
from tests.fakes.openai_server import FakeOpenAIServer
from tests.guard.runs import HERE as GUARD
from tests.guard.scripted import as_content, respond
from tests.office.conftest import scenario_dict, thought

# What a model might write to break a page: both must show as text, and neither may run.
HOSTILE = 'Look <script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2"> & done'
HOSTILE_INNER = '<b>bold?</b> <img src=y onerror="window.__pwned = 3">'


def ideaco(*args: str | Path) -> Any:
    env = {"COLUMNS": "100", "IDEACO_BASE_URL": None, "OPENAI_BASE_URL": None, "OPENAI_API_KEY": None}
    return CliRunner().invoke(app, [str(a) for a in args], env=env)


class _Hostile:
    """The guard's scripted answers, the first one that speaks given hostile text and thoughts.

    Its draft and inner thoughts are hostile markup (a real `<script>` element is code, which the
    draft filters let through since issue 21); the boss's line carries the message too.
    """

    def __init__(self) -> None:
        self.done = False

    def __call__(self, body: dict[str, Any]) -> str:
        answer = respond(body)
        if (
            not self.done
            and isinstance(answer, dict)
            and answer.get("shouldSpeak")
            and answer.get("messages")
        ):
            self.done = True
            answer = {**answer, "innerThoughts": HOSTILE_INNER, "messages": [{"content": HOSTILE}]}
        return as_content(answer)


@pytest.fixture(scope="session")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """40 simulated minutes of the guard's office against its scripted model, over HTTP."""
    work = tmp_path_factory.mktemp("viewer")
    scenario = yaml.safe_load((GUARD / "office.yaml").read_text(encoding="utf-8"))
    scenario["script"].insert(1, {"at": "00:02", "to": "sync", "text": HOSTILE})
    (work / "office.yaml").write_text(yaml.safe_dump(scenario), encoding="utf-8")
    out = work / "run"
    with FakeOpenAIServer(handler=_Hostile()) as fake:
        result = ideaco(
            "run",
            work / "office.yaml",
            "--duration",
            "40m",
            "--out",
            out,
            "--base-url",
            fake.base_url,
            "--model",
            "scripted",
        )
    assert result.exit_code == 0, result.output
    return out


def _find(name: str, *paths: str) -> str | None:
    found = shutil.which(name)
    return found or next((p for p in paths if os.path.exists(p)), None)


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    """A headless Chromium through selenium; skipped where none is installed."""
    webdriver = pytest.importorskip(
        "selenium.webdriver", reason="selenium is not installed (pip install -e '.[test]')"
    )
    binary = _find("chromium", "/usr/bin/chromium") or _find("chromium-browser") or _find("google-chrome")
    driver_path = _find("chromedriver", "/usr/bin/chromedriver", "/usr/lib/chromium/chromedriver")
    if not binary or not driver_path:
        pytest.skip("no Chromium and chromedriver on this machine (apt-get install chromium chromium-driver)")
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = binary
    for arg in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--window-size=1400,900",
        "--no-first-run",
        "--disable-extensions",
    ):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"performance": "ALL", "browser": "ALL"})
    driver = webdriver.Chrome(service=Service(driver_path), options=options)
    try:
        yield driver
    finally:
        driver.quit()


# ---------------------------------------------------------------------------- a run that writes documents
#
# Bob writes a spec at a Chinese path whose text holds seven scripts; Alice rejects its first version
# (notes in Japanese) and approves the second; Charlie writes a guide once, never reviewed. Each
# answer is read off the prompt (never a counter), so a call started early and dropped changes nothing.

SPEC = "docs/接口文档.md"
GUIDE = "docs/guide.md"
SPEC_V1 = (
    "# 接口文档\n\nGET /users はユーザーの一覧を返す。\nОшибки: пока нет.\nत्रुटियाँ: अभी नहीं।\n"
    "ข้อผิดพลาด: ยังไม่มี\n오류: 아직 없음\n"
)
SPEC_V2 = SPEC_V1 + "\n404 — ユーザーがいない / Пользователь не найден.\n"
GUIDE_V1 = "# Guide\n\nInstall, then run `pine --help`. Café, naïve, Ærø.\n"
REJECT_NOTES = "エラーの一覧がない"


def _tool(name: str, **args: Any) -> dict[str, Any]:
    return {"tool": name, "args": args}


def _writes(body: dict[str, Any]) -> dict[str, Any]:
    system, user = (str(m.get("content") or "") for m in body["messages"][:2])
    lines = user.strip().splitlines()
    tail = lines[-2] if len(lines) > 1 else ""
    if (
        system.startswith("You are Bob,")
        and "Please write the spec" in user
        and f"{SPEC} (version" not in user
    ):
        return thought(
            True,
            "On it.",
            actions=[_tool("write_document", path=SPEC, content=SPEC_V1), _tool("request_review", path=SPEC)],
        )
    if system.startswith("You are Charlie,") and "Please write the guide" in user and GUIDE not in user:
        return thought(actions=[_tool("write_document", path=GUIDE, content=GUIDE_V1)])
    if system.startswith("You are Alice,") and f"asks you to review {SPEC}" in tail:
        first = f"(version {version_hash(SPEC_V1)})" in tail
        verdict, notes = ("reject", REJECT_NOTES) if first else ("approve", "良い")
        return thought(actions=[_tool("review", path=SPEC, verdict=verdict, notes=notes)])
    if system.startswith("You are Bob,") and "[system]" in tail and f"rejected {SPEC}" in tail:
        revise = _tool("revise_document", path=SPEC, content=SPEC_V2, base=version_hash(SPEC_V1))
        return thought(actions=[revise, _tool("request_review", path=SPEC)])
    return thought()


@pytest.fixture(scope="session")
def doc_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """20 simulated minutes of the small office writing two documents: (the run directory, what
    `ideaco run` printed)."""
    work = tmp_path_factory.mktemp("docs-run")
    script = [
        {"at": "00:01", "to": "boss:bob", "text": "Please write the spec."},
        {"at": "00:03", "to": "boss:charlie", "text": "Please write the guide."},
    ]
    (work / "office.yaml").write_text(yaml.safe_dump(scenario_dict(script=script)), encoding="utf-8")
    out = work / "run"
    with FakeOpenAIServer(handler=lambda body: as_content(_writes(body))) as fake:
        result = ideaco(
            "run",
            work / "office.yaml",
            "--duration",
            "20m",
            "--seed",
            "1",
            "--out",
            out,
            "--base-url",
            fake.base_url,
            "--model",
            "scripted",
        )
    assert result.exit_code == 0, result.output
    return out, result.output
