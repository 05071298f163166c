"""Where a sweep's runs execute: as Ray tasks (local, or a cluster), or one by one without Ray.

Ray is an optional extra (`pip install 'ideaco[ray]'`). `ray.init()` starts a local Ray on this
machine (one run per CPU at a time); `--address` joins a running cluster (`auto`, or
`ray://head:10001`), whose nodes need ideaco installed and the sweep's directory on a shared
filesystem. Without Ray the runs go one by one in this process. Either way, outcomes come back
as runs finish, in the order they finish.
"""

from __future__ import annotations

import importlib.util
import logging
import tempfile
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Protocol

from ideaco.sweep.task import Job, run_one

SHORT_TMP = 32  # characters of a temp dir under which Ray's socket paths stay short enough


class Executor(Protocol):
    description: str

    def run(self, jobs: Sequence[Job]) -> Iterator[dict[str, Any]]:
        """Each job's outcome as it finishes."""
        ...

    def close(self) -> None: ...


def ray_installed() -> bool:
    return importlib.util.find_spec("ray") is not None


class SerialExecutor:
    """One run after another, in this process."""

    description = "one by one in this process"

    def __init__(self, task: Callable[[Job], dict[str, Any]] = run_one) -> None:
        self.task = task

    def run(self, jobs: Sequence[Job]) -> Iterator[dict[str, Any]]:
        for job in jobs:
            yield self.task(job)

    def close(self) -> None:
        pass


class RayExecutor:
    """Every run a Ray task (one CPU each); outcomes as they finish. A run whose worker dies is failed."""

    def __init__(self, address: str | None = None, task: Callable[[Job], dict[str, Any]] = run_one) -> None:
        import ray

        self._ray = ray
        extra: dict[str, Any] = {}
        if address is None and len(tempfile.gettempdir()) > SHORT_TMP:
            # Ray's sockets live under its temp dir, and a socket path may not exceed 107 bytes.
            extra["_temp_dir"] = "/tmp/ray"
        # Quiet: the sweep prints its own progress; workers' output stays in Ray's logs.
        ray.init(
            **extra,
            address=address,
            include_dashboard=False,
            log_to_driver=False,
            logging_level=logging.ERROR,
            configure_logging=True,
            ignore_reinit_error=True,
        )
        self._remote = ray.remote(num_cpus=1, max_retries=0)(task)
        cpus = int(ray.cluster_resources().get("CPU", 0))
        where = f"cluster {address}" if address else "local"
        self.description = f"on Ray ({where}, {cpus} CPU{'s' if cpus != 1 else ''}: {cpus} run(s) at a time)"

    def run(self, jobs: Sequence[Job]) -> Iterator[dict[str, Any]]:
        ray = self._ray
        pending = {self._remote.remote(job): job for job in jobs}
        try:
            while pending:
                done, _ = ray.wait(list(pending), num_returns=1)
                for ref in done:
                    job = pending.pop(ref)
                    try:
                        yield ray.get(ref)
                    except Exception as exc:  # the worker died, or Ray could not run the task
                        text = str(exc).strip().splitlines()
                        yield {
                            "run": job.name,
                            "status": "failed",
                            "seconds": None,
                            "error": f"{type(exc).__name__}: {text[-1] if text else ''}".strip(),
                        }
        finally:
            for ref in pending:  # stopped early (Ctrl-C): the rest are cancelled
                ray.cancel(ref, force=True)

    def close(self) -> None:
        self._ray.shutdown()


def executor_for(address: str | None, *, use_ray: bool = True) -> tuple[Executor, str | None]:
    """The Ray executor when Ray is installed (and wanted), else the serial one and a line saying why."""
    if use_ray and ray_installed():
        return RayExecutor(address), None
    if address:
        raise ImportError("--address needs Ray: pip install 'ideaco[ray]' (or -e '.[ray]' in a clone)")
    why = (
        None
        if not use_ray
        else "Ray is not installed (pip install 'ideaco[ray]', or -e '.[ray]' in a clone): the runs go one by one"
    )
    return SerialExecutor(), why
