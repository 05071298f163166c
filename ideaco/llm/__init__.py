"""Model access: one LLM protocol, thin wrappers around it, composed by `build_llm`. Knows nothing of offices."""

from __future__ import annotations

from ideaco.llm.base import (
    LLM,
    BudgetExhausted,
    ChatRequest,
    ChatResult,
    LLMAuthError,
    LLMBadRequest,
    LLMConnectionError,
    LLMError,
    LLMRateLimited,
    LLMServerError,
    LLMTimeout,
    ReplayMiss,
    Usage,
)
from ideaco.llm.budget import BudgetLLM
from ideaco.llm.config import LLMSettings, model_for, resolve_settings
from ideaco.llm.factory import LLMStack, build_llm
from ideaco.llm.limits import LimitedLLM
from ideaco.llm.openai_chat import OpenAIChatLLM
from ideaco.llm.recording import RecordingLLM, ReplayLLM
from ideaco.llm.retry import RetryingLLM
from ideaco.llm.structured import StructuredAnswer, ask_structured, parse_json_lenient

__all__ = [
    "LLM",
    "BudgetExhausted",
    "BudgetLLM",
    "ChatRequest",
    "ChatResult",
    "LLMAuthError",
    "LLMBadRequest",
    "LLMConnectionError",
    "LLMError",
    "LLMRateLimited",
    "LLMServerError",
    "LLMSettings",
    "LLMStack",
    "LLMTimeout",
    "LimitedLLM",
    "OpenAIChatLLM",
    "RecordingLLM",
    "ReplayLLM",
    "ReplayMiss",
    "RetryingLLM",
    "StructuredAnswer",
    "Usage",
    "ask_structured",
    "build_llm",
    "model_for",
    "parse_json_lenient",
    "resolve_settings",
]
