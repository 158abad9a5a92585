"""A head says which token by the token's own pitch (issue 44's last listening review).

Each head had its own four-rung ladder in a band of its own (head 1 from 600 Hz, head 2 from 950, head 3 from 1510),
so that nine tokens made two or three share a pitch within one head (head 3: «María» = «lo»), and a token sounded
at three different pitches in three heads. The lecture's rule is "which token = which pitch": every head plays a
token on its rung of the one token ladder (docs/sound.md: 330 Hz x 2^(rung / 12), rungs 0 2 4 7 9 11 13 15 17 20),
the heads told apart by timbre (a sine, a triangle, an organ) and by turn, never by pitch. The heads' three chords
(the average step's overlay, the choice's rows for «ella») are heard one by one: between two of them the sound
falls 30 dB under the cue's peak for 0.3 s or more (they ran back to back). Pitches and silences are measured on
the synthesized samples (the room's tail included)."""

from __future__ import annotations

import numpy as np
import pytest

from scene_checks import shared_scene
from scenes.lesson_scene import Cue
from sonify.mappings import MAPPINGS, write_soundtrack
from sonify.mix import read_wav
from sonify.synth import SAMPLE_RATE
from test_sound_ladder import FUSED_CENTS, OCTAVE_CENTS
from test_sound_scales import WHOLE_TONE_CENTS, cents, pitch

TOKEN_RUNGS = [0, 2, 4, 7, 9, 11, 13, 15, 17, 20]  # docs/sound.md, the token ladder


def rung(j: int) -> float:
    return 330.0 * 2 ** (TOKEN_RUNGS[j % 10] / 12)


def one_hot(j: int, count: int) -> list[float]:
    return [1.0 if k == j else 0.0 for k in range(count)]


def heard(head: int, j: int, count: int) -> float:
    """Key ``j`` of ``count`` alone in head ``head``'s row (the chord, without the query's own note)."""
    return pitch(MAPPINGS["head_row"](head=head, weights=one_hot(j, count)))


def heads_sentence() -> list[str]:
    [tokens] = [cue.values["tokens"] for cue in shared_scene("heads").cues if cue.kind == "tokens"]
    return list(tokens)


@pytest.mark.parametrize("count", [0, 5, 7, 10])  # 0: the heads section's own sentence (nine words)
@pytest.mark.parametrize("head", [0, 1, 2])
def test_no_two_tokens_of_one_head_share_a_pitch_or_an_octave(head, count):
    tokens = heads_sentence() if count == 0 else [f"t{j}" for j in range(count)]
    pitches = [heard(head, j, len(tokens)) for j in range(len(tokens))]
    close = [(tokens[i], tokens[j], round(pitches[i]), round(pitches[j]))
             for i in range(len(tokens)) for j in range(i + 1, len(tokens)) if tokens[i] != tokens[j]
             and (abs(cents(pitches[i], pitches[j])) < WHOLE_TONE_CENTS - 2
                  or min(abs(cents(pitches[i], pitches[j])) % OCTAVE_CENTS,
                         -abs(cents(pitches[i], pitches[j])) % OCTAVE_CENTS) < FUSED_CENTS)]
    assert close == [], close


@pytest.mark.parametrize("head", [0, 1, 2])
def test_a_token_sounds_on_its_rung_of_the_one_ladder_in_every_head(head):
    """«María» is one pitch whether head 1, head 2, head 3 or the heads' mean looks at it."""
    count = len(heads_sentence())
    for j in range(count):
        assert abs(cents(heard(head, j, count), rung(j))) < 15, (head, j)
        assert abs(cents(pitch(MAPPINGS["sum_row"](weights=one_hot(j, count))), rung(j))) < 15, j


def test_the_heads_are_told_apart_by_timbre_at_one_pitch():
    """At one token's pitch the three heads' spectra differ: the share of their power above the fundamental
    (a sine none, a triangle its odd harmonics, an organ all of them) at least 6 dB apart from head to head."""
    def overtones_db(head: int) -> float:
        sound = MAPPINGS["head_row"](head=head, weights=one_hot(3, 9)).mean(axis=1)
        spectrum = np.abs(np.fft.rfft(sound * np.hanning(len(sound)))) ** 2
        frequencies = np.fft.rfftfreq(len(sound), 1 / SAMPLE_RATE)
        fundamental = spectrum[np.abs(frequencies - rung(3)) < 30].sum()
        return 10 * np.log10(spectrum[frequencies > 1.5 * rung(3)].sum() / fundamental)

    shares = [overtones_db(head) for head in range(3)]
    assert all(b - a >= 6.0 for a, b in zip(shares, shares[1:])), shares


def heads_cues():
    scene = shared_scene("heads")
    return [cue for cue in scene.cues if cue.kind in ("heads_overlay", "heads_chord")]


@pytest.mark.parametrize("index", [0, 1])
def test_the_heads_chords_each_fall_silent_before_the_next(index, tmp_path):
    """The cue as the soundtrack writes it (levelled, in the room, limited): 50 ms windows; after each of the first
    two heads' chords, 0.3 s or more 30 dB under the cue's loudest window before the next head starts."""
    cue = heads_cues()[index]
    seconds = len(MAPPINGS[cue.kind](**cue.values)) / SAMPLE_RATE + 1.0
    path = tmp_path / "heads.wav"
    write_soundtrack([Cue(0.0, cue.kind, cue.values)], seconds, -16.0, path)
    samples = read_wav(path).mean(axis=1)
    window = int(0.05 * SAMPLE_RATE)
    levels = np.array([10 * np.log10(np.mean(samples[k:k + window] ** 2) + 1e-20)
                       for k in range(0, len(samples) - window, window)])
    quiet = levels < levels.max() - 30
    onsets = [k for k in range(1, len(levels)) if not quiet[k] and quiet[k - 1]]  # each later head's start
    assert len(onsets) >= 2, levels.round(1)
    for onset in onsets[:2]:
        before = 0
        while before < onset and quiet[onset - 1 - before]:
            before += 1
        assert before * 0.05 >= 0.3, (cue.kind, onset * 0.05, before * 0.05)
