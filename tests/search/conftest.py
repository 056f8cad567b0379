from __future__ import annotations

from tests.loading.conftest import mem  # noqa: F401  (the loading tests' repository)
