"""Which token is a pitch: every section's sentence has a rung per token (issue 44, the sound review).

The token ladder had five rungs, so token 1 and token 6 shared a pitch: scaling's k1 and k6 fused into one voice
when both weighed, the pipeline's «el»/«la» and «gato»/«mesa» (a vertical list, no pan to tell them apart) sounded
alike, and the learned section's period-10 task was heard with period 5. Here each key of each token cue a section
plays is sounded alone through the product's mapping, at the section's sentence length, and its pitch measured
on the samples: two different tokens are at least a whole tone apart (the same token, as the learned task's second
period, may share its pitch)."""

from __future__ import annotations

import pytest

from lesson.sections import SECTION_IDS
from scene_checks import shared_scene
from sonify.mappings import MAPPINGS
from sonify.synth import SAMPLE_RATE
from test_sound_scales import WHOLE_TONE_CENTS, cents, pitch


def one_hot(j: int, count: int) -> list[float]:
    return [1.0 if k == j else 0.0 for k in range(count)]


KEY_ALONE = {  # kind: (the sentence length a cue shows, the sound of key j alone among ``count``)
    "row": (lambda values: len(values["weights"]),
            lambda j, count, values: MAPPINGS["row"](weights=one_hot(j, count), version=values.get("version"))),
    "masked": (lambda values: len(values["before"]),
               lambda j, count, values: MAPPINGS["masked"](before=one_hot(j, count), after=one_hot(j, count))),
    "connection": (lambda values: values["key"] + 1,
                   lambda j, count, values: MAPPINGS["connection"](weight=1.0, peak=1.0, key=j, temperature=1.0)),
    "outputs_compared": (lambda values: values.get("row", 0) + 1,
                         lambda j, count, values: MAPPINGS["outputs_compared"](max_difference=0.0, row=j)[:, 0]),
    "tokens": (lambda values: values["count"],
               lambda j, count, values: MAPPINGS["tokens"](count=count)[
                   int((0.08 * j + 0.01) * SAMPLE_RATE):][:int(0.07 * SAMPLE_RATE)]),
}


def sentence(scene) -> list:
    """The section's tokens as its cues name them (positions when no cue names them), as long as its longest
    token cue."""
    count = max(KEY_ALONE[cue.kind][0](cue.values) for cue in scene.cues if cue.kind in KEY_ALONE)
    named = [cue.values["tokens"] for cue in scene.cues if cue.kind == "tokens" and "tokens" in cue.values]
    return list(named[0]) if named and len(named[0]) == count else list(range(count))


OCTAVE_CENTS = 1200
FUSED_CENTS = 50  # two tones within this of a unison or of octaves apart fuse: the lower one names the pitch heard


def heard_pairs(section: str) -> list[tuple]:
    """(kind, token i, token j, pitch i, pitch j) of every two different tokens of the section's sentence, each key
    sounded alone through each kind that names a token."""
    scene = shared_scene(section)
    tokens = sentence(scene)
    kinds = {cue.kind: cue.values for cue in scene.cues if cue.kind in KEY_ALONE}
    assert kinds
    pairs = []
    for kind, values in kinds.items():
        heard = [pitch(KEY_ALONE[kind][1](j, len(tokens), values)) for j in range(len(tokens))]
        pairs += [(kind, tokens[i], tokens[j], heard[i], heard[j]) for i in range(len(tokens))
                  for j in range(i + 1, len(tokens)) if tokens[i] != tokens[j]]
    return pairs


@pytest.mark.parametrize("section", SECTION_IDS)
def test_no_two_different_tokens_of_a_sections_sentence_share_a_pitch(section):
    shared = [(kind, a, b, round(f), round(g)) for kind, a, b, f, g in heard_pairs(section)
              if abs(cents(f, g)) < WHOLE_TONE_CENTS - 2]
    assert shared == [], shared


@pytest.mark.parametrize("section", SECTION_IDS)
def test_no_two_different_tokens_of_a_sections_sentence_are_octaves_apart(section):
    """Issue 44's second sound review: the two-octave ladder put k6 on 2 x k1 (scaling's scaled rows, the pipeline's
    el 330 / la 659 Hz): in a chord an octave pair fuses and is heard as one brighter token."""
    fused = [(kind, a, b, round(f), round(g)) for kind, a, b, f, g in heard_pairs(section)
             if min(abs(cents(f, g)) % OCTAVE_CENTS, -abs(cents(f, g)) % OCTAVE_CENTS) < FUSED_CENTS]
    assert fused == [], fused
