"""One module per command: typed functions that return results; the CLI formats them."""
