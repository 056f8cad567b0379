"""The words a `--json` output is declared in, once: its JSON Schema and the output itself come from it.

A `Shape` names one schema of apm_git/schemas/ (`flush`, `hooks-install`) and declares its object field
by field, in the order the output prints them: `Str`, `Int`, `Bool`, `Num`, `Const`, `Enum` (the words of
a `Literal` type of apm_git/model/vocabulary.py, so the schema's enum is the code's type), `Maybe` (or
null), `List`, `Obj`, `Map`, `Variants`, `Ref`, `Anything`; `From` says where a field's value comes from
when it is not the attribute of its name (another attribute, or a value computed from the object), and
`within` moves an object's fields into one that holds it.  From
that one declaration:

- `Shape.schema()` is the JSON Schema that `python -m apm_git.present.generate_schemas` writes, checked in
  and verified by tests/present/test_generate_schemas.py (every object closed: each of its fields
  required, no other field allowed; `version` first in each, `{"const": 1}`);
- `Shape.build(result, **given)` is the output: each field read from the result's attribute (or key) of
  its name (or as its `From` reads it), unless given; a `List` made a list of its items built, an `Obj`
  built field by field, a `Const` written as it is declared.  A field whose value depends on more than its
  object is given by the shape function.

Plain classes with `__slots__` (no dataclasses): every command imports the shapes it prints.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, get_args

VERSION = 1  # raised when a key is removed or renamed; a new key may come within a version
DIALECT = "https://json-schema.org/draft/2020-12/schema"
URN = "urn:apm-git:schema:"


def words_of(literal: Any) -> tuple[str, ...]:
    """The words of a `Literal` type, or a tuple of words as it is."""
    return literal if isinstance(literal, tuple) else get_args(literal)


class Spec:
    """One value of an output: its schema, and how it is built from what a command returned."""

    __slots__ = ("doc",)

    def __init__(self, doc: str | None = None) -> None:
        self.doc = doc

    def body(self) -> dict[str, Any]:
        raise NotImplementedError

    def schema(self) -> dict[str, Any]:
        return {"description": self.doc, **self.body()} if self.doc else self.body()

    def build(self, value: Any) -> Any:
        return value

    def about(self, doc: str) -> Spec:
        """The same value described for one place it is used in."""
        import copy

        clone = copy.copy(self)
        clone.doc = doc
        return clone


class _Typed(Spec):
    __slots__ = ()
    TYPE = ""

    def body(self) -> dict[str, Any]:
        return {"type": self.TYPE, **self.limits()}

    def limits(self) -> dict[str, Any]:
        return {}


class Str(_Typed):
    __slots__ = ("pattern",)
    TYPE = "string"

    def __init__(self, pattern: str | None = None, *, doc: str | None = None) -> None:
        super().__init__(doc)
        self.pattern = pattern

    def limits(self) -> dict[str, Any]:
        return {"pattern": self.pattern} if self.pattern else {}


class Int(_Typed):
    __slots__ = ("minimum",)
    TYPE = "integer"

    def __init__(self, minimum: int | None = None, *, doc: str | None = None) -> None:
        super().__init__(doc)
        self.minimum = minimum

    def limits(self) -> dict[str, Any]:
        return {} if self.minimum is None else {"minimum": self.minimum}


class Num(Int):
    __slots__ = ()
    TYPE = "number"


class Bool(_Typed):
    __slots__ = ()
    TYPE = "boolean"


class Const(Spec):
    """One value, always: built as declared, whatever the result holds."""

    __slots__ = ("value",)

    def __init__(self, value: str | int, *, doc: str | None = None) -> None:
        super().__init__(doc)
        self.value = value

    def body(self) -> dict[str, Any]:
        return {"const": self.value}

    def build(self, value: Any) -> Any:
        return self.value


class Enum(_Typed):
    """A word of a `Literal` type (or of a tuple of words): the schema lists them in that order."""

    __slots__ = ("literal", "words")
    TYPE = "string"

    def __init__(self, literal: Any, *, doc: str | None = None) -> None:
        super().__init__(doc)
        self.literal = literal
        self.words = words_of(literal)

    def limits(self) -> dict[str, Any]:
        return {"enum": list(self.words)}


class Anything(Spec):
    """Any JSON value (what a state file of the user's holds, passed on as it is)."""

    __slots__ = ()

    def body(self) -> dict[str, Any]:
        return {}


class Maybe(Spec):
    """The value, or null."""

    __slots__ = ("inner",)

    def __init__(self, inner: Spec, *, doc: str | None = None) -> None:
        super().__init__(doc)
        self.inner = inner

    def body(self) -> dict[str, Any]:
        inner = self.inner.body()
        if isinstance(self.inner, _Typed):  # ["string", "null"]: a pattern or minimum applies to the string only
            enum = inner.get("enum")
            return {**inner, "type": [inner["type"], "null"], **({"enum": [*enum, None]} if enum else {})}
        return {"anyOf": [{"type": "null"}, inner]}

    def build(self, value: Any) -> Any:
        return None if value is None else self.inner.build(value)


class List(Spec):
    """An array of one kind of item; `size` fixes its length (a pair is `size=2`)."""

    __slots__ = ("items", "size")

    def __init__(self, items: Spec, *, size: int | None = None, doc: str | None = None) -> None:
        super().__init__(doc)
        self.items, self.size = items, size

    def body(self) -> dict[str, Any]:
        sized = {} if self.size is None else {"minItems": self.size, "maxItems": self.size}
        return {"type": "array", "items": self.items.schema(), **sized}

    def build(self, value: Any) -> Any:
        build = self.items.build
        return [build(item) for item in value]


class From(Spec):
    """A field read by `read` (an attribute's name, or a function of the object the field is in) rather
    than from the attribute of the field's name; its schema and its building are `inner`'s."""

    __slots__ = ("inner", "read")

    def __init__(self, inner: Spec, read: str | Callable[[Any], Any]) -> None:
        super().__init__(None)
        self.inner, self.read = inner, read

    def schema(self) -> dict[str, Any]:
        inner = self.inner.schema()
        return {"description": self.doc, **inner} if self.doc else inner

    def body(self) -> dict[str, Any]:
        return self.inner.body()

    def build(self, value: Any) -> Any:
        return self.inner.build(value)

    def of(self, value: Any) -> Any:
        """The field's value in `value`, the object it is a field of."""
        return getattr(value, self.read) if isinstance(self.read, str) else self.read(value)


def within(read: Callable[[Any], Any], fields: Mapping[str, Spec], empty: Mapping[str, Any] | None = None,
           ) -> dict[str, Spec]:
    """`fields` as fields of an object that holds theirs: each read from `read(value)` (`empty`'s value when
    that is None), so one declaration serves both (a tracked folder, and a listed item that holds one)."""

    def moved(name: str, spec: Spec) -> Spec:
        if isinstance(spec, Const):
            return spec

        def of(value: Any) -> Any:
            inner = read(value)
            if inner is None and empty is not None:
                return empty[name]
            return spec.of(inner) if isinstance(spec, From) else getattr(inner, name)

        return From(spec.inner if isinstance(spec, From) else spec, of)

    return {name: moved(name, spec) for name, spec in fields.items()}


class Obj(Spec):
    """A closed object: each field required, no other allowed, printed in the order declared."""

    __slots__ = ("fields",)

    def __init__(self, fields: Mapping[str, Spec], *, doc: str | None = None) -> None:
        super().__init__(doc)
        self.fields = dict(fields)

    def body(self) -> dict[str, Any]:
        return {"type": "object", "properties": {name: spec.schema() for name, spec in self.fields.items()},
                "required": list(self.fields), "additionalProperties": False}

    def build(self, value: Any, given: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """`value`'s attributes of the fields' names (or as a `From` reads them; a dict: its keys), those in
        `given` replaced."""
        given = given or {}
        keyed = isinstance(value, dict)
        out = {}
        for name, spec in self.fields.items():
            if name in given:
                field = given[name]
            elif isinstance(spec, Const):
                field = None
            elif keyed:
                field = value[name]
            elif isinstance(spec, From):
                field = spec.of(value)
            else:
                field = getattr(value, name)
            out[name] = spec.build(field)
        return out


class Map(Spec):
    """An object used as a map: any keys (or the words of `keys`), each value of one kind."""

    __slots__ = ("keys", "values")

    def __init__(self, values: Spec, *, keys: Any = None, doc: str | None = None) -> None:
        super().__init__(doc)
        self.values, self.keys = values, keys

    def body(self) -> dict[str, Any]:
        named = {} if self.keys is None else {"propertyNames": {"enum": list(words_of(self.keys))}}
        return {"type": "object", "additionalProperties": self.values.schema(), **named}

    def build(self, value: Any) -> Any:
        build = self.values.build
        return {key: build(item) for key, item in value.items()}


class Variants(Spec):
    """Exactly one of the variants (a value already built: the shape function chose the variant)."""

    __slots__ = ("variants",)

    def __init__(self, *variants: Spec, doc: str | None = None) -> None:
        super().__init__(doc)
        self.variants = variants

    def body(self) -> dict[str, Any]:
        return {"oneOf": [variant.schema() for variant in self.variants]}


class Ref(Spec):
    """Another schema, or a part of one, by its `$id` (`Ref("log", "#/properties/commits/items")`)."""

    __slots__ = ("name", "part")

    def __init__(self, name: str, part: str = "", *, doc: str | None = None) -> None:
        super().__init__(doc)
        self.name, self.part = name, part

    def body(self) -> dict[str, Any]:
        return {"$ref": f"{URN}{self.name}{self.part}"}


class Shape:
    """The `--json` output of one command (or of one mode of it): apm_git/schemas/<name>.schema.json.

    `variants` are the objects it may be (one for most; `hooks install` prints a claude-code or a
    timer object); each gets `version` as its first field.
    """

    __slots__ = ("description", "name", "title", "variants")

    def __init__(self, name: str, title: str, description: str, *variants: Obj) -> None:
        self.name, self.title, self.description = name, title, description
        self.variants = tuple(Obj({"version": Const(VERSION), **variant.fields}, doc=variant.doc)
                              for variant in variants)

    def schema(self) -> dict[str, Any]:
        head = {"$schema": DIALECT, "$id": URN + self.name, "title": self.title, "description": self.description}
        if len(self.variants) == 1:
            return {**head, **self.variants[0].body()}
        return {**head, "oneOf": [variant.body() for variant in self.variants]}

    def build(self, value: Any, variant: int = 0, **given: Any) -> dict[str, Any]:
        """The output for `value` (the command's result), as variant `variant`, fields in `given` replaced."""
        return self.variants[variant].build(value, given)
