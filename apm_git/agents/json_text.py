"""A JSON document edited as text: a value is inserted or removed by splicing, every other byte stays.

Re-serialising a user's file changes what apm-git never meant to touch: compact arrays are
expanded, CRLF becomes LF, `\\u00e9` becomes `é`, `1e3` becomes `1000.0`.  So the document is
parsed into spans (where each value, key and item starts and ends), and an edit replaces one span.
What is inserted copies the file's own style (line ends, indent unit, the space after `:` and `,`).

Removal undoes insertion exactly, so that install then uninstall gives back the same bytes:

- an item added to a non-empty container goes right after its last item, as `,` + the whitespace
  that sits before that item + the item; removing it deletes from the end of the item before it;
- an item added to an empty container `[W]` becomes `[` + " " + line break and indent + item +
  line break and the container's indent + W + `]`; removing the only item deletes everything from
  the bracket to the item's end and that one line break and indent, which leaves `[W]` again;
- a container apm-git creates whole is rendered by `render`; the space after the opening bracket
  above is what tells a user's empty container (kept at uninstall) from one apm-git created
  (removed with its key): the two would otherwise be the same text.
"""
from __future__ import annotations

import dataclasses
import json
import re
from typing import Any

WHITESPACE = " \t\r\n"
BOM = "\ufeff"
EMPTY_TELL = " "  # after the bracket of a container that was empty before apm-git added to it
_STRING = re.compile(r'"(?:[^"\\\x00-\x1f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"')
_SCALAR = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?|true|false|null")


@dataclasses.dataclass
class Node:
    """A value's span; `items` for an object or an array, `value` decoded for a scalar."""

    kind: str  # "object", "array" or "scalar"
    start: int
    end: int
    items: list[JsonItem] = dataclasses.field(default_factory=list)
    value: Any = None


@dataclasses.dataclass
class JsonItem:
    """An object's member (its key decoded) or an array's element; `start` is where its key or value starts."""

    key: str | None
    start: int
    value: Node

    @property
    def end(self) -> int:
        return self.value.end


class _Parser:
    """Spans of a text that `json.loads` accepted (so errors here cannot happen on valid input)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0

    def skip(self) -> None:
        while self.pos < len(self.text) and self.text[self.pos] in WHITESPACE:
            self.pos += 1

    def value(self) -> Node:
        self.skip()
        char = self.text[self.pos]
        if char in "{[":
            return self.container("object" if char == "{" else "array")
        start = self.pos
        match = _STRING.match(self.text, start) if char == '"' else _SCALAR.match(self.text, start)
        if match is None:
            raise ValueError(f"no JSON value at {start}")
        self.pos = match.end()
        return Node("scalar", start, self.pos, value=json.loads(match[0]))

    def container(self, kind: str) -> Node:
        start = self.pos
        closing = "}" if kind == "object" else "]"
        self.pos += 1
        node = Node(kind, start, start)
        self.skip()
        while self.text[self.pos] != closing:
            item_start = self.pos
            key = None
            if kind == "object":
                key_node = self.value()
                key = key_node.value
                self.skip()
                self.pos += 1  # the ':'
            node.items.append(JsonItem(key, item_start, self.value()))
            self.skip()
            if self.text[self.pos] == ",":
                self.pos += 1
                self.skip()
        self.pos += 1
        node.end = self.pos
        return node


def parse(text: str) -> Node | None:
    """The root value's span, or None for a text that is only whitespace (and a BOM)."""
    parser = _Parser(text)
    if text.startswith(BOM):
        parser.pos = 1
    parser.skip()
    if parser.pos == len(text):
        return None
    return parser.value()


@dataclasses.dataclass(frozen=True)
class Style:
    newline: str  # "\n" or "\r\n"
    unit: str | None  # one level of indent; None: the file is written on one line
    colon: str  # between a key and its value, e.g. ": "
    comma: str  # after a comma on one line, e.g. " "


def style_of(text: str, root: Node | None) -> Style:
    """How the file is written; an empty file, or `{}`, gets Claude Code's own style (two spaces)."""
    newline = "\r\n" if "\r\n" in text else "\n"
    one_line = root is not None and bool(root.items) and "\n" not in text[root.start:root.end]
    unit: str | None = None
    if not one_line:
        match = re.search(r"\n([ \t]+)\S", text)
        unit = "  " if match is None else ("\t" if "\t" in match[1] else match[1])
    colon = ": "
    comma: str | None = None
    member = next((item for item in _walk(root) if item.key is not None), None)
    if member is not None:
        key_end = _STRING.match(text, member.start)
        if key_end is not None:
            colon = text[key_end.end():member.value.start]
    pair = next((node for node in _containers(root) if len(node.items) > 1), None)
    if pair is not None:
        between = text[pair.items[0].end:pair.items[1].start]
        comma = between[between.index(",") + 1:]
    if comma is None or "\n" in comma:
        comma = " " if colon.endswith(" ") else ""
    return Style(newline, unit, colon, comma)


