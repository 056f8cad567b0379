"""The meaning layer takes each passage's crowding from its cosine (apm_git/search/meaning.py, `crowding`;
docs/recall.md, "Less what is said everywhere"): in a chat log kept one turn per section, each turn's heading
names its speaker, and a question that names the speaker is near every short turn of theirs; the turn that
answers says what no other turn says, and is found first."""
from __future__ import annotations

import json
import struct
import zlib
from typing import Any

import pytest

from apm_git.store.repo import MemoryRepo
from tests.conftest import Invoke
from tests.loading.conftest import build, cli_json, write

SMALL_TALK = ("How was your week?", "Pretty busy, work has been hectic.", "That sounds great!", "Haha, totally.",
              "I know what you mean.", "Oh no, that's rough.", "Tell me more!", "Anyway, how are you doing?",
              "I've been so tired lately, not sleeping well.", "Let's catch up properly soon.", "Same here, honestly.",
              "Work is work, nothing new.", "My commute is killing me.", "I need a holiday so badly.",
              "What are your plans for the weekend?", "Nothing special, probably just resting.")
FACTS = {5: ("Tom", "This morning I drove a used Honda home from the dealer, no more broken engine."),
         11: ("Maya", "I sprained my ankle playing basketball last weekend, so I'm on crutches for a while.")}


def chat() -> str:
    lines = ["# Chat, May 2024", "", "## Session 1 — 3 May 2024", ""]
    turns: list[tuple[str, str]] = []
    for number, text in enumerate(SMALL_TALK):
        turns.append(("Tom" if number % 2 == 0 else "Maya", text))
        if number in FACTS:
            turns.append(FACTS[number])
    for number, (who, text) in enumerate(turns, start=1):
        lines += [f"### {who}, {number}", "", text, ""]
    return "\n".join(lines)


@pytest.fixture
def mem(repo: MemoryRepo, monkeypatch: pytest.MonkeyPatch) -> MemoryRepo:
    """The chat log inside a memory of other notes (tests/loading/conftest.py)."""
    mem = build(repo, monkeypatch)
    write(mem, "chat/2024-05.md", chat())
    return mem


def vectors_header(mem: MemoryRepo) -> tuple[bytes, dict[str, Any], bytes]:
    from apm_git.search.meaning import MAGIC

    data = (mem.git_dir / "apm-git" / "search" / "memory.vectors").read_bytes()
    end = data.index(b"\n", len(MAGIC))
    return data[:len(MAGIC)], json.loads(data[len(MAGIC):end]), data[end + 1:-4]


@pytest.mark.parametrize(("question", "answer"), [
    ("What vehicle did Tom buy?", "This morning I drove a used Honda"),
    ("Was Maya hurt recently?", "I sprained my ankle"),
])
@pytest.mark.slow  # over the fast loop's 0.2 s of CPU: the model loaded, passages embedded
def test_the_turn_that_answers_comes_before_the_speakers_small_talk(
        mem: MemoryRepo, run_cli: Invoke, question: str, answer: str) -> None:
    cli_json(run_cli, mem, "embed")
    found = cli_json(run_cli, mem, "search", "--meaning", question)
    assert found["hits"][0]["snippet"].startswith(answer), [hit["snippet"] for hit in found["hits"][:3]]
    recalled = cli_json(run_cli, mem, "recall", question)
    assert recalled["method"] == "meaning" and recalled["sections"][0]["text"].startswith(answer)


