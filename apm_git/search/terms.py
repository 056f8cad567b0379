"""Words as the index and the query see them, and a query turned into an FTS5 expression.

Text is analysed in Python, the same way for the index and the query, and the index stores the result
(tokens separated by spaces; SQLite's `unicode61` tokenizer only splits them again):

- Words are runs of letters and digits (`decision_value` is "decision value"), folded: lowercase, accents
  removed (`Prüfung` = `prufung`), `ё` read as `е` (`развёртывания` = `развертывания`), `й` kept.
- CJK and Hangul have no spaces: each run becomes its overlapping bigrams (`运维与排障` → `运维 维与 与排
  排障`), so a word inside a run is found; a one- or two-character run stays whole.
- Each word is stemmed by the Snowball stemmer of its script (PyStemmer): English for Latin letters, after
  the irregular forms (made → make, felt → feel, apm_git/search/irregular.py), Russian for Cyrillic, Greek,
  Arabic; other scripts stay as written.
- A query word of three or more letters also matches as the prefix of its light stem (a short suffix list
  for English, German, Romance languages and Russian): `sess` finds "session", `Datenbanken` finds
  "Datenbank".  A shorter word matches whole words only: "CI" never matches inside "decision".
"""
from __future__ import annotations

import dataclasses
import re
import unicodedata
from collections.abc import Callable, Iterable

from apm_git.search.irregular import BASE

TOKENIZER = "unicode61 remove_diacritics 0"  # splits the analysed text at its spaces, nothing more
_CJK_CLASS = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff"
_CJK_RUN = re.compile(f"[{_CJK_CLASS}]+")
WORD = re.compile(r"[^\W_]+")
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
would could should can been being any some there their they them he she her his him hers about into
whom whose than then so if but not no yes just also very
der die das den dem des ein eine einen einem und oder ist sind war wie was wer wo warum wann mit
für von zu im in am auf aus bei nach über unter ich wir uns haben hat hatten sich nicht auch es
и в во на с со по к о об от до для из за как что кто где когда почему это мы я не ли же бы у
какой какая какое какие какую каким каких какого каком какому какими чем чему кого кому чей чья чьё чьи чьей
чьих куда откуда зачем сколько много
ещё уже она он они оно её его их ему ей им был была было были есть
"""
_MEMO_LIMIT = 200_000  # distinct words kept stemmed in one process


def fold(text: str) -> str:
    """Lowercase without accents (as unicodedata decomposes them), `ё` as `е`, `й` kept."""
    lower = text.lower()
    if lower.isascii():
        return lower
    decomposed = unicodedata.normalize("NFKD", lower.replace("ё", "е")).replace("и\u0306", "й")
    return "".join(char for char in decomposed if not unicodedata.combining(char))


def _stemmers() -> dict[str, Callable[[str], str]]:
    import Stemmer

    english, russian = Stemmer.Stemmer("english"), Stemmer.Stemmer("russian")
    greek, arabic = Stemmer.Stemmer("greek"), Stemmer.Stemmer("arabic")
    return {"latin": lambda word: english.stemWord(BASE.get(word, word)), "cyrillic": russian.stemWord,
            "greek": greek.stemWord, "arabic": arabic.stemWord}


_STEMMERS: dict[str, Callable[[str], str]] = {}
_MEMO: dict[str, str] = {}


def _script(word: str) -> str | None:
    first = word[0]
    if first.isascii():
        return None if word.isdigit() else "latin"
    point = ord(first)
    if 0x0400 <= point <= 0x04FF:
        return "cyrillic"
    if 0x0370 <= point <= 0x03FF:
        return "greek"
    if 0x0600 <= point <= 0x06FF:
        return "arabic"
    return None


def stem(word: str) -> str:
    """A folded word's stem (the word itself for digits and scripts without a stemmer)."""
    known = _MEMO.get(word)
    if known is not None:
        return known
    script = _script(word)
    if script is None:
        result = word
    else:
        if not _STEMMERS:
            _STEMMERS.update(_stemmers())
        result = _STEMMERS[script](word) or word
    if len(_MEMO) < _MEMO_LIMIT:
        _MEMO[word] = result
    return result


def _bigrams(run: str) -> list[str]:
    if len(run) < 3:
        return [run]
    return [run[index:index + 2] for index in range(len(run) - 1)]


def _words(folded: str) -> Iterable[str]:
    """The words of folded text, CJK runs split off (`redis缓存` is two words)."""
    for word in WORD.findall(folded):
        if word.isascii() or not _CJK_RUN.search(word):
            yield word
        else:
            yield from _CJK_RUN.sub(lambda match: f" {match[0]} ", word).split()


def tokens(text: str) -> list[str]:
    """The index tokens of `text`, in order."""
    folded = fold(text)
    words = WORD.findall(folded)
    if not folded.isascii() and _CJK_RUN.search(folded):
        found: list[str] = []
        for word in _words(folded):
            found += _bigrams(word) if _CJK_RUN.fullmatch(word) else [stem(word)]
        return found
    memo = _MEMO
    return [memo[word] if word in memo else stem(word) for word in words]


def fts_text(text: str) -> str:
    """`text` as the index stores it: its tokens, separated by spaces."""
    return " ".join(tokens(text))


def light_stem(word: str) -> str:
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            return word[: -len(suffix)]
    return word


STOPWORDS = frozenset(fold(word) for word in _STOP_TEXT.split())


@dataclasses.dataclass(frozen=True)
class Term:
    """One word of the query: the text the user gave and the index tokens that match it."""

    word: str
    exact: tuple[str, ...]  # tokens matched whole
    prefixes: tuple[str, ...]  # tokens matched as prefixes

    def expression(self) -> str:
        parts = [_quote(token) for token in self.exact] + [_quote(token) + "*" for token in self.prefixes]
        return parts[0] if len(parts) == 1 else "(" + " OR ".join(parts) + ")"

    def holds(self, found: set[str]) -> bool:
        """Whether a text with these tokens holds the word."""
        return any(token in found for token in self.exact) or any(
            token.startswith(prefix) for prefix in self.prefixes for token in found)


def _quote(token: str) -> str:
    return '"' + token.replace('"', '""') + '"'


def _term(word: str) -> Term:
    exact = stem(word)
    if len(word) < 3 or word.isdigit():
        return Term(word, (exact,), ())
    prefix = light_stem(word)
    if exact.startswith(prefix):  # the prefix finds the stem too
        return Term(word, (), (prefix,))
    return Term(word, (exact,), (prefix,))


def query_terms(query: str) -> list[Term]:
    """The query's words, stop words dropped when anything else is left; CJK runs as bigrams."""
    terms: list[Term] = []
    for word in _words(fold(query)):
        if not word.isascii() and _CJK_RUN.fullmatch(word):
            terms += [Term(gram, (gram,), ()) for gram in _bigrams(word)]
        elif len(word) >= 2 or word.isdigit():
            terms.append(_term(word))
    unique = list({term.word: term for term in terms}.values())
    meaningful = [term for term in unique if term.word not in STOPWORDS]
    return meaningful or unique


def match_expression(terms: list[Term]) -> str:
    """Any of the words (BM25 ranks passages that hold more of them, and rarer ones, higher)."""
    return " OR ".join(term.expression() for term in terms)
