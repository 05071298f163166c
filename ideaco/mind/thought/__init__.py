"""The Flow-of-Thought: the model (`model.py`), its wire schemas (`wire.py`), lenient validation (`lenient.py`).

One pydantic definition is the single source: the schema sent to the model, the validation of its
reply, the limits the engine keeps, and the secretary's tool arguments all come from it.
"""

from __future__ import annotations

from ideaco.mind.thought.lenient import validate_thought
from ideaco.mind.thought.model import (
    MEMORY_CATEGORIES,
    REQUIRED,
    TASK_TYPES,
    TOOL_ARGS,
    Action,
    MemoryOp,
    OutMessage,
    RelationshipOp,
    SendMessageArgs,
    TaskOp,
    Thought,
    ToolArgs,
)
from ideaco.mind.thought.wire import (
    WireContext,
    limit_tables,
    thought_schema,
    thought_token_bound,
    wire_schema,
    wire_token_bound,
)

LIMITS, WIRE_LIMITS, COMPACT_WIRE_LIMITS = limit_tables()

__all__ = [
    "COMPACT_WIRE_LIMITS",
    "LIMITS",
    "MEMORY_CATEGORIES",
    "REQUIRED",
    "TASK_TYPES",
    "TOOL_ARGS",
    "WIRE_LIMITS",
    "Action",
    "MemoryOp",
    "OutMessage",
    "RelationshipOp",
    "SendMessageArgs",
    "TaskOp",
    "Thought",
    "ToolArgs",
    "WireContext",
    "thought_schema",
    "thought_token_bound",
    "validate_thought",
    "wire_schema",
    "wire_token_bound",
]
