"""The word lists the designed heads read, one data file per language: ``assets/lexicons/<lang>.toml``.

A lexicon holds closed word classes (determiners and pronouns with their agreement, prepositions,
clause starters, relative words, other function words), the verb forms it knows (listed ones plus
each regular verb conjugated by its group's endings) and the endings that guess the rest. What the
entries mean is said in the data files; how the heads use them is said in ``attn_math.heads``.
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

ASSETS = Path(__file__).resolve().parent.parent / "assets"
EXTRA_ASSETS = "ATENCION_ASSETS_EXTRA"  # a folder with more languages: its locales/ and lexicons/, as in ASSETS
DEFAULT_LANGUAGE = "es"  # the course's: what every ``lang`` defaults to (default.toml's lecture.lang too)
NUMBERS = ("singular", "plural")


@dataclass(frozen=True)
class Lexicon:
    """One language's word classes; every word lowercase."""

    lang: str
    agreement: dict  # "gender number" -> (a, b): what a pronoun looks for, what a noun has
    determiners: dict  # word -> (gender, number)
    subject_pronouns: dict  # word -> (gender, number)
    object_pronouns: dict  # word -> (gender, number)
    prepositions: frozenset
    clause_starters: frozenset
    relatives: frozenset
    others: frozenset
    noun_genders: dict  # word -> gender
    feminine_endings: tuple
    masculine_endings: tuple
    plural_endings: tuple
    default_gender: str
    name_gender: str
    verbs: frozenset  # every known verb form
    verb_endings: tuple  # a verb wherever it is (not right after a determiner)
    present_endings: tuple  # a verb only in a subject's context

    def is_closed(self, form: str) -> bool:
        """Whether ``form`` belongs to a listed word class (not a noun or verb to guess)."""
        return any(form in words for words in (self.determiners, self.subject_pronouns, self.object_pronouns,
                                                self.prepositions, self.clause_starters, self.relatives,
                                                self.others))

    def vector(self, gender: str, number: str) -> tuple:
        """The agreement pair of a gender and a number."""
        return self.agreement[f"{gender} {number}"]


def language_files(kind: str) -> dict[str, Path]:
    """Each language's file of ``kind`` ("lexicons" or "locales") by its code, DEFAULT_LANGUAGE first and then
    in alphabetical order: ``assets/<kind>/<code>.toml``, and those of the folder EXTRA_ASSETS names (an
    environment variable), which add languages and never replace ours."""
    extra = os.environ.get(EXTRA_ASSETS)
    found: dict[str, Path] = {}
    for folder in (ASSETS, *([Path(extra)] if extra else [])):
        for path in (folder / kind).glob("*.toml"):
            found.setdefault(path.stem, path)
    return {code: found[code] for code in sorted(found, key=lambda code: (code != DEFAULT_LANGUAGE, code))}


@lru_cache(maxsize=None)
def load_lexicon(lang: str = DEFAULT_LANGUAGE) -> Lexicon:
    """The lexicon of ``lang``, read once per process."""
    path = language_files("lexicons").get(lang)
    if path is None:
        raise ValueError(f"lang: expected one of {', '.join(language_files('lexicons'))}, got {lang!r}")
    with open(path, "rb") as file:
        data = tomllib.load(file)
    words, nouns, verbs = data["words"], data["nouns"], data["verbs"]
    lexicon = Lexicon(
        lang=lang, agreement={key: tuple(map(float, pair)) for key, pair in data["agreement"].items()},
        determiners=_pairs(data["determiners"]), subject_pronouns=_pairs(data["subject_pronouns"]),
        object_pronouns=_pairs(data["object_pronouns"]),
        prepositions=frozenset(words["prepositions"]), clause_starters=frozenset(words["clause_starters"]),
        relatives=frozenset(words["relatives"]), others=frozenset(words["others"]),
        noun_genders=dict(data["noun_genders"]), feminine_endings=tuple(nouns["feminine_endings"]),
        masculine_endings=tuple(nouns["masculine_endings"]), plural_endings=tuple(nouns["plural_endings"]),
        default_gender=nouns["default_gender"], name_gender=nouns["name_gender"],
        verbs=frozenset(verbs["forms"]) | _conjugated(verbs["regular"], data["conjugation"]),
        verb_endings=tuple(data["guesses"]["verb_endings"]), present_endings=tuple(data["guesses"]["present_endings"]))
    _check_agreement(lexicon)
    return lexicon


def _pairs(table: dict) -> dict:
    return {word: tuple(pair) for word, pair in table.items()}


def _conjugated(regular: dict, conjugation: dict) -> frozenset:
    """Every form of every regular verb: its group's ``strip`` ending replaced by each of the group's endings."""
    forms = set()
    for group, infinitives in regular.items():
        strip, endings = conjugation[group]["strip"], conjugation[group]["endings"]
        for infinitive in infinitives:
            assert infinitive.endswith(strip), f"{infinitive} does not end in {strip!r}"
            stem = infinitive[:len(infinitive) - len(strip)]
            forms.update(stem + ending for ending in endings)
    return frozenset(forms)


def _check_agreement(lexicon: Lexicon) -> None:
    """Every gender and number a word or a noun rule can give has its agreement pair."""
    entries = (*lexicon.determiners.values(), *lexicon.subject_pronouns.values(), *lexicon.object_pronouns.values())
    genders = {"feminine", "masculine", "unknown", lexicon.default_gender, lexicon.name_gender,
               *lexicon.noun_genders.values(), *(gender for gender, _ in entries)}
    needed = {f"{gender} {number}" for gender in genders for number in NUMBERS}
    needed |= {f"{gender} {number}" for gender, number in (*lexicon.subject_pronouns.values(),
                                                           *lexicon.object_pronouns.values())}
    missing = sorted(needed - set(lexicon.agreement))
    assert not missing, f"{lexicon.lang} lexicon: no agreement pair for {', '.join(missing)}"
