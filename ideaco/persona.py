"""Personas: the 12 archetypes in `ideaco/personas/` (package data), custom persona files, merging them (spec 2.7)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated, Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ideaco.bounds import NAME_CHARS, Name, Prose

ARCHETYPES: tuple[str, ...] = (
    "shy-introvert",
    "chatterbox",
    "zen-slacker",
    "ultra-grinder",
    "passive-aggressive",
    "warm-hearted",
    "anxious-perfectionist",
    "rebel-slacker",
    "philosopher",
    "comedy-relief",
    "old-hand",
    "idealist",
)

# Package data: installed with ideaco (a wheel or an editable install alike), found from any directory.
PERSONAS_DIR = Path(__file__).resolve().parent / "personas"


class PersonaError(ValueError):
    """A persona or YAML file that cannot be used; `str()` is one line naming the file."""

    def __init__(self, path: str | Path, message: str, field: str | None = None) -> None:
        self.path = str(path)
        self.field = field
        self.message = message
        where = f"{self.path}: {field}" if field else self.path
        super().__init__(f"{where}: {message}")


# --- YAML reading ---------------------------------------------------------------------------------

_BOOL_TAG = "tag:yaml.org,2002:bool"
_INT_TAG = "tag:yaml.org,2002:int"
_FLOAT_TAG = "tag:yaml.org,2002:float"


class _Loader(yaml.SafeLoader):
    """SafeLoader with YAML 1.2 scalars: `1:30` stays a string (not 90), `no`/`on` stay strings."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict:
        # A repeated key silently drops the first value in PyYAML; in a scenario that hides mistakes.
        seen: set = set()
        for key_node, _ in node.value:
            if not isinstance(key_node, yaml.ScalarNode):
                continue
            key = self.construct_object(key_node, deep=True)
            if key in seen:
                raise yaml.constructor.ConstructorError(
                    None, None, f"duplicate key {key!r}", key_node.start_mark
                )
            seen.add(key)
        return super().construct_mapping(node, deep=deep)


