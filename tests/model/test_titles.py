from __future__ import annotations

import pytest

from apm_git.model.titles import default_title, normalize_title, similar, title_words


def test_normalized_titles_fold_case_punctuation_stop_words_and_plurals() -> None:
    assert normalize_title("Use Redis for the Cache.") == normalize_title("use redis cache")
    assert normalize_title("Nightly jobs") == normalize_title("nightly job")
    assert normalize_title("Café config") == normalize_title("cafe config")
    assert normalize_title("缓存策略") == "缓存策略"


@pytest.mark.parametrize(("first", "second", "expected"), [
    ("Use Redis for the session cache", "use redis for session cache", True),  # equal after normalizing
    ("Redis timeouts during the nightly warmup job", "Redis timeouts during nightly warmup jobs", True),
    ("Redis timeouts during the nightly warmup job", "Redis timeouts during warmup", False),  # 3/5 words
    ("Postgres index bloat on orders table", "Postgres index bloat on orders table again", True),  # 5/6
    ("Use Redis for the session cache", "Use Redis for the eviction policy", False),
    ("Redis", "Redis", True),  # one equal word is equal
    ("Redis cache", "Redis caches", True),
    ("Redis cache", "Redis queue", False),  # short titles must be equal
    ("the", "the", False),  # nothing left to compare
])
def test_similar_titles(first: str, second: str, expected: bool) -> None:
    assert similar(title_words(first), title_words(second)) is expected


def test_default_title_is_the_first_clause_in_at_most_eight_words() -> None:
    assert default_title("Use Redis for sessions. Memcached lost keys.") == "Use Redis for sessions"
    assert default_title("Keep Postgres 15 — the extension needs it") == "Keep Postgres 15"
    words = "one two three four five six seven eight"
    assert default_title(f"{words} nine ten") == words
