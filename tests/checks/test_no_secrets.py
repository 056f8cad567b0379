"""apm-no-secrets: one test per kind of secret as the check reports it, and what it never reports.

The scanner itself (recall over the corpus, false positives, the prefilter) is tested in tests/secret_scan/.
"""
from __future__ import annotations

import random
import string

import pytest

from tests.checks.helpers import findings, record, snapshot

HOOK = "apm-no-secrets"
RNG = random.Random(7)


def rand(chars: str, length: int) -> str:
    return "".join(RNG.choice(chars) for _ in range(length))


ALNUM = string.ascii_letters + string.digits
# Built at run time from random characters: no real credential is ever written down.
SECRETS = {
    "AWS Access Key": f"the deploy key id is AKIA{rand(string.ascii_uppercase + string.digits, 16)}",
    "GitHub Token": f"CI uses ghp_{rand(ALNUM, 36)} for pushes",
    "GitLab Token": f"runner token glpat-{rand(ALNUM, 20)}",
    "Slack Token": f"bot xoxb-{rand(string.digits, 12)}-{rand(string.digits, 13)}-{rand(ALNUM, 24)}",
    "Private Key": "-----BEGIN RSA PRIVATE KEY-----",
    "Secret Keyword": f"api_key={rand(ALNUM + '+/', 40)}",
    "Basic Auth Credentials": f"postgres://app:{rand(ALNUM, 14)}@db.internal/app",
    "JSON Web Token": "Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0." + rand(ALNUM, 43),
}


@pytest.mark.parametrize("kind", sorted(SECRETS))
def test_each_kind_of_secret_is_found_and_never_repeated(kind: str) -> None:
    text = "# Tools\n\n" + record("2026-04-06", "Deploy access", tags="tool", body=SECRETS[kind])
    (finding,) = findings(snapshot({}, {"tools-config.md": text}), HOOK)
    assert finding.path == "memory/tools-config.md" and finding.line == 6
    assert f"looks like a credential ({kind})" in finding.message
    for word in SECRETS[kind].replace("=", " ").replace(":", " ").replace("@", " ").split():
        if len(word) > 8:
            assert word not in finding.message


def test_two_secrets_on_one_line_are_one_finding_naming_both_kinds() -> None:
    line = f"- Body: {SECRETS['GitHub Token']} and {SECRETS['AWS Access Key']}"
    (finding,) = findings(snapshot({}, {"tools-config.md": f"# Tools\n\n{line}\n"}), HOOK)
    assert "(AWS Access Key, GitHub Token)" in finding.message


@pytest.mark.parametrize(
    "line",
    [
        "- Body: Use Redis for the session cache; Memcached lost keys on restart.",
        "- Fitness: last_referenced=2026-04-07, hit_count=3, decision_value=HIGH",
        "- Body: fixed in commit=8f14e45fceea167a5a36dedd4bea2543b1c2d3e4",
        "- Body: Kubernetes: KUBECONFIG selects the target; AWS region eu-west-1",
        f"- Body: the key lives in vault; api_key={rand(ALNUM, 40)}  # pragma: allowlist secret",
        "- Body: user_id=1234567890abcdef1234",
        "- Body: trace=ABCDEFGHIJKLMNOPQRSTUVWXYZ",
        '<<<EXTERNAL_UNTRUSTED_CONTENT id="7bdc0dce347bd027">>>',
        "- Queried Omada via `omada-mcp.listDevices siteId=685ac718840b7e743bcc0096`",
        "?m=POST&h=eyJDb250ZW50LVR5cGUiOiJhcHBsaWNhdGlvbi9qc29uIn0=&b=eyJuYW1lIjoidGVzdCJ9",
    ],
)
def test_ordinary_memory_text_is_not_a_secret(line: str) -> None:
    assert findings(snapshot({}, {"tools-config.md": f"# Tools\n\n{line}\n"}), HOOK) == []
