"""A project's identity on every machine, and the branch it names (apm_git/tracking/identity.py)."""
from __future__ import annotations

import pytest

from apm_git.tracking.identity import branch, from_remote, name_problem


@pytest.mark.parametrize(("url", "identity"), [
    ("git@github.com:me/shop.git", "github.com/me/shop"),
    ("https://me:token@GitHub.com/me/shop/", "github.com/me/shop"),
    ("ssh://git@github.com:22/me/shop.git", "github.com/me/shop"),
    ("https://gitlab.example.invalid/group/sub/shop", "gitlab.example.invalid/group/sub/shop"),
    ("/srv/git/shop.git", "git/shop"),
    ("file:///srv/git/shop.git", "git/shop"),
    ("shop", None),
    ("", None),
])
def test_remote_urls_of_one_project_give_one_identity(url: str, identity: str | None) -> None:
    assert from_remote(url) == identity


def test_the_identity_never_keeps_a_password() -> None:
    assert "token" not in (from_remote("https://user:token@host.invalid/a/b") or "")


def test_branches_are_valid_ref_names() -> None:
    assert branch("claude-code", "github.com/me/shop") == "apm-git/claude-code/github.com/me/shop"
    assert branch("codex", "a b/..x/.hidden/y.lock") == "apm-git/codex/a-b/x/hidden/y"


def test_names_a_user_gives() -> None:
    assert name_problem("shop") is None
    assert name_problem("my shop") is not None and name_problem("-x") is not None
