"""The Spanish locale speaks to the student in one register, tú (as its captions and seeds do): no vosotros
verb forms or pronouns in any string it shows, says or prints (questions, answers, narration, the site's
pages)."""

import re

from lesson.locale import load_locale
from lesson.narration_phrases import plain

# Vosotros forms, spotted by their endings. Imperatives end in -ad/-ed/-id, also with a pronoun after them
# (pensad, describid, probadlo); reflexive ones in -aos (fijaos); present, future, subjunctive and
# conditional in -áis/-éis/-íais (esperáis, creéis, podáis, miraríais); -ir presents in -ís (describís);
# preterites in -steis (pensasteis). Then the pronouns and possessives themselves.
VOSOTROS = re.compile(r"\b(?:\w+[aei]d(?:l[aeo]s?|nos|me)?|\w+aos|\w+(?:áis|éis|íais|ís|steis)"
                      r"|dais|veis|sois|vais|vosotr[oa]s|vuestr[oa]s?|os)\b", re.IGNORECASE)
# Words with those endings that are not vosotros verbs: nouns in -idad/-edad and a few others.
NOT_VERBS = re.compile(r"\w*(?:idad|edad)|verdad|ciudad|mitad|libertad|dificultad|usted|red|pared|sed|caos"
                       r"|país|parís|anís|madrid|david", re.IGNORECASE)
FIELD = re.compile(r"\{[^{}]*\}")  # a format field or a LaTeX group: names, not words the student reads


def strings(table, path=()):
    """Every string of a locale table (list items too) by its dotted path."""
    if isinstance(table, dict):
        for key, child in table.items():
            yield from strings(child, (*path, key))
    elif isinstance(table, list):
        for index, item in enumerate(table):
            yield from strings(item, (*path, str(index)))
    elif isinstance(table, str):
        yield ".".join(path), table


def vosotros_forms(text: str) -> list[str]:
    """The words of ``text`` (fields left out) that address the reader as vosotros."""
    words = (match.group(0) for match in VOSOTROS.finditer(FIELD.sub(" ", plain(text))))  # no [[marker]]
    return [word for word in words if not NOT_VERBS.fullmatch(word)]


def test_the_pattern_tells_vosotros_from_tu():
    """What the locale used to say, against what it says now (and the nouns that share the endings)."""
    vosotros = ("Pensad en la concordancia.", "¿Qué creéis?", "Calculad a mano x + PE.", "Fijaos en la fila.",
                "¿Qué columnas miraríais?", "Probadlo con otra frase.", "para que podáis comprobarlo",
                "Vuestro navegador", "os lo enseña")
    tu = ("Piensa en la concordancia.", "¿Qué crees?", "Calcula a mano x + PE.", "Fíjate en la fila.",
          "¿Qué columnas mirarías?", "Pruébalo con otra frase.", "para que puedas comprobarlo",
          "Tu navegador", "la identidad, la probabilidad y la ciudad de París: la verdad de la red", "{attended}")
    assert [text for text in vosotros if not vosotros_forms(text)] == []
    assert [(text, vosotros_forms(text)) for text in tu if vosotros_forms(text)] == []


def test_spanish_addresses_the_student_as_tu():
    found = [(path, vosotros_forms(text)) for path, text in strings(load_locale("es")) if vosotros_forms(text)]
    assert found == []