@pytest.mark.slow  # over the fast loop's 0.2 s of CPU: the model loaded, passages embedded
def test_the_vectors_file_holds_each_rows_crowding_and_an_older_file_gains_it(mem: MemoryRepo, run_cli: Invoke) -> None:
    """Format 2 holds, after the vectors, each row's mean cosine to its 10 nearest other rows; a file of format 1
    (no crowding) is used as it is and the next `embed` writes format 2 without embedding anything."""
    from apm_git.search.engine import numpy
    from apm_git.search.meaning import MAGIC, MAGIC_1

    np = numpy()
    built = cli_json(run_cli, mem, "embed")
    magic, header, body = vectors_header(mem)
    count, dim = header["count"], header["dim"]
    rows = np.frombuffer(body[20 * count:20 * count + 4 * dim * count], dtype=np.float32).reshape(count, dim)
    crowding = np.frombuffer(body[(20 + 4 * dim) * count:(24 + 4 * dim) * count], dtype=np.float32)
    cosines = rows @ rows.T
    expected = [float(np.sort(np.delete(cosines[row], row))[-10:].mean()) for row in range(count)]
    assert magic == MAGIC and header["crowding"] is True and 10 < count <= built["passages"]
    assert np.allclose(crowding, expected, atol=1e-5)
    assert "Haha" in chat() and crowding.max() - crowding.min() > 0.02

    del header["crowding"]  # as format 1 was written: whole, its checksum right
    vectors_end, crowding_end = (20 + 4 * dim) * count, (24 + 4 * dim) * count
    older = MAGIC_1 + json.dumps(header).encode() + b"\n" + body[:vectors_end] + body[crowding_end:]
    path = mem.git_dir / "apm-git" / "search" / "memory.vectors"
    path.write_bytes(older + struct.pack("<I", zlib.crc32(older)))
    ran = run_cli("--repo", str(mem.root), "--json", "search", "--meaning", "What vehicle did Tom buy?")
    assert ran.exit_code == 0 and ran.stderr == "" and json.loads(ran.stdout)["method"] == "meaning"
    again = cli_json(run_cli, mem, "embed")
    assert (again["embedded"], again["reused"], again["rebuilt"]) == (0, built["passages"], None)
    assert vectors_header(mem)[0] == MAGIC and np.allclose(
        np.frombuffer(vectors_header(mem)[2][vectors_end:crowding_end], dtype=np.float32), expected, atol=1e-5)

    write(mem, "chat/2024-05.md", "\n\n" + chat())  # every turn moved down, no text new or gone
    moved = cli_json(run_cli, mem, "embed")
    assert (moved["embedded"], moved["dropped"]) == (0, 0)
    after = vectors_header(mem)[2]
    assert after[crowding_end:] != body[crowding_end:]  # the places it records moved

    def by_key(data: bytes) -> dict[bytes, float]:
        values = np.frombuffer(data[vectors_end:crowding_end], dtype=np.float32)
        return {data[20 * row:20 * (row + 1)]: float(value) for row, value in enumerate(values)}

    assert by_key(after) == pytest.approx(by_key(body), abs=1e-6)  # the same texts, the same crowding


ARCHIVED = "".join(f"## Tom, {number}\n\n{text}\n\n" for number, text in enumerate((
    "This morning I drove a used Honda home from the dealer.",
    "I drove a used Honda home from the dealer this morning, the old engine was broken.",
    "This morning I drove a used Honda home from the dealer, no more broken engine!",
    "Drove a used Honda home from the dealer this morning: no more broken engine.",
), start=3))


@pytest.mark.slow  # over the fast loop's 0.2 s of CPU: the model loaded, passages embedded
def test_an_entrys_older_versions_in_the_archive_do_not_crowd_it(mem: MemoryRepo, run_cli: Invoke) -> None:
    """Only live passages are neighbours: the archive holds a live entry's own older versions, which would
    otherwise make the entry look like small talk."""
    write(mem, "archive/2024-04.md", f"# Archive 2024-04\n\n{ARCHIVED}")
    cli_json(run_cli, mem, "embed")
    question = "What vehicle did Tom buy?"
    found = cli_json(run_cli, mem, "search", "--meaning", question)
    assert found["hits"][0]["snippet"].startswith(FACTS[5][1]), [hit["snippet"] for hit in found["hits"][:3]]
    assert not found["hits"][0]["archived"]
    recalled = cli_json(run_cli, mem, "recall", question)
    assert recalled["sections"][0]["text"].startswith(FACTS[5][1])
