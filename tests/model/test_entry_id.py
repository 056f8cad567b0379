from __future__ import annotations

import pytest

from apm_git.model.entry_id import entry_id, is_entry_id, slugify


@pytest.mark.parametrize(
    ("title", "slug"),
    [
        ("Redis cache strategy", "redis-cache-strategy"),
        ("  API: version v2!  ", "api-version-v2"),
        ("Café déjà vu", "cafe-deja-vu"),
        ("pytest -x -q — the fast suite", "pytest-x-q-the-fast-suite"),
    ],
)
def test_slugify(title: str, slug: str) -> None:
    assert slugify(title) == slug


def test_titles_that_lose_letters_get_a_hash_so_they_do_not_collide() -> None:
    first, second = slugify("Redis缓存策略"), slugify("Redis缓存规则")
    assert first.startswith("redis-") and second.startswith("redis-") and first != second
    assert is_entry_id(entry_id("2026-04-06", "数据库"))


def test_long_titles_are_cut_at_a_word() -> None:
    slug = slugify("word " * 40)
    assert len(slug) <= 60 and not slug.endswith("-")
