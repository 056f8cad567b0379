"""English words whose forms no suffix rule joins (made/make, felt/feel, met/meet, children/child): the base
form of each, applied before the Snowball stemmer so a question's "make" finds a line's "made".  The common
irregular verbs and plurals of English grammars; nothing here is specific to any memory.  Forms that are
as often another word are left out ("left", "ground", "rose", "lit", "wound", "lay")."""
from __future__ import annotations

_VERBS = """
arise arose arisen|awake awoke awoken|be was were been|bear bore borne|beat beat beaten|become became
begin began begun|bend bent|bet bet|bind bound|bite bit bitten|bleed bled|blow blew blown|break broke broken
breed bred|bring brought|build built|burn burnt|buy bought|catch caught|choose chose chosen|cling clung
come came|cost cost|creep crept|cut cut|deal dealt|dig dug|do did done|draw drew drawn|dream dreamt
drink drank drunk|drive drove driven|eat ate eaten|fall fell fallen|feed fed|feel felt|fight fought|find found
flee fled|fly flew flown|forbid forbade forbidden|forget forgot forgotten|forgive forgave forgiven
freeze froze frozen|get got gotten|give gave given|go went gone|grow grew grown|hang hung
have had has|hear heard|hide hid hidden|hit hit|hold held|hurt hurt|keep kept|kneel knelt|know knew known
lay laid|lead led|lean leant|leap leapt|learn learnt|lend lent|let let
lose lost|make made|mean meant|meet met|mistake mistook mistaken|pay paid|prove proven|put put|quit quit
read read|ride rode ridden|ring rang rung|run ran|say said|see seen saw|seek sought
sell sold|send sent|set set|sew sewn|shake shook shaken|shine shone|shoot shot|show shown|shrink shrank shrunk
shut shut|sing sang sung|sink sank sunk|sit sat|sleep slept|slide slid|speak spoke spoken|speed sped
spend spent|spin spun|split split|spread spread|spring sprang sprung|stand stood|steal stole stolen|stick stuck
sting stung|stink stank stunk|strike struck|strive strove striven|swear swore sworn|sweep swept|swim swam swum
swing swung|take took taken|teach taught|tear tore torn|tell told|think thought|throw threw thrown
understand understood|undertake undertook undertaken|upset upset|wake woke woken|wear wore worn|weave wove woven
weep wept|win won|withdraw withdrew withdrawn|write wrote written|overcome overcame
child children|man men|woman women|foot feet|tooth teeth|mouse mice|goose geese|ox oxen
analysis analyses|crisis crises|criterion criteria|phenomenon phenomena|datum data|index indices
"""

BASE: dict[str, str] = {}
for _group in _VERBS.replace("\n", " ").split("|"):
    _base, *_forms = _group.split()
    for _form in _forms:
        BASE.setdefault(_form, _base)
