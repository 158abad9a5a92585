"""The English locale mirrors the Spanish one: the same keys, the same format fields in every string, and
nothing left in Spanish or marked untranslated."""

import copy
import re
import tomllib
from string import Formatter

import pytest

from lesson.locale import LOCALES

# Not text: the English config defaults (lesson/config.py layers them under the user's config).
NOT_TEXT = {"config"}
# Language tags, not words: "en-GB", "eng".
TAGS = {("lecture", "language"), ("lecture", "track_language")}
SPANISH_LETTERS = re.compile(r"[¿¡ñáéíóúü«»]", re.IGNORECASE)
SPANISH_WORDS = {"el", "la", "los", "las", "del", "al", "de", "que", "y", "en", "es", "por", "para", "con",
                 "un", "una", "cada", "pero", "como", "su", "sus", "entre", "desde", "hasta", "paso", "pasos",
                 "cabeza", "cabezas", "fila", "filas", "columna", "columnas", "pesos", "puntaje", "puntajes",
                 "clave", "claves", "valores", "consulta", "consultas", "salida", "frase", "palabra", "palabras",
                 "escala", "dimensión", "posición", "desviación", "matriz", "pregunta", "narración", "país"}
UNTRANSLATED = re.compile(r"TODO|FIXME|XXX|TBD|untranslated|translate me|\[es\]", re.IGNORECASE)
# Words that are the same in both languages: a string equal to its Spanish one may only hold these
# (besides symbols, fields, LaTeX and words of up to three letters).
SHARED_WORDS = {"bits", "vector", "embeddings", "logits", "attention", "softmax", "concat", "multihead", "head",
                "text", "textstyle", "tfrac", "ldots", "sum", "capital", "visible",
                "sigma", "omega", "delta"}
WORD = re.compile(r"[^\W\d_]+")


def read(language: str) -> dict:
    return tomllib.loads((LOCALES / f"{language}.toml").read_text(encoding="utf-8"))


def leaves(table, path=()) -> dict[tuple, object]:
    """Every string (and list item) of a locale by its path: ("matrix", "steps", "inputs", "caption")."""
    if isinstance(table, dict):
        return {leaf: value for key, child in table.items() if (path or key not in NOT_TEXT)
                for leaf, value in leaves(child, (*path, key)).items()}
    if isinstance(table, list):
        return {leaf: value for index, item in enumerate(table) for leaf, value in leaves(item, (*path, index)).items()}
    return {path: table}


def format_fields(text: str) -> set[tuple[str, str, str | None]]:
    """The ``{name:spec!conversion}`` fields of a string: what a scene fills in. LaTeX that a scene formats escapes
    its own braces (``A_{{{number}}}``); LaTeX without ``{{`` is typeset as it is (``\\text{output}``): no fields."""
    if "\\" in text and "{{" not in text:
        return set()
    return {(name, spec, conversion) for _, name, spec, conversion in Formatter().parse(text) if name is not None}


def literal(text: str) -> str:
    """The words a string types itself, fields left out."""
    return "".join(part for part, _, _, _ in Formatter().parse(text))


def differences(reference: dict, translation: dict) -> list[str]:
    """What keeps ``translation`` from standing in for ``reference``: missing or extra keys, other value types,
    other format fields."""
    expected, found = leaves(reference), leaves(translation)
    problems = [f"missing {'.'.join(map(str, path))}" for path in expected.keys() - found.keys()]
    problems += [f"extra {'.'.join(map(str, path))}" for path in found.keys() - expected.keys()]
    for path in expected.keys() & found.keys():
        name = ".".join(map(str, path))
        if type(expected[path]) is not type(found[path]):
            problems.append(f"{name}: {type(found[path]).__name__}, expected {type(expected[path]).__name__}")
        elif isinstance(expected[path], str) and format_fields(expected[path]) != format_fields(found[path]):
            problems.append(f"{name}: fields {sorted(format_fields(found[path]))}, "
                            f"expected {sorted(format_fields(expected[path]))}")
    return sorted(problems)


