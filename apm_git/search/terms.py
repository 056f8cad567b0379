"""Words for the full-text index, and a query turned into an FTS5 expression.

SQLite's `porter unicode61 remove_diacritics 2` tokenizer does most of the work in C: it splits
at anything but letters and digits, folds case and accents (`Prüfung` = `prufung`) and stems
English (`deploying` = `deploy`).  Two things it cannot do are done here, in Python, on both
the indexed text and the query:

- CJK and Hangul have no spaces: a run of such characters is one token to unicode61, so
  `排障` would never match inside `运维与排障`.  Each run is rewritten as its overlapping
  bigrams (`运维 维与 与排 排障`); a one-character run stays as it is.
- Word starts and other languages' endings (German, Russian, Romance): a query word of three
  or more letters also matches as a prefix of its light stem (`sess` finds "session",
  `Datenbanken` → `datenbank*`, `серверами` → `сервер*`).
"""
from __future__ import annotations

import dataclasses
import re
import unicodedata

TOKENIZER = "porter unicode61 remove_diacritics 2"
_CJK_CLASS = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff"
_CJK_RUN = re.compile(f"[{_CJK_CLASS}]+")
_WORD = re.compile(r"[^\W_]+")
_SUFFIXES = tuple(sorted({
    # English
    "ations", "ation", "ments", "ment", "ings", "ing", "ness", "ers", "er", "ies", "es", "ed", "ly", "s",
    # German
    "ungen", "ung", "heiten", "heit", "keiten", "keit", "ern", "en", "em", "e", "n",
    # Romance
    "ções", "ção", "ciones", "ción", "mente", "os", "as", "a", "o",
    # Russian
    "ами", "ями", "ого", "его", "ому", "ему", "ыми", "ими", "ов", "ев", "ей", "ой", "ый", "ий", "ая", "яя",
    "ое", "ее", "ые", "ие", "ых", "их", "ом", "ем", "ам", "ям", "ах", "ях", "ую", "юю", "у", "ю", "а", "я",
    "о", "е", "ы", "и", "ь",
}, key=len, reverse=True))
_STOP_TEXT = """
a an and are as at be by did do does for from had has have how i in is it its me my of on or our
that the this to was we were what when where which who why will with you your
der die das den dem des ein eine einen einem und oder ist sind war wie was wer wo warum wann mit
für von zu im in am auf aus bei nach über unter ich wir uns haben hat hatten sich nicht auch es
и в во на с со по к о об от до для из за как что кто где когда почему это мы я не ли же бы у
"""


def fts_text(text: str) -> str:
    """`text` as the index stores it: CJK runs spelled out as bigrams."""
    if text.isascii():
        return text
    return _CJK_RUN.sub(_bigrams, text)


def _bigrams(match: re.Match[str]) -> str:
    run = match[0]
    if len(run) < 3:
        return f" {run} "
    return " " + " ".join(run[index:index + 2] for index in range(len(run) - 1)) + " "


def fold(text: str) -> str:
    """Lowercase without accents, as unicodedata decomposes them."""
    lower = text.lower()
    if lower.isascii():
        return lower
    return "".join(char for char in unicodedata.normalize("NFKD", lower) if not unicodedata.combining(char))


STOPWORDS = frozenset(fold(word) for word in _STOP_TEXT.split())


def light_stem(word: str) -> str:
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            return word[: -len(suffix)]
    return word


@dataclasses.dataclass(frozen=True)
class Term:
    """One word of the query: the text the user gave and the index tokens that match it."""

    word: str
    exact: tuple[str, ...]  # tokens matched whole (the tokenizer stems them as it stems the index)
    prefixes: tuple[str, ...]  # tokens matched as prefixes

    def expression(self) -> str:
        parts = [_quote(token) for token in self.exact] + [_quote(token) + "*" for token in self.prefixes]
        return parts[0] if len(parts) == 1 else "(" + " OR ".join(parts) + ")"

    def needles(self) -> tuple[str, ...]:
        """Substrings of folded text that show the word is there (for snippets and the plain scan)."""
        return self.prefixes or tuple(_en_stem(token) for token in self.exact)


def _en_stem(word: str) -> str:
    for suffix in ("ing", "ed", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word


def _quote(token: str) -> str:
    return '"' + token.replace('"', '""') + '"'


def query_terms(query: str) -> list[Term]:
    """The query's words, stop words dropped when anything else is left; CJK runs as bigrams."""
    terms: list[Term] = []
    for word in _WORD.findall(fold(query)):
        if _CJK_RUN.fullmatch(word):
            grams = fts_text(word).split()
            terms += [Term(gram, (gram,), ()) for gram in grams]
            continue
        for part in _CJK_RUN.sub(lambda m: f" {m[0]} ", word).split():  # "redis缓存" is two words
            if _CJK_RUN.fullmatch(part):
                terms += [Term(gram, (gram,), ()) for gram in fts_text(part).split()]
            elif len(part) >= 2 or part.isdigit():
                stem = light_stem(part)
                terms.append(Term(part, (part,), (stem,) if len(part) >= 3 else ()))
    unique = list({term.word: term for term in terms}.values())
    meaningful = [term for term in unique if term.word not in STOPWORDS]
    return meaningful or unique


def match_expression(terms: list[Term]) -> str:
    """Any of the words (BM25 ranks sections that hold more of them, and rarer ones, higher)."""
    return " OR ".join(term.expression() for term in terms)
