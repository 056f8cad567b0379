"""Review of memory changes: `apm-git diff` (entry by entry) and `apm-git log` (commit by commit).

`read` gets the two states and the commits between them from git; `classify` says, as a pure
function of texts and trailers, what happened to each entry, section and file; `render` turns the
result into text, Markdown (a pull-request comment) or the documented JSON (docs/review.md).
"""