_Loader.yaml_implicit_resolvers = {
    first: [(tag, rx) for tag, rx in resolvers if tag not in (_BOOL_TAG, _INT_TAG, _FLOAT_TAG)]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
_Loader.add_implicit_resolver(_BOOL_TAG, re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF"))
_Loader.add_implicit_resolver(_INT_TAG, re.compile(r"^[-+]?(?:0|[1-9][0-9]*)$"), list("-+0123456789"))
_Loader.add_implicit_resolver(
    _FLOAT_TAG,
    re.compile(r"^[-+]?(?:[0-9]+\.[0-9]*|\.[0-9]+|[0-9]+(?:\.[0-9]*)?[eE][-+]?[0-9]+)$"),
    list("-+0123456789."),
)


MAX_FILE_BYTES = 32 << 20  # a scenario of 100,000 script lines is ~6 MB


def read_yaml(path: str | Path) -> Any:
    """Parse a YAML file; any problem is a `PersonaError` with a one-line message naming the file."""
    p = Path(path)
    if not p.exists():
        raise PersonaError(path, "file not found")
    if not p.is_file():
        raise PersonaError(path, "not a file")
    if p.stat().st_size > MAX_FILE_BYTES:
        raise PersonaError(path, f"larger than {MAX_FILE_BYTES >> 20} MB")
    try:
        text = p.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise PersonaError(path, "not UTF-8 text") from None
    except OSError as exc:
        raise PersonaError(path, f"cannot be read ({exc.strerror or exc})") from None
    try:
        return yaml.load(text, Loader=_Loader)  # noqa: S506 - _Loader derives from SafeLoader
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = f" (line {mark.line + 1})" if mark is not None else ""
        problem = " ".join(str(exc.problem or exc.context or "syntax error").split())
        raise PersonaError(path, f"not valid YAML{line}: {problem}") from None
    except yaml.YAMLError as exc:
        raise PersonaError(path, f"not valid YAML: {' '.join(str(exc).split())}") from None
    except RecursionError:
        raise PersonaError(path, "not valid YAML: nested too deeply") from None


def read_mapping(path: str | Path) -> dict:
    """Parse a YAML file that must hold a mapping at the top level."""
    data = read_yaml(path)
    if not isinstance(data, dict):
        kind = "empty" if data is None else f"a {type(data).__name__}"
        raise PersonaError(path, f"not a mapping (it is {kind})")
    return data


# --- the model ------------------------------------------------------------------------------------


class Tendencies(BaseModel):
    """How personality shapes decisions, each 0-1; the engine reads these, the prompt may too."""

    model_config = ConfigDict(extra="forbid")

    talkativeness: float = Field(0.5, ge=0, le=1, description="how readily it speaks")
    claims_tasks: float = Field(0.5, ge=0, le=1, description="how readily it takes on work")
    silence_bias: float = Field(0.5, ge=0, le=1, description="how readily it stays silent")
    formality: float = Field(0.5, ge=0, le=1, description="0 slangy, 1 formal")


class Persona(BaseModel):
    """A personality: who an employee is, how it sounds and how it tends to act."""

    model_config = ConfigDict(extra="forbid")

    # Every field reaches every prompt of its employee: each is bounded (bounds.PROSE_CHARS).
    id: Annotated[str, Field(max_length=NAME_CHARS)]
    archetype: str | None = None  # the archetype this persona starts from, if any
    name: Name | None = None  # the archetype's display name, e.g. "Old Hand"
    description: Prose | None = None  # one or two sentences: the core of the personality
    tone: Prose | None = None
    quirk: Prose | None = None
    speaking_style: Prose | None = None
    example_lines: list[Prose] = Field(default_factory=list, max_length=12)
    tendencies: Tendencies = Field(default_factory=Tendencies)
    skills: list[Annotated[str, Field(max_length=40)]] = Field(default_factory=list, max_length=12)


def _first_error(exc: ValidationError) -> tuple[str, str]:
    err = exc.errors()[0]
    field = ".".join(str(part) for part in err["loc"])
    msg = "unknown field" if err["type"] == "extra_forbidden" else err["msg"]
    more = f" (+{exc.error_count() - 1} more)" if exc.error_count() > 1 else ""
    return field, msg + more


def persona_from_mapping(data: dict, path: str | Path, default_id: str) -> Persona:
    """Validate a persona mapping read from `path`; the id defaults to `default_id`."""
    data = {"id": default_id, **data}
    try:
        return Persona.model_validate(data)
    except ValidationError as exc:
        field, msg = _first_error(exc)
        raise PersonaError(path, msg, field=field or None) from None


def load_archetype(archetype_id: str, personas_dir: str | Path | None = None) -> Persona:
    """Load the archetype `<id>.yaml` (from `ideaco/personas/`); `PersonaError` for an unknown id or a bad file."""
    directory = Path(personas_dir) if personas_dir is not None else PERSONAS_DIR
    path = directory / f"{archetype_id}.yaml"
    if personas_dir is None and archetype_id not in ARCHETYPES:
        raise PersonaError(path, f"unknown archetype {archetype_id!r} (one of: {', '.join(ARCHETYPES)})")
    persona = persona_from_mapping(read_mapping(path), path, archetype_id)
    if persona.archetype is None:
        persona = persona.model_copy(update={"archetype": archetype_id})
    return persona


def merge(base: Persona, override: dict) -> Persona:
    """A copy of `base` with the fields of `override` winning; `tendencies` merge key by key.

    Keys set to null in `override` are ignored, so a persona file can leave a field to its base.
    Raises pydantic's `ValidationError` for unknown fields or bad values.
    """
    merged = base.model_dump()
    for key, value in override.items():
        if value is None:
            continue
        if key == "tendencies" and isinstance(value, dict):
            merged["tendencies"] = {**merged["tendencies"], **value}
        else:
            merged[key] = value
    return Persona.model_validate(merged)


def persona_path(base_dir: str | Path, given: str) -> Path:
    """A scenario's `persona:` path, which must lie inside the scenario's folder or be a shipped
    persona: a scenario from anyone must not read your files and send them to a model endpoint."""
    path = Path(base_dir) / given
    real = path.resolve()
    if not any(real.is_relative_to(root.resolve()) for root in (Path(base_dir), PERSONAS_DIR)):
        raise PersonaError(given, "outside the scenario's folder (a persona file lies beside its scenario)")
    return path


def load_persona_file(
    path: str | Path, archetype: str | None = None, personas_dir: str | Path | None = None
) -> Persona:
    """Load a custom persona file, on top of `archetype` (or the file's own `archetype:` key) if any."""
    data = read_mapping(path)
    base_id = archetype or data.get("archetype")
    if base_id is None:
        return persona_from_mapping(data, path, Path(path).stem)
    if not isinstance(base_id, str) or (personas_dir is None and base_id not in ARCHETYPES):
        raise PersonaError(path, f"unknown archetype {base_id!r}", field="archetype")
    base = load_archetype(base_id, personas_dir)
    override = {**data, "id": data.get("id") or Path(path).stem, "archetype": base_id}
    try:
        return merge(base, override)
    except ValidationError as exc:
        field, msg = _first_error(exc)
        raise PersonaError(path, msg, field=field or None) from None
