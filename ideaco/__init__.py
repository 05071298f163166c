"""ideaco: a simulated office of persistent LLM employees who decide for themselves when to speak."""

from __future__ import annotations

from typing import TYPE_CHECKING

__version__ = "0.1.0"
__all__ = ["EmployeeView", "Simulation", "load", "__version__"]

if TYPE_CHECKING:
    from ideaco.api import EmployeeView, Simulation, load


def __getattr__(name: str):  # keep `import ideaco` light: the API loads on first use
    if name in ("EmployeeView", "Simulation", "load"):
        from ideaco import api

        return getattr(api, name)
    raise AttributeError(f"module 'ideaco' has no attribute {name!r}")
