"""The words of the synthetic memory: topics, title and body templates, and what fills them.

Used by generate.py (through fastimport.py) and simulate_year.py; stdlib only.
"""
from __future__ import annotations

import random
import re
from datetime import date

TOPICS: tuple[tuple[str, str, tuple[str, ...], tuple[str, ...]], ...] = (
    # tag, display, technologies, things
    ("cache", "cache", ("redis", "memcached", "varnish"),
     ("session store", "eviction policy", "warmup job", "TTL defaults", "key schema")),
    ("deploy", "deploy", ("kubernetes", "helm", "argocd", "nomad"),
     ("rollout plan", "canary stage", "rollback script", "release train", "blue-green switch")),
    ("auth", "auth", ("oauth", "jwt", "saml", "keycloak"),
     ("token refresh", "SSO login", "MFA flow", "session expiry", "password reset")),
    ("billing", "billing", ("stripe", "chargebee", "paddle"),
     ("invoice run", "refund flow", "tax rules", "proration", "dunning emails")),
    ("ci", "CI", ("github-actions", "buildkite", "gitlab-ci"),
     ("runner pool", "test sharding", "build cache", "artifact upload", "flaky test quarantine")),
    ("postgres", "Postgres", ("postgres", "pgbouncer", "patroni"),
     ("index bloat", "vacuum schedule", "read replica", "schema migration", "connection pool")),
    ("search", "search", ("elasticsearch", "opensearch", "meilisearch"),
     ("reindex job", "analyzer config", "relevance tuning", "shard layout")),
    ("queue", "queue", ("kafka", "rabbitmq", "sqs"),
     ("dead-letter queue", "consumer lag", "retry backoff", "partition count")),
    ("monitoring", "monitoring", ("prometheus", "grafana", "otel", "loki"),
     ("alert rules", "trace sampling", "log retention", "SLO dashboard")),
    ("frontend", "frontend", ("react", "vite", "nextjs"),
     ("bundle size", "hydration errors", "i18n strings", "design tokens")),
    ("api", "API", ("graphql", "rest", "grpc"),
     ("rate limits", "pagination", "versioning", "error envelope")),
    ("storage", "storage", ("s3", "gcs", "minio"),
     ("lifecycle rules", "bucket policy", "upload limits", "backup retention")),
    ("dns", "DNS", ("route53", "cloudflare"),
     ("TTL change", "TLS certificates", "domain cutover")),
    ("email", "email", ("ses", "postmark", "sendgrid"),
     ("bounce handling", "DKIM keys", "template rendering")),
    ("mobile", "mobile", ("ios", "android", "expo"),
     ("push tokens", "app review", "crash reporting")),
    ("security", "security", ("vault", "trivy", "snyk"),
     ("secret rotation", "CVE triage", "audit log")),
    ("network", "network", ("nginx", "envoy", "haproxy"),
     ("proxy timeouts", "TLS termination", "egress rules")),
    ("data", "data", ("airflow", "dbt", "snowflake"),
     ("nightly ETL", "warehouse costs", "backfill job")),
    ("ml", "ML", ("pytorch", "onnx", "triton"),
     ("embedding model", "GPU quota", "eval harness")),
    ("testing", "testing", ("pytest", "playwright", "hypothesis"),
     ("fixture setup", "e2e suite", "coverage gate")),
)
TITLES: dict[str, tuple[str, ...]] = {
    "decision": ("Use {t} for the {x}", "Adopt {t} for {T} {x}", "Keep the {x} on {t}",
                 "Move the {x} to {t}", "Pin the {t} version for {T}", "Split the {x} out of {T}"),
    "lesson": ("{t} timeouts during the {x}", "{T} {x} broke after upgrade", "Race in the {x} with {t}",
               "{t} memory leak in the {x}", "Silent {x} failure on {t}", "{T} {x} slow under load"),
    "context": ("{T} stack runs on {t}", "Where the {x} runs", "{T} {x} ownership",
                "{t} cluster layout for {T}", "{T} {x} limits"),
    "person": ("{name} prefers {pref}", "{name} owns the {x}", "{name} reviews {T} changes",
               "{name} is on call for {T}"),
    "tool": ("{t} CLI cheatsheet for {T}", "Env vars for the {x}", "Proxy settings for {t}",
             "Local {t} setup", "{t} debug flags"),
    "pending": ("Finish the {x} migration", "Follow up on {t} {x}", "Review the {x} PR",
                "Write the {x} runbook"),
    "anchor": ("Config path for the {x}", "Endpoint of the {T} {x}", "Dashboard for {t}",
               "Repo folder of the {x}"),
}
BODIES: dict[str, tuple[str, ...]] = {
    "decision": ("Use {t} for the {x}; {alt} {fail}.", "Chose {t} over {alt} for the {x}: {why}.",
                 "The {x} stays on {t} until {blocker}; {why}."),
    "lesson": ("Root cause: {cause}; fix: {fix}.", "The {x} failed because of {cause}; we {fix}.",
               "Symptom was {symptom} in the {x}; cause: {cause}."),
    "context": ("The {x} runs on {t} in {env}; {team} owns it.", "{T} uses {t} for the {x}; deploys go through {env}.",
                "The {x} handles about {n}k requests per hour on {t}."),
    "person": ("{name} is the {role}; prefers {pref}.", "{name} ({role}) wants {pref} for {T} work.",
               "Ask {name} before changing the {x}; {name} is the {role}."),
    "tool": ("Run `{cmd}` before touching the {x}; needs {envvar} set.", "Set {envvar} for {t}, then run `{cmd}`.",
             "`{cmd}` shows the {x} state; {envvar} selects the target."),
    "pending": ("Still open: the {x} on {t}; blocked on {blocker}.", "Next step for the {x}: {fixnext}.",
                "Waiting on {name} for the {x}; then {fixnext}."),
    "anchor": ("{path} holds the {x} settings for {t}.", "The {x} lives at {path}.",
               "{T} {x} config: {path} ({env})."),
}
WORDS: dict[str, tuple[str, ...]] = {
    "fail": ("lost keys on restart", "could not keep up with peak load", "needed too much manual tuning",
             "had no managed offering", "broke on every minor upgrade", "was too expensive at our volume"),
    "why": ("cheaper at our scale", "the team already knows it", "better failure isolation",
            "simpler on-call story", "native support for retries", "fewer moving parts"),
    "cause": ("a missing index on the lookup column", "connection pool exhaustion", "clock skew between nodes",
              "an unbounded retry loop", "a stale DNS record", "a default timeout of 30 s",
              "a race between two workers", "an expired certificate", "a full disk on the runner"),
    "fix": ("added the index concurrently", "capped the pool at 50", "enabled NTP on the hosts",
            "added jittered backoff", "lowered the TTL to 60 s", "added a circuit breaker",
            "took a row lock", "automated certificate renewal", "rotated logs daily"),
    "fixnext": ("write the migration script", "run the load test again", "update the runbook",
                "get sign-off from security", "flip the feature flag in staging"),
    "symptom": ("p99 latency spikes", "502 errors", "duplicate emails", "missing rows", "stuck jobs"),
    "env": ("production", "staging", "eu-west-1", "the shared cluster", "the on-prem rack"),
    "team": ("the platform team", "the payments squad", "the data team", "the web team", "SRE"),
    "role": ("tech lead", "product manager", "on-call SRE", "security reviewer", "release manager",
             "designer", "QA lead"),
    "pref": ("async reviews", "short PRs", "written RFCs", "Slack over email", "morning standups",
             "screenshots in bug reports", "small releases"),
    "name": ("Alice", "Bob", "Chen", "Dana", "Eve", "Farid", "Grace", "Hiro", "Ines", "Jonas", "Kofi",
             "Lena", "Mateo", "Nadia", "Omar", "Priya", "Quinn", "Rosa", "Sven", "Tara", "Uma", "Victor",
             "Wen", "Yusuf", "Zoe"),
    "cmd": ("make bootstrap", "kubectl rollout status", "terraform plan", "pg_dump --schema-only",
            "npm run build", "docker compose up -d", "pytest -x -q", "helm diff upgrade"),
    "envvar": ("AWS_PROFILE", "KUBECONFIG", "DATABASE_URL", "HTTPS_PROXY", "REDIS_URL", "NODE_OPTIONS"),
    "blocker": ("the vendor contract", "the Q3 freeze", "a security review", "the schema migration",
                "budget approval"),
    "path": ("config/{tag}.yaml", "infra/{tag}/main.tf", "deploy/{tag}/values.yaml",
             "https://api.internal/{tag}/v2", "/etc/{t}/{t}.conf"),
}

