"""Generated multi-session dialogs with questions whose evidence is known (benchmarks/recall_dialogs.py).

Each conversation is between two people over about eight months: sessions a few days apart, each a run of
small talk into which facts are planted (one person tells it, the other reacts).  A fact yields a
single-hop question (the fact in other words), a temporal one (when: the evidence says "yesterday", so only
the session's date answers it), and an open-domain one (an inference the fact supports); a person's facts of
one group (hobbies, home, ...) yield a multi-hop question whose evidence is all of them.

Memory is written the way an agent keeps a chat log: one Markdown file per month, one `## Session N — date`
section per session, one line per turn (layout "session"); or one `### ` section per turn under the
session's heading (layout "turn").  The English sessions write dates as "8 May 2023", the Russian ones as
ISO dates.  Stdlib only; the same seed gives the same dialogs.
"""
from __future__ import annotations

import dataclasses
import hashlib
import random
import re
from datetime import date, timedelta
from pathlib import Path

from dialog_kinds import Kind, Language

MONTHS_EN = ("January", "February", "March", "April", "May", "June", "July", "August", "September",
             "October", "November", "December")
MONTHS_RU = ("январь", "февраль", "март", "апрель", "май", "июнь", "июль", "август", "сентябрь", "октябрь",
             "ноябрь", "декабрь")
SESSIONS = 24
FACTS_PER_PERSON = 10
FOLDER = "dialogs"
CATEGORIES = ("single-hop", "multi-hop", "temporal", "open-domain")


@dataclasses.dataclass(frozen=True)
class Person:
    name: str
    forms: dict[str, str]  # the template slots that name or agree with the person


@dataclasses.dataclass(frozen=True)
class Turn:
    session: int  # index into Dialog.sessions
    speaker: str
    text: str


@dataclasses.dataclass(frozen=True)
class Question:
    language: str
    conversation: int
    category: str
    kind: str  # the kind (or "group:NAME") it was made from: the split is by kind
    text: str
    evidence: tuple[int, ...]  # indexes into Dialog.turns

    @property
    def held_out(self) -> bool:
        """Half the kinds are held out: any change is checked on them too, never tuned on them alone."""
        return hashlib.sha256(self.kind.encode()).digest()[0] % 2 == 1


@dataclasses.dataclass
class Dialog:
    language: Language
    number: int
    people: tuple[Person, Person]
    dates: list[date]
    turns: list[Turn]
    questions: list[Question]


def person(spec: str, language: str) -> Person:
    if language != "ru":
        return Person(spec, {"name": spec, "name_gen": spec, "name_dat": spec, "name_acc": spec,
                             "a": "", "sya": "", "la": ""})
    nom, gen, dat, acc, gender = spec.split("|")
    female = gender == "f"
    return Person(nom, {"name": nom, "name_gen": gen, "name_dat": dat, "name_acc": acc,
                        "a": "а" if female else "", "sya": "ась" if female else "ся", "la": "ла" if female else ""})


def fill(template: str, values: dict[str, str]) -> str:
    return re.sub(r"\{(\w+)\}", lambda match: values[match[1]], template)


