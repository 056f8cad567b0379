"""docs/loading.md documents what the code does: the Dreaming domain table."""
from __future__ import annotations

from pathlib import Path

from apm_git.model.config import DEFAULT_ROUTING
from apm_git.model.domains import DOMAINS

LOADING = (Path(__file__).resolve().parents[2] / "docs" / "loading.md").read_text(encoding="utf-8")


def test_domain_table_matches_the_code() -> None:
    for domain in DOMAINS:
        files = ", ".join(dict.fromkeys(DEFAULT_ROUTING[kind] for kind in domain.kinds))
        assert f"| {domain.name} | {files} | {', '.join(domain.keywords)} |" in LOADING, domain.name
