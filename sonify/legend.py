"""The lecture's one sound language: what each quantity sounds as, in every section (docs/sound.md's legend).

Each quantity has one sound dimension and one scale (``QUANTITIES``); each cue kind says which quantities it sounds
(``KIND_QUANTITIES``) and in which register its notes lie (``KIND_REGISTER``). The registers (``REGISTERS``, the
fundamentals' band in Hz) keep the kinds apart: the step markers at the bottom, two octaves of weights over the keys
above them (a sentence of up to ten tokens, each its own rung), the values' two octaves from the weights' second
octave up. A head says which token by that token's rung, as every row does (a token is one pitch in every head and
in their mean): the heads are told apart by timbre (``HEAD_TIMBRES``) and by turn, never by register. Every
fundamental lies at or above 250 Hz, where a laptop speaker still plays it.
Pan is where the thing is on screen, left to right; never top and bottom."""

from __future__ import annotations

import numpy as np

REGISTERS = {  # Hz, [low, high): the fundamentals of a kind's notes
    "markers": (250.0, 300.0),
    "weights": (300.0, 1200.0),
    "values": (600.0, 2400.0),
}
# Registers that share a band and may sound in one step, told apart by timbre and envelope instead: the weights'
# second octave (a sentence of seven to ten tokens: scaling's eight keys, the heads' nine words) lies on the values'
# first (a swelled organ chord against plucked triangle blips). Ten tokens a whole tone apart or more need more than
# the octave between the markers and the values.
TIMBRE_APART = frozenset({frozenset({"weights", "values"})})
HEAD_TIMBRES = ("a sine", "a triangle", "an organ")  # heads 1, 2, 3 (``mappings.HEAD_WAVES``), then again

QUANTITIES = {  # quantity: (dimension, scale)
    "step": ("a struck bell", "262 Hz, one pitch: a marker, no data"),
    "value": ("pitch", "600 x 4^share Hz: two octaves over its quantity's range in the section"),
    "curve": ("pitch", "600 x 4^share Hz, gliding as the curve is drawn left to right: the value's scale"),
    "loss": ("pitch", "600 x 4^(loss / ln V) Hz: a perfect prediction at 600 Hz, guessing at 2400 Hz"),
    "token": ("pitch and place", "a ladder of ten pitch classes from 330 Hz (10 rungs, then again), panned at its column"),
    "weight": ("loudness", "a voice's amplitude as weight / its row's largest"),
    "head": ("timbre", "head 1 a sine, head 2 a triangle, head 3 an organ, each on the token ladder"),
    "spread": ("the width of a cluster", "H bits = H octaves around 850 Hz (0 bits: one tone), at most 2.5"),
    "frequency": ("pitch", "300 x 8^(1 + log10(omega) / 4) Hz: omega = 1e-4 at 300 Hz, 1 at 2400 Hz"),
    "encoding value": ("loudness", "loud where the encoding is high (+1), silent at -1"),
    "encoding": ("an envelope", "its voices pulse six times a second (``mappings.pulses``): no other kind pulses"),
    "temperature": ("timbre", "cold bright and short, hot dull, long and detuned"),
    "difference": ("an interval", "two voices left and right: a unison when identical, at least a whole tone apart"),
}

KIND_QUANTITIES = {
    "step": ("step",), "reset": ("step",), "cost": ("step",),
    "cell": ("value",), "values": ("value",), "scale": ("value",), "vector_sum": ("value",),
    "curve": ("curve",), "similarity_curve": ("curve",), "loss": ("loss",),
    "row": ("token", "weight"), "distribution": ("token", "weight"), "masked": ("token", "weight"),
    "sum_row": ("token", "weight"), "heads_sum": ("token", "weight"), "connection": ("token", "weight", "temperature"),
    "tokens": ("token",), "concat": ("token",),
    "head_arcs": ("head", "token", "weight"), "head_row": ("head", "token", "weight"),
    "heads_overlay": ("head", "token", "weight"), "heads_chord": ("head", "token", "weight"),
    "entropy": ("spread",), "outputs_compared": ("difference", "token"),
    "frequencies": ("frequency", "encoding"), "frequency_contrast": ("frequency", "encoding value", "encoding"),
    "position_sweep": ("frequency", "encoding value", "encoding"), "wave": ("frequency", "encoding value", "encoding"),
}
KIND_REGISTER = {kind: register for register, kinds in {
    "markers": ("step", "reset", "cost"),
    "values": ("cell", "values", "scale", "vector_sum", "curve", "similarity_curve", "loss"),
    "weights": ("row", "distribution", "masked", "sum_row", "heads_sum", "connection", "tokens", "concat",
                "head_arcs", "head_row", "heads_overlay", "heads_chord"),
}.items() for kind in kinds}

MARKER_PITCH = 262.0  # Hz, C4
KEY_PITCH = 330.0  # Hz, E4: the token ladder's foot
TOKEN_RUNGS = np.array([0, 2, 4, 7, 9, 11, 13, 15, 17, 20])  # semitones: ten pitch classes (0 2 4 7 9 11 1 3 5 8),
# no two rungs closer than a whole tone nor an octave apart (an octave pair fuses in a chord: the lower is heard),
# ten tokens each its own pitch (330 to 1047 Hz)
VALUE_FOOT, VALUE_OCTAVES = 600.0, 2


def value_pitch(share) -> np.ndarray:
    """A value's pitch: 600 x 4^share Hz, share in [0, 1] where it lies in its quantity's range."""
    return VALUE_FOOT * 2 ** (VALUE_OCTAVES * np.asarray(share, dtype=float))


def ladder(count: int) -> np.ndarray:
    """The pitches of ``count`` tokens, 330 x 2^(rung / 12) Hz: past the last rung the ladder starts again at its foot
    (a unison, never a clash: a sentence longer than the ladder, as the learned section's period-10 task twice over)."""
    return KEY_PITCH * 2 ** (TOKEN_RUNGS[np.arange(count) % len(TOKEN_RUNGS)] / 12)
