"""The merge on the real workspaces (../shared/realworld/cases): their dialects (fences, CRLF, BOMs,
free-form sections, session notes) survive a merge untouched, and edits of different sections on two
sides both land, cleanly."""
from __future__ import annotations

from pathlib import Path

import pytest

from apm_git.merge.conserve import lost_entries
from apm_git.merge.tree import merge_memory
from apm_git.model.records import parse
from tests.realworld import ENV_CASES, cases_dir

CASES = cases_dir()
NAMES = sorted(path.name for path in CASES.iterdir() if path.is_dir()) if CASES else []


def memory_of(case: Path) -> dict[str, str]:
    tree = {}
    for path in sorted((case / "memory").rglob("*")):
        if path.is_file() and not path.is_symlink():
            try:
                tree["memory/" + path.relative_to(case / "memory").as_posix()] = path.read_bytes().decode("utf-8")
            except UnicodeDecodeError:
                continue  # not text: git's business, never the driver's
    return tree


def edited(tree: dict[str, str], side: str, parity: int) -> dict[str, str]:
    """Every `parity`-th `## ` section of every Markdown file gets one more line at its end."""
    result = dict(tree)
    for path, text in tree.items():
        if not path.endswith(".md"):
            continue
        parsed = parse(text)
        parts = [parsed.bom, parsed.preamble.text]
        for number, block in enumerate(parsed.blocks):
            body = block.text
            if number % 2 == parity and not parse(body).records:
                newline = "\r\n" if body.endswith("\r\n") else "\n"
                body = body.rstrip("\r\n") + f"{newline}- note from {side}{newline}"
                body += newline if number + 1 < len(parsed.blocks) else ""
            parts.append(body)
        result[path] = "".join(parts)
    return result


@pytest.mark.parametrize("name", NAMES or ["absent"])
def test_a_real_memory_merges_edits_of_different_sections_cleanly(name: str) -> None:
    if CASES is None:
        pytest.skip(f"the shared real workspaces are absent (../shared/realworld/cases or ${ENV_CASES})")
    base = memory_of(CASES / name)
    ours, theirs = edited(base, "ours", 0), edited(base, "theirs", 1)
    for mine, other in ((base, base), (ours, base), (base, theirs)):
        expected = mine if other is base else other
        assert merge_memory(base, mine, other).files == expected  # untouched: byte for byte
    assert any("- note from theirs" in text for text in theirs.values()), "nothing was edited: the test tests nothing"
    result = merge_memory(base, ours, theirs)
    assert result.clean, result.conflicts[:3]
    assert lost_entries(base, ours, theirs, result.files) == []
    for path, text in result.files.items():
        assert text is not None
        assert text.count("- note from ours") == ours[path].count("- note from ours")
        assert text.count("- note from theirs") == theirs[path].count("- note from theirs")
        assert "<<<<<<<" not in text or "<<<<<<<" in base[path]