def _containers(root: Node | None) -> list[Node]:
    if root is None or root.kind == "scalar":
        return []
    found = [root]
    for item in root.items:
        found += _containers(item.value)
    return found


def _walk(root: Node | None) -> list[JsonItem]:
    return [item for node in _containers(root) for item in node.items]


def render(value: Any, style: Style, indent: str, *, one_line: bool = False) -> str:
    """`value` as apm-git writes a new value in this file, its first line at `indent`."""
    if isinstance(value, dict):
        parts = [json.dumps(key, ensure_ascii=False) + style.colon + render(item, style, _deeper(style, indent),
                                                                           one_line=one_line)
                 for key, item in value.items()]
        return _wrap("{", "}", parts, style, indent, one_line)
    if isinstance(value, list):
        parts = [render(item, style, _deeper(style, indent), one_line=one_line) for item in value]
        return _wrap("[", "]", parts, style, indent, one_line)
    return json.dumps(value, ensure_ascii=False)


def _deeper(style: Style, indent: str) -> str:
    return indent + (style.unit or "")


def _wrap(opening: str, closing: str, parts: list[str], style: Style, indent: str, one_line: bool) -> str:
    if not parts:
        return opening + closing
    if one_line or style.unit is None:
        return opening + ("," + style.comma).join(parts) + closing
    inner = style.newline + _deeper(style, indent)
    return opening + inner + ("," + inner).join(parts) + style.newline + indent + closing


def line_indent(text: str, pos: int) -> str:
    """The spaces and tabs that start the line holding `pos`."""
    start = text.rfind("\n", 0, pos) + 1
    end = start
    while end < len(text) and text[end] in " \t":
        end += 1
    return text[start:end]


def created(text: str, node: Node, style: Style) -> bool:
    """Whether the container is exactly what `render` writes for its value (so apm-git wrote it whole)."""
    if node.kind == "scalar":
        return False
    span = text[node.start:node.end]
    value = json.loads(span)
    indent = line_indent(text, node.start)
    return span in (render(value, style, indent), render(value, style, indent, one_line=True))


def insert(text: str, container: Node, value: Any, style: Style, key: str | None = None) -> str:
    """`text` with `value` (under `key` in an object) added as the container's last item."""
    if container.items:
        last = container.items[-1]
        gap = _gap(text, container, style)
        one_line = "\n" not in text[container.start:container.end]
        item = _item(key, value, style, line_indent(text, last.start), one_line)
        addition = "," + gap + item
        return text[:last.end] + addition + text[last.end:]
    outer = line_indent(text, container.start)
    if style.unit is None:
        lead, tail, indent = EMPTY_TELL, "", outer
    else:
        indent = outer + style.unit
        lead, tail = EMPTY_TELL + style.newline + indent, style.newline + outer
    item = _item(key, value, style, indent, style.unit is None)
    at = container.start + 1
    return text[:at] + lead + item + tail + text[at:]


def _gap(text: str, container: Node, style: Style) -> str:
    """The whitespace to put after the comma before a new last item: what sits before the last item now."""
    items = container.items
    if len(items) > 1:
        between = text[items[-2].end:items[-1].start]
        gap = between[between.index(",") + 1:]
    else:
        gap = text[container.start + 1:items[0].start]  # after the bracket (where a tell may be)
    line = gap.find("\n")
    if line >= 0:
        return gap[line - 1 if line > 0 and gap[line - 1] == "\r" else line:]
    return gap if len(items) > 1 else style.comma


def _item(key: str | None, value: Any, style: Style, indent: str, one_line: bool) -> str:
    rendered = render(value, style, indent, one_line=one_line)
    return rendered if key is None else json.dumps(key, ensure_ascii=False) + style.colon + rendered


def remove(text: str, container: Node, index: int, style: Style) -> str:
    """`text` without the container's item `index`, and the separator `insert` put with it."""
    items = container.items
    item = items[index]
    if index > 0:
        return text[:items[index - 1].end] + text[item.end:]
    if len(items) > 1:
        return text[:item.start] + text[items[1].start:]
    rest = text[item.end:]
    tail = style.newline + line_indent(text, container.start)
    if style.unit is not None and rest.startswith(tail):
        rest = rest[len(tail):]
    return text[:container.start + 1] + rest


def replace(text: str, node: Node, value: Any) -> str:
    """`text` with a scalar's span replaced by `value`."""
    return text[:node.start] + json.dumps(value, ensure_ascii=False) + text[node.end:]


def member(node: Node, key: str) -> JsonItem | None:
    """An object's member by key; the last one when the key repeats, as JSON.parse reads it."""
    found = [item for item in node.items if item.key == key]
    return found[-1] if found else None
