"""The shipped Q4_1 GGUF re-encoded as Q8_0 once: the same weights, made atomically, never in the way."""

from __future__ import annotations

import logging
from pathlib import Path

import gguf
import numpy as np
import pytest
from gguf import quants

from ideaco.llm import requantize
from ideaco.llm.requantize import cache_dir, convert, fast_copy

Q4_1, Q8_0, F32 = (
    gguf.GGMLQuantizationType.Q4_1,
    gguf.GGMLQuantizationType.Q8_0,
    gguf.GGMLQuantizationType.F32,
)


def write_gguf(path: Path, *, quantized: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """A tiny GGUF: one Q4_1 (or F32) weight matrix, one F32 norm, some metadata. Returns both as floats."""
    rng = np.random.default_rng(3)
    weight = rng.normal(size=(4, 64)).astype(np.float32)
    norm = rng.normal(size=(64,)).astype(np.float32)
    writer = gguf.GGUFWriter(path, "llama")
    writer.add_name("tiny")
    writer.add_context_length(128)
    writer.add_token_list(["<s>", "a", "b"])
    writer.add_file_type(gguf.LlamaFileType.MOSTLY_Q4_1)
    if quantized:
        writer.add_tensor("blk.0.attn_q.weight", quants.quantize(weight, Q4_1), raw_dtype=Q4_1)
        weight = quants.dequantize(quants.quantize(weight, Q4_1), Q4_1)  # what the file holds
    else:
        writer.add_tensor("blk.0.attn_q.weight", weight)
    writer.add_tensor("blk.0.attn_norm.weight", norm)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return weight, norm


def tensors(path: Path) -> dict[str, gguf.ReaderTensor]:
    return {t.name: t for t in gguf.GGUFReader(path).tensors}


def test_q4_1_tensors_become_q8_0_within_the_q8_0_step_and_the_rest_is_copied(tmp_path):
    source, target = tmp_path / "m.Q4_1.gguf", tmp_path / "m.Q8_0.gguf"
    weight, norm = write_gguf(source)
    convert(source, target)
    out = tensors(target)
    assert out["blk.0.attn_q.weight"].tensor_type == Q8_0
    got = quants.dequantize(out["blk.0.attn_q.weight"].data, Q8_0)
    block_max = np.abs(weight.reshape(-1, 32)).max(axis=1, keepdims=True)
    error = np.abs(got.reshape(-1, 32) - weight.reshape(-1, 32))
    assert (error <= block_max / 254 + 1e-3).all()  # half a Q8_0 step (scale = max/127), f16 scale rounding
    assert 0 < error.max()  # a real re-encoding, not a byte copy
    assert out["blk.0.attn_norm.weight"].tensor_type == F32
    assert np.array_equal(out["blk.0.attn_norm.weight"].data, norm)
    fields = gguf.GGUFReader(target).fields
    assert fields["general.name"].contents() == "tiny"
    assert fields["llama.context_length"].contents() == 128
    assert fields["tokenizer.ggml.tokens"].contents() == ["<s>", "a", "b"]
    assert fields["general.file_type"].contents() == gguf.LlamaFileType.MOSTLY_Q8_0


def test_fast_copy_converts_once_then_reuses_the_copy(tmp_path, monkeypatch):
    source = tmp_path / "m.Q4_1.gguf"
    write_gguf(source)
    said: list[str] = []
    first = fast_copy(source, folder=tmp_path / "cache", say=said.append)
    assert first.parent == tmp_path / "cache" and first.name.endswith(".gguf") and "Q8_0" in first.name
    assert len(said) == 1 and "once" in said[0]
    assert tensors(first)["blk.0.attn_q.weight"].tensor_type == Q8_0

    def must_not_run(*args):
        raise AssertionError("converted again")

    monkeypatch.setattr(requantize, "convert", must_not_run)
    assert fast_copy(source, folder=tmp_path / "cache", say=said.append) == first
    assert len(said) == 1  # nothing said the second time
    assert [p.name for p in (tmp_path / "cache").iterdir()] == [first.name]  # no temporary left


def test_a_changed_source_gets_its_own_copy(tmp_path):
    source = tmp_path / "m.Q4_1.gguf"
    write_gguf(source)
    first = fast_copy(source, folder=tmp_path)
    source.write_bytes(source.read_bytes() + b"\0" * 32)  # another size: another file
    assert fast_copy(source, folder=tmp_path) != first


def test_the_same_file_installed_again_finds_its_copy(tmp_path, monkeypatch):
    source = tmp_path / "venv1" / "m.Q4_1.gguf"
    source.parent.mkdir()
    write_gguf(source)
    first = fast_copy(source, folder=tmp_path / "cache")
    again = tmp_path / "venv2" / "m.Q4_1.gguf"  # another venv: the same bytes, another mtime
    again.parent.mkdir()
    again.write_bytes(source.read_bytes())
    monkeypatch.setattr(requantize, "convert", lambda *a: pytest.fail("converted again"))
    assert fast_copy(again, folder=tmp_path / "cache") == first


def test_a_file_without_q4_1_is_used_as_it_is(tmp_path):
    source = tmp_path / "plain.gguf"
    write_gguf(source, quantized=False)
    assert fast_copy(source, folder=tmp_path / "cache") == source
    assert not (tmp_path / "cache").exists()


def test_a_cache_that_cannot_be_written_keeps_the_shipped_file_with_a_warning(tmp_path, caplog):
    source = tmp_path / "m.Q4_1.gguf"
    write_gguf(source)
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("a file where the cache folder should be")
    with caplog.at_level(logging.WARNING, logger="ideaco.llm.requantize"):
        assert fast_copy(source, folder=blocker / "cache") == source
    assert "kept as shipped" in caplog.text


def test_a_conversion_that_fails_midway_leaves_no_file(tmp_path, monkeypatch):
    source = tmp_path / "m.Q4_1.gguf"
    write_gguf(source)
    folder = tmp_path / "cache"

    def half_then_fail(src: Path, target: Path) -> None:
        target.write_bytes(b"GGUF half")
        raise OSError("disk full")

    monkeypatch.setattr(requantize, "convert", half_then_fail)
    assert fast_copy(source, folder=folder) == source
    assert list(folder.iterdir()) == []  # no half file for the next run to load
    monkeypatch.undo()
    assert fast_copy(source, folder=folder) != source  # the next run makes it whole


@pytest.mark.parametrize(
    ("env", "expected"),
    [
        ({"IDEACO_CACHE": "/x/ideaco-cache"}, "/x/ideaco-cache"),
        ({"XDG_CACHE_HOME": "/x/cache"}, "/x/cache/ideaco"),
        ({"HOME": "/x/home"}, "/x/home/.cache/ideaco"),
    ],
)
def test_cache_dir_follows_the_environment(monkeypatch, env, expected):
    for name in ("IDEACO_CACHE", "XDG_CACHE_HOME"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert cache_dir() == Path(expected)


def test_a_run_says_once_that_it_prepares_the_model_and_starts_on_the_copy(tmp_path, monkeypatch):
    """`open_llm` (what `ideaco run` and `chat` call) makes the copy before the servers start, saying so."""
    from ideaco.llm import embedded
    from ideaco.llm.config import resolve_settings
    from ideaco.model_options import ModelOptions, open_llm

    shipped = tmp_path / "SmolLM2-135M-Instruct.Q4_1.gguf"
    write_gguf(shipped)
    monkeypatch.setenv("IDEACO_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(embedded, "find_default_model", lambda: shipped)
    served: list[Path] = []

    def fake_serve(settings, concurrency, employees, timeout):
        served.append(embedded.default_model())
        raise embedded.EmbeddedError("stop here")  # the servers themselves are not the point

    monkeypatch.setattr(embedded, "serve", fake_serve)
    for _ in range(2):
        said: list[str] = []
        with pytest.raises(Exception, match="stop here"):
            open_llm(ModelOptions(), resolve_settings(env={}), said.append)
        prepared = [line for line in said if "preparing the embedded model" in line]
        assert len(prepared) == (1 if len(served) == 1 else 0)
    assert served[0] == served[1] and "Q8_0" in served[0].name
