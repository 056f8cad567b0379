from __future__ import annotations

from apm_git.cli.app import main

if __name__ == "__main__":
    raise SystemExit(main())
