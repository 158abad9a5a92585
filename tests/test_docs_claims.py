"""The numbers the docs state about the product are the code's: each claim below is found in its document by a
pattern and its number compared with the constant that makes it true, so a change to either shows here."""

import re
import tomllib

import pytest

from lecture.render.captions import LINE_LENGTH
from lesson.config import DEFAULT_CONFIG
from media_checks import ROOT
from scenes.lesson_scene import (FINISHED_HOLD, LONGEST_FREEZE, NUMBERS_READING_MOST, PHRASE_GAP, SECONDS_PER_NEW_NUMBER,
                                 SHORTEST_STEP, WORDS_PER_SECOND)
from sonify.mix import CUES_UNDER_SPEECH, DUCK_DB
from sonify.replay import REPLAY_GAP

LOUDNESS = tomllib.loads(DEFAULT_CONFIG.read_text(encoding="utf-8"))["audio"]["loudness"]
NUMBER = r"([−-]?\d+(?:\.\d+)?)"

# (document, the claim with its numbers as groups, the values they must be)
CLAIMS = [
    ("docs/config.md", rf"at least its reading time, max\({NUMBER} s, words / {NUMBER} \+ {NUMBER} s per new number, "
                       rf"at most {NUMBER} s\s+for the numbers", (SHORTEST_STEP, WORDS_PER_SECOND, SECONDS_PER_NEW_NUMBER,
                                                              NUMBERS_READING_MOST)),
    ("docs/config.md", rf"finished picture at least {NUMBER} s; no screen stands still for more than {NUMBER} s",
     (FINISHED_HOLD, LONGEST_FREEZE)),
    ("docs/narration.md", rf"each next\s+one follows the one before \({NUMBER} s apart\)", (PHRASE_GAP,)),
    ("docs/narration.md", rf"`audio.loudness` \({NUMBER} LUFS", (LOUDNESS,)),
    ("docs/narration.md", rf"data cues {NUMBER} LU under it\), duck {NUMBER} dB", (CUES_UNDER_SPEECH, -DUCK_DB)),
    ("docs/narration.md", rf"too long for two lines of {NUMBER} characters", (LINE_LENGTH,)),
    ("docs/sound.md", rf"tones duck {NUMBER} dB .{{0,200}}plays again {NUMBER} s after the voice", (-DUCK_DB, REPLAY_GAP)),
    ("README.md", rf"the voice at {NUMBER} LUFS, the data sounds {NUMBER} LU under it", (LOUDNESS, CUES_UNDER_SPEECH)),
]
def as_number(text: str) -> float:
    return float(text.replace("−", "-"))


@pytest.mark.parametrize("document, claim, values", CLAIMS, ids=[f"{doc}:{claim[:30]}" for doc, claim, _ in CLAIMS])
def test_the_docs_state_the_codes_numbers(document, claim, values):
    text = " ".join((ROOT / document).read_text(encoding="utf-8").split())
    found = re.search(claim.replace(r"\s+", " "), text, re.DOTALL)
    assert found, f"{document} no longer states: {claim}"
    assert [as_number(number) for number in found.groups()] == pytest.approx(list(values))
