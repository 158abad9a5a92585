"""Numbers spoken as a teacher says them (issue 30): "8.00" is "ocho", not "ocho coma cero cero"; a decimal keeps
only the digits that count. Checked twice: the text the draft voice is given, and what espeak-ng makes of it,
compared phoneme for phoneme with the words a teacher would say, written out here."""

import re
import shutil
import subprocess

import pytest

from lesson.locale import load_locale
from lesson.narration_text import voice_text

# (language, as the narration writes it, as the voice is given it, as a teacher says it)
SPOKEN = [
    ("es", "8.00", "8", "ocho"),
    ("es", "8,00", "8", "ocho"),  # a locale that writes a decimal comma
    ("es", "2.33 bits", "2,33 bits", "dos coma treinta y tres bits"),
    ("es", "0.50", "0,5", "cero coma cinco"),
    ("es", "0.05", "0,05", "cero coma cero cinco"),
    ("es", "1.20 y 3.0", "1,2 y 3", "uno coma dos y tres"),
    ("es", "\u22120.90", "menos 0,9", "menos cero coma nueve"),
    ("es", "\u2212∞", "menos infinito", "menos infinito"),
    ("es", "0.38, 0.34 y 0.10", "0,38, 0,34 y 0,1", "cero coma treinta y ocho, cero coma treinta y cuatro y cero coma uno"),
    ("es", "2.0·10⁴", "2 por diez a la 4", "dos por diez a la cuatro"),
    ("es", "512", "512", "quinientos doce"),
    ("en", "8.00", "8", "eight"),
    ("en", "2.33 bits", "2.33 bits", "two point three three bits"),
    ("en", "0.50", "0.5", "zero point five"),
    ("en", "\u22121.50", "minus 1.5", "minus one point five"),
    ("en", "\u2212∞", "minus infinity", "minus infinity"),
    ("en", "10.0", "10", "ten"),
]
VOICES = {"es": "es", "en": "en"}


@pytest.mark.parametrize("language, written, given, _", SPOKEN)
def test_the_voice_is_given_numbers_without_trailing_zeros(language, written, given, _):
    assert voice_text(written, load_locale(language)["spoken"]) == given


def phonemes(text: str, language: str) -> str:
    """espeak-ng's phonemes for ``text``, without stress marks and spaces (they differ between "8" and "ocho")."""
    result = subprocess.run(["espeak-ng", "-v", VOICES[language], "-q", "-x"], input=text.encode(),
                            capture_output=True, check=True)
    return re.sub(r"[\s',_]", "", result.stdout.decode())


@pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="espeak-ng is not installed")
@pytest.mark.parametrize("language, written, _, said", SPOKEN)
def test_the_draft_voice_says_numbers_as_a_teacher_does(language, written, _, said):
    assert phonemes(voice_text(written, load_locale(language)["spoken"]), language) == phonemes(said, language)
