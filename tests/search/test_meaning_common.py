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


def test_crowding_is_the_mean_of_the_nearest_live_neighbours(monkeypatch: pytest.MonkeyPatch) -> None:
    """`crowding` against a plain computation: every row's CROWD nearest other live rows, the archive's rows
    crowded by live ones but crowding none; fewer than two live rows give zeros; past CROWD_SAMPLE live rows
    an even sample of them, with fewer neighbours (no fewer than CROWD_LEAST)."""
    np = pytest.importorskip("numpy")  # the test extra installs it
    from apm_git.search import meaning

    rng = np.random.default_rng(25)
    matrix = rng.standard_normal((120, 16)).astype(np.float32)
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
    live = list(range(0, 120, 2))

    def plain(rows: list[int], among: list[int], nearest: int) -> list[float]:
        cosines = matrix[rows] @ matrix[among].T
        return [float(np.sort([value for column, value in zip(among, line, strict=True) if column != row])[-nearest:]
                      .mean()) for row, line in zip(rows, cosines, strict=True)]

    every = list(range(120))
    assert np.allclose(meaning.crowding(matrix, np, live), plain(every, live, meaning.CROWD), atol=1e-6)
    assert np.allclose(meaning.crowding(matrix, np), plain(every, every, meaning.CROWD), atol=1e-6)
    assert not meaning.crowding(matrix, np, [7]).any() and not meaning.crowding(matrix, np, []).any()
    assert len(meaning.crowding(matrix[:0], np)) == 0

    sample = 20  # of the 60 live rows: a third of them, so 10 × 20 / 60 → 3 neighbours
    monkeypatch.setattr(meaning, "CROWD_SAMPLE", sample)
    sampled = meaning.crowding(matrix, np, live)
    among = [live[at] for at in np.linspace(0, len(live) - 1, sample).round().astype(int)]
    assert len(set(among)) == sample
    assert np.allclose(sampled, plain(every, among, meaning.CROWD_LEAST), atol=1e-6)


@pytest.mark.slow  # over the fast loop's 0.2 s of CPU: the model loaded, passages embedded
def test_a_stopped_build_keeps_the_crowding_it_had(mem: MemoryRepo, run_cli: Invoke,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """A checkpoint's write carries each old text's crowding and gives the new ones the median, so a build
    stopped midway leaves the ranking as near as it was; `status` says what the vectors lack when they hold
    none."""
    from apm_git.commands.embed import embed as embed_now
    from apm_git.search import meaning
    from apm_git.search.engine import numpy
    from apm_git.search.index import SearchScope

    np = numpy()
    cli_json(run_cli, mem, "embed")
    _, header, body = vectors_header(mem)
    count, dim = header["count"], header["dim"]
    before = dict(zip((body[20 * row:20 * (row + 1)] for row in range(count)),
                      np.frombuffer(body[(20 + 4 * dim) * count:(24 + 4 * dim) * count], dtype=np.float32),
                      strict=True))
    write(mem, "more.md", "# More\n\n" + "".join(f"## Note {n}\n\nThe plant on shelf {n} needs water.\n\n"
                                                  for n in range(2 * meaning.BATCH)))
    monkeypatch.setattr(meaning, "CHECKPOINT", meaning.BATCH)

    def stop(done: int, todo: int) -> None:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        embed_now(mem, progress=stop)
    _, header, body = vectors_header(mem)
    count = header["count"]
    assert header["crowding"] is True and count == len(before) + meaning.BATCH
    crowding = np.frombuffer(body[(20 + 4 * dim) * count:(24 + 4 * dim) * count], dtype=np.float32)
    keys = [body[20 * row:20 * (row + 1)] for row in range(count)]
    assert all(crowding[row] == before[key] for row, key in enumerate(keys) if key in before)
    middle = np.float32(np.median(np.array(list(before.values()), dtype=np.float32)))
    assert all(crowding[row] == middle for row, key in enumerate(keys) if key not in before)

    place = meaning.VectorsPlace(mem, SearchScope())
    old, _ = place.read()
    assert old is not None
    place.write(meaning.Vectors(old.model, old.keys, old.dim, np.frombuffer(old.floats, dtype=np.float32)
                                .reshape(len(old.keys), old.dim), old.places), np)  # no crowding
    status = cli_json(run_cli, mem, "status")["vectors"][0]
    assert "no crowding yet" in status["note"] and f"{status['passages']} passages" in status["note"]
