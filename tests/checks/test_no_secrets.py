"""apm-no-secrets: one test per kind of secret, the key=value rule, and the prefilter's superset promise."""
from __future__ import annotations

import random
import string

import pytest

from apm_git.checks.no_secrets import Candidate, assignments, candidates, detect
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
    "Base64 High Entropy String": f"api_key={rand(ALNUM + '+/', 40)}",
    "Hex High Entropy String": f"token: {rand('0123456789abcdef', 40)}",
}


@pytest.mark.parametrize("kind", sorted(SECRETS))
def test_each_kind_of_secret_is_found_and_never_repeated(kind: str) -> None:
    text = "# Tools\n\n" + record("2026-04-06", "Deploy access", tags="tool", body=SECRETS[kind])
    (finding,) = findings(snapshot({}, {"tools-config.md": text}), HOOK)
    assert finding.path == "memory/tools-config.md" and finding.line == 6
    assert kind in finding.message
    secret = SECRETS[kind].split()[-1].split("=")[-1]
    assert secret not in finding.message


@pytest.mark.parametrize(
    "line",
    [
        "- Body: Use Redis for the session cache; Memcached lost keys on restart.",
        "- Fitness: last_referenced=2026-04-07, hit_count=3, decision_value=HIGH",
        "- Source: memory/2026-04-05.md",
        "- Body: fixed in commit 8f14e45fceea167a5a36dedd4bea2543b1c2d3e4 (a sha is not an assignment)",
        "- Body: Kubernetes: KUBECONFIG selects the target; AWS region eu-west-1",
        f"- Body: the key lives in vault; api_key={rand(ALNUM, 40)}  # pragma: allowlist secret",
        "- Body: user_id=1234567890abcdef1234",
        "- Body: trace=ABCDEFGHIJKLMNOPQRSTUVWXYZ",
    ],
)
def test_ordinary_memory_text_is_not_a_secret(line: str) -> None:
    assert not list(detect("x.md", candidates(line)))


def test_ordinary_text_is_not_even_a_candidate() -> None:
    """The prefilter keeps detect-secrets (a 100+ ms import) away from ordinary memory."""
    text = "# Decisions\n\n" + "".join(record("2026-04-06", f"Decision {n}", body=f"Chose X over Y, reason {n}.")
                                       for n in range(50))
    assert candidates(text) == []


def test_the_prefilter_never_misses_what_the_detectors_flag() -> None:
    pieces = [*SECRETS.values(), "aws_secret = '" + rand(ALNUM + "/+", 40) + "'", "password=hunter2",
              "hooks.slack.com/services/T0/B0/x", "PuTTY-User-Key-File-2: ssh-rsa"]
    lines = []
    for _ in range(400):
        words = [RNG.choice(pieces) if RNG.random() < 0.2 else rand(ALNUM + "=:_-/+ ", RNG.randint(1, 50))
                 for _ in range(RNG.randint(1, 4))]
        lines.append(" ".join(words))
    every = [Candidate(n, line, [value for _, value in assignments(line)]) for n, line in enumerate(lines, 1)]
    flagged = {line for line, _ in detect("x.md", every)}
    kept = {candidate.line for candidate in candidates("\n".join(lines))}
    assert flagged and flagged <= kept