def spanish_left(translation: dict, reference: dict) -> list[str]:
    """English strings that still hold Spanish letters or words, an untranslated marker, or Spanish typed over."""
    problems = []
    originals = leaves(reference)
    for path, text in leaves(translation).items():
        if not isinstance(text, str) or path in TAGS:
            continue
        name, words = ".".join(map(str, path)), WORD.findall(literal(text))
        if SPANISH_LETTERS.search(text):
            problems.append(f"{name}: Spanish letters in {text!r}")
        if spanish := sorted({word for word in words if word.lower() in SPANISH_WORDS}):
            problems.append(f"{name}: Spanish words {spanish}")
        if UNTRANSLATED.search(text):
            problems.append(f"{name}: marked untranslated")
        if text == originals.get(path) and {word.lower() for word in words if len(word) > 3} - SHARED_WORDS:
            problems.append(f"{name}: the Spanish text, not translated")
    return problems


SPANISH, ENGLISH = read("es"), read("en")


def test_english_has_every_spanish_key_and_the_same_format_fields():
    assert differences(SPANISH, ENGLISH) == []


def test_nothing_spanish_is_left_in_the_english_locale():
    assert spanish_left(ENGLISH, SPANISH) == []


def test_english_says_its_language_and_has_its_config_defaults():
    assert (ENGLISH["lecture"]["language"], ENGLISH["lecture"]["track_language"]) == ("en-GB", "eng")
    assert ENGLISH["config"] == {"heads": {"sentence": "the dog near Mary barked and she calmed it"},
                                 "narration": {"voice": "af_heart", "dialect": "en-us"}}


def test_the_config_defaults_are_keys_of_the_default_config_with_values_of_its_types():
    """``[config]`` is a partial config: every key is one of assets/default.toml's, its value of the same type."""
    defaults = leaves(tomllib.loads((LOCALES.parent / "default.toml").read_text(encoding="utf-8")))
    for path, value in leaves(ENGLISH["config"], ("config",)).items():
        assert type(defaults[path[1:]]) is type(value), path


def deleted(locale: dict, path: tuple) -> dict:
    changed = copy.deepcopy(locale)
    table = changed
    for key in path[:-1]:
        table = table[key]
    del table[path[-1]]
    return changed


@pytest.mark.parametrize("path", [("matrix", "steps", "scaled", "caption_causal"), ("heads", "labels"),
                                  ("site", "footer")])
def test_a_missing_key_is_found(path):
    assert any(problem.startswith(f"missing {'.'.join(path)}") for problem in differences(SPANISH, deleted(ENGLISH, path)))


def test_a_missing_list_item_and_an_extra_key_are_found():
    changed = copy.deepcopy(ENGLISH)
    changed["heads"]["labels"]["head_names"].pop()
    changed["matrix"]["labels"]["extra"] = "x"
    assert differences(SPANISH, changed) == ["extra matrix.labels.extra", "missing heads.labels.head_names.2"]


@pytest.mark.parametrize(("text", "field"), [("{n} tokens, dimension {dim}", "d"),  # renamed field
                                             ("tokens of dimension {d}", "n"),  # dropped field
                                             ("{n:.2f} tokens of dimension {d}", "n")])  # other format spec
def test_other_format_fields_are_found(text, field):
    changed = copy.deepcopy(ENGLISH)
    changed["matrix"]["steps"]["inputs"]["caption"] = text
    assert [problem.split(":")[0] for problem in differences(SPANISH, changed)] == ["matrix.steps.inputs.caption"]
    assert field in differences(SPANISH, changed)[0]


@pytest.mark.parametrize("text", ["Las claves: what each token offers.", "¿What does each token offer?",
                                  "What each token offers as a label (TODO)",
                                  "Las claves: lo que cada token ofrece como etiqueta."])
def test_spanish_left_in_a_string_is_found(text):
    changed = copy.deepcopy(ENGLISH)
    changed["matrix"]["steps"]["keys"]["caption"] = text
    assert [problem.split(":")[0] for problem in spanish_left(changed, SPANISH)][:1] == ["matrix.steps.keys.caption"]


def test_the_spanish_text_copied_over_is_found_but_formulas_may_stay():
    changed = copy.deepcopy(ENGLISH)
    changed["scaling"]["labels"]["bits"] = "bits"
    changed["site"]["video_file"] = SPANISH["site"]["video_file"]  # "Vídeo": accent and copy
    changed["script"]["file"] = SPANISH["script"]["file"]  # "Archivo": no Spanish letter, but the same text
    assert spanish_left(changed, SPANISH) == ["script.file: the Spanish text, not translated",
                                              "site.video_file: Spanish letters in 'Vídeo'",
                                              "site.video_file: the Spanish text, not translated"]
