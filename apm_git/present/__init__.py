"""What each verb's result looks like as JSON and as text: click-free, below both the command
line (apm_git/cli/) and the agents' surfaces (apm_git/agents/, the MCP server), which take their
shapes and formats from here (docs/architecture.md)."""