def generate(language: Language, number: int, seed: int) -> Dialog:
    rng = random.Random(f"{seed}:{language.code}:{number}")
    pair = language.pairs[number % len(language.pairs)]
    people = (person(pair[0], language.code), person(pair[1], language.code))
    start = date(2023, 3, 1) + timedelta(days=rng.randrange(20))
    dates = [start]
    for _ in range(SESSIONS - 1):
        dates.append(dates[-1] + timedelta(days=rng.randrange(3, 12)))
    planted: dict[int, list[tuple[Person, Kind, dict[str, str], bool]]] = {}
    for who in people:
        for kind in rng.sample(language.kinds, FACTS_PER_PERSON):
            values = {slot: rng.choice(options) for slot, options in kind.slots.items()}
            for slot, value in list(values.items()):
                forms = value.split("|")
                values[slot] = forms[0]
                values.update({f"{slot}_{n}": form for n, form in enumerate(forms[1:], start=1)})
            say = rng.choice(kind.say)
            when = rng.choice(language.when)
            values.update(who.forms, when=when, When=when[0].upper() + when[1:])
            planted.setdefault(rng.randrange(SESSIONS), []).append((who, kind, {**values, "say": say},
                                                                    "{when}" in say.lower()))
    dialog = Dialog(language, number, people, dates, [], [])
    facts: list[tuple[Person, Kind, dict[str, str], bool, int]] = []
    for session in range(SESSIONS):
        turns = rng.randrange(10, 18)
        events = planted.get(session, [])
        slots = sorted(rng.sample(range(1, turns - 1), len(events))) if events else []
        speaker = rng.randrange(2)
        for index in range(turns):
            if slots and index == slots[0]:
                slots.pop(0)
                who, kind, values, dated = events.pop(0)
                dialog.turns.append(Turn(session, who.name, fill(values["say"], values)))
                facts.append((who, kind, values, dated, len(dialog.turns) - 1))
                other = people[1] if who is people[0] else people[0]
                dialog.turns.append(Turn(session, other.name, rng.choice(language.reactions)))
                speaker = people.index(who)
                continue
            dialog.turns.append(Turn(session, people[speaker].name, rng.choice(language.filler)))
            speaker = 1 - speaker
    ask(dialog, facts, rng)
    return dialog


def ask(dialog: Dialog, facts: list[tuple[Person, Kind, dict[str, str], bool, int]], rng: random.Random) -> None:
    code, number = dialog.language.code, dialog.number
    for _, kind, values, dated, turn in facts:
        dialog.questions.append(Question(code, number, "single-hop", kind.key, fill(rng.choice(kind.single), values),
                                         (turn,)))
        if kind.temporal and dated:
            dialog.questions.append(Question(code, number, "temporal", kind.key,
                                             fill(rng.choice(kind.temporal), values), (turn,)))
        if kind.open:
            dialog.questions.append(Question(code, number, "open-domain", kind.key,
                                             fill(rng.choice(kind.open), values), (turn,)))
    for who in dialog.people:
        for group, questions in dialog.language.groups.items():
            turns = tuple(turn for owner, kind, _, _, turn in facts if owner is who and kind.group == group)
            if len(turns) >= 2:
                dialog.questions.append(Question(code, number, "multi-hop", f"group:{group}",
                                                 fill(rng.choice(questions), who.forms), turns))


def heading_date(dialog: Dialog, day: date) -> str:
    if dialog.language.code == "en":
        return f"{day.day} {MONTHS_EN[day.month - 1]} {day.year}"
    return day.isoformat()


def write(dialog: Dialog, memory: Path, layout: str) -> dict[int, tuple[str, int]]:
    """The dialog's month files under `memory/dialogs/`; where each turn is (memory-relative path, line)."""
    months: dict[str, list[str]] = {}
    where: dict[int, tuple[str, int]] = {}
    count = 0
    for index, turn in enumerate(dialog.turns):
        day = dialog.dates[turn.session]
        path = f"{FOLDER}/{day:%Y-%m}.md"
        lines = months.get(path)
        if lines is None:
            month = (f"{MONTHS_EN[day.month - 1]} {day.year}" if dialog.language.code == "en"
                     else f"{MONTHS_RU[day.month - 1]} {day.year}")
            lines = months[path] = [f"# {fill(dialog.language.title, {'month': month})}", ""]
        if index == 0 or dialog.turns[index - 1].session != turn.session:
            if lines[-1] != "":
                lines.append("")
            number = str(turn.session + 1)
            heading = fill(dialog.language.session, {"number": number, "date": heading_date(dialog, day)})
            lines += [f"## {heading}", ""]
            count = 0
        count += 1
        if layout == "turn":
            lines += [f"### {turn.speaker}, {count}", ""]
            where[index] = (path, len(lines) + 1)
            lines += [turn.text, ""]
        else:
            where[index] = (path, len(lines) + 1)
            lines.append(f"- {turn.speaker}: {turn.text}")
    (memory / FOLDER).mkdir(parents=True, exist_ok=True)
    for path, lines in months.items():
        (memory / path).write_text("\n".join(lines).rstrip("\n") + "\n", encoding="utf-8")
    return where