_NOT_SLUG = re.compile(r"[^a-z0-9]+")


def vocabulary(rng: random.Random, topic: tuple[str, str, tuple[str, ...], tuple[str, ...]]) -> dict[str, str]:
    """The words that fill TITLES and BODIES templates, for one topic."""
    tag, display, techs, things = topic
    tech = rng.choice(techs)
    others = [t for other in TOPICS for t in other[2] if t != tech]
    words = {key: rng.choice(options) for key, options in WORDS.items()}
    fill = dict(words, t=tech, T=display, x=rng.choice(things), tag=tag, alt=rng.choice(others),
                tc=tech.capitalize(), n=str(rng.randint(2, 90)))
    fill["path"] = words["path"].format(tag=tag, t=tech)
    return fill


def slugify(title: str) -> str:
    return _NOT_SLUG.sub("-", title.lower()).strip("-")


def task_line(rng: random.Random, day: date) -> str:
    """A task of an attention file: status, what, owner and the day it was updated."""
    _, display, _, things = rng.choice(TOPICS)
    status = rng.choice(("[ ]", "[ ]", "[x]", "[blocked]"))
    owner = rng.choice(WORDS["name"])
    return f"{status} {display} {rng.choice(things)} (owner: {owner}, updated {day.isoformat()})"
