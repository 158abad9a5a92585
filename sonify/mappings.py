"""From a scene's cues to sounds: what each cue kind sounds like (the README's sound table).

Every data note lies at or above 200 Hz (laptop speakers drop what is lower). Stereo positions mean
something: a note for a token, a key or a column sounds where that column is on screen (first left,
last right); two things compared sound left and right, and one after the other.
Levels: every sound is made with peak about 1 at full value, then placed at its kind's fixed level
(``LEVELS``, the same in every section): data notes about 6 LU above the step and reset markers.
A kind is a sound, not a section's: ``row`` or ``cell`` sound alike wherever they play. Which kinds a section
plays is its record's ``cue_kinds`` (``lesson.sections``, above this layer); a section declared outside the
project brings its own kinds with ``add_sound``.

Shared by every section:
* ``step``: a step change, a triangle tone at 300 + 80 x step Hz (the lab's table).
* ``reset``: back to the start, a tone gliding down an octave from 400 Hz.
Section 1 (``matrix``) and 2 (``scaling``):
* ``cell``: a computed cell, a short blip two octaves wide: 220 x 4^((value - low) / (high - low)) Hz, on one
  scale per quantity across a section (``shared_scale``: X, Q, K and V share one, the scores another), so that a
  value sounds at one pitch wherever it appears; logarithmic for a quantity that grows geometrically (the
  deviation of q . k against d_k: each doubling of d_k one fixed interval).
* ``scale``: where a quantity's scale starts, its two ends (220 Hz, then 880 Hz), softer than the blips that follow.
* ``row``: a softmax row, a chord of one pitch per key (panned as the keys' columns), each as loud as its
  weight; an unscaled row sounds on the left, a scaled one on the right (their panels' sides).
Section 3 (``heads``): each head its own register and timbre (220 Hz sine, 440 Hz triangle, 880 Hz organ),
its weights as loudness, each token at its column: ``head_arcs`` (what each token receives), ``head_row``
(one token's row), ``heads_overlay`` and ``heads_chord`` (the three heads one after the other, each once the last has ended),
``heads_sum``/``sum_row`` (the mean, as a softmax row); ``tokens`` and ``concat`` a soft rising arpeggio
across the field, ``cost`` a neutral tone.
Section 4 (``positional``): one fixed scale for the whole section: a dimension of angular frequency omega
sounds at 220 x 8^(1 + log10(omega) / 4) Hz (omega = 1 at 1760 Hz, omega = 1e-4 at 220 Hz), loud where its
value is high and panned as its column; sweeps over positions travel from left to right. The similarity
curve is a 440 Hz tone that fades with the similarity; the permutation verdict is two voices, left and
right: a unison when the outputs are identical, at least a whole tone apart when they differ (``outputs_compared``).
Section 5 (``capital``): ``distribution``, the final distribution as a chord: París (C5, organ) and Roma
(G4, triangle) the two voices that move, each as loud as its probability and panned as its bar, the six other
words one quiet "rest" voice (C4, as loud as half their summed probability); ``values``, the numbers of a column
as blips one after the other, pitch as value (on the cue's scale when it gives one, else on their own range).
Section 6 (``pipeline``):
* ``connection``: an attention line, 200 + 600 x alpha Hz, as loud as alpha's share of its row's largest weight
  (``peak``: a flat row sounds as even, not as faint: the lab's random weights and the designed ones keep the
  section at one loudness), on a sawtooth; the temperature sets the timbre: cold is bright and short
  (Butterworth cut-off 4.5/T harmonics above the note, all of them at T = 0.2), hot dull (near a sine), long,
  detuned.
* ``row`` with version ``lab``/``sharp``: the two presets' rows for the query, left and right, one after the other.
* ``curve``: the maximum weight against T, a 440 Hz tone as loud as the curve is high, left to right.
* ``tokens``: the sentence's tokens as they appear (step 1); ``values``: the query's row of scores (step 4), then
  of scaled scores (step 5), as it lands, on the colour scale the two share: the scaled row sounds narrower.
* ``masked``: the query's row as a chord, then the keys the causal mask blocks fall silent, as its weights land.
* ``entropy``: the entropy of each compared row (``rows`` of the weights ``free`` and ``masked``) as the spread
  of a cluster of up to seven voices around 600 Hz, H bits = H octaves wide (0 bits: one tone; voices at
  least a whole tone apart), one after the other:
  without the mask on the left, with it on the right.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from pathlib import Path

import numpy as np

from attn_math.attention import entropy
from sonify.mix import Timeline, Track, cue_gain_db, in_room, levelled, limited_blocks, with_voices, write_wav_blocks
from sonify.synth import (ATTACK, PLUCK, SAMPLE_RATE, SWELL, chord, envelope, glide, low_pass, organ_wave, pan,
                          saw_wave, seconds, sine_wave, tone, triangle_wave)

LAB_CUTOFF = 2500.0  # Hz, the lab's low-pass filter
LADDER = np.array([0, 2, 4, 7, 9, 12, 14, 16, 19, 21, 24, 26, 28, 31, 33, 36])  # pentatonic, in semitones
KEY_PITCH = 330.0  # Hz, the ladder's foot for the keys of a distribution
SEQUENCE_GAP = 0.3  # seconds of silence between things compared one after the other
FOLLOWED_RELEASE = 0.06  # seconds: a held sound cut at full level fades out, it does not click


def ladder(base: float, count: int) -> np.ndarray:
    """Pitches of ``count`` tokens, base x 2^(LADDER/12): past its 16 rungs the ladder starts again at its foot (a
    unison, never a clash; the pan still tells the positions apart)."""
    return base * 2 ** (LADDER[np.arange(count) % len(LADDER)] / 12)


def spread(count: int, left: float = -1.0, right: float = 1.0) -> np.ndarray:
    """Pan positions of ``count`` columns, the first at ``left`` and the last at ``right``."""
    return np.linspace(left, right, count) if count > 1 else np.array([(left + right) / 2])


def stereo_chord(pitches, weights, duration: float, wave=sine_wave, positions=None) -> np.ndarray:
    """One voice per pitch, as loud as its weight / the largest weight, each panned to its column (the chord's own
    loudness is set by measuring it when it is placed: ``placed``)."""
    weights = np.asarray(weights, dtype=float)
    largest = weights.max(initial=0.0)
    positions = spread(len(weights)) if positions is None else positions
    voices = [pan(w / largest * tone(f, duration, wave), p) for f, w, p in zip(pitches, weights, positions) if w > 0]
    return np.sum(voices, axis=0) if voices else np.zeros((len(seconds(duration)), 2))


SEQUENCE_LOUDNESS = -20.0  # LUFS momentary: each sound of a sequence before the sequence is placed at its level


def in_sequence(sounds, gap: float) -> np.ndarray:
    """Stereo sounds one after the other, each starting ``gap`` seconds after the last, each as loud as the others
    (measured: a one-tone cluster and a seven-voice one, a head's peaked chord and another's flat one)."""
    track = Timeline(gap * (len(sounds) - 1) + max(len(sound) for sound in sounds) / SAMPLE_RATE)
    for k, sound in enumerate(sounds):
        track.place(levelled(sound, SEQUENCE_LOUDNESS), k * gap)
    return track.samples


def turn(sound: np.ndarray) -> float:
    """Seconds from a compared sound's start to the next one's: its length, then SEQUENCE_GAP of silence (two
    compared sounds never overlap, so that they stay apart on a mono laptop speaker)."""
    return len(sound) / SAMPLE_RATE + SEQUENCE_GAP


def step_tone(step: int) -> np.ndarray:
    """300 + 80 step Hz, a quarter second."""
    return low_pass(envelope(tone(300 + 80 * step, 0.3, triangle_wave), decay=0.12), LAB_CUTOFF)


def reset_tone() -> np.ndarray:
    """From 400 Hz down an octave: going back to the start."""
    return low_pass(envelope(glide(400, 200, 0.45, triangle_wave), decay=0.25), LAB_CUTOFF)


def shared_scale(*arrays, logarithmic: bool = False) -> dict:
    """One quantity's scale across a section: ``low`` and ``high`` over every array that holds it (X, Q, K and V
    alike; a masked score's -inf aside), so that a value sounds at one pitch wherever it appears. A ``cell`` cue
    takes it as keywords: ``cue("cell", value=v, **scale)``. ``logarithmic`` for a quantity that grows
    geometrically (d_k doubling: one fixed interval); its values must then be positive."""
    values = np.concatenate([np.ravel(np.asarray(array, dtype=float)) for array in arrays])
    values = values[np.isfinite(values)]
    return {"low": float(values.min()), "high": float(values.max()), "logarithmic": logarithmic}


def scale_share(value: float, low: float, high: float, logarithmic: bool = False) -> float:
    """Where ``value`` lies between ``low`` (0) and ``high`` (1): by difference, or by ratio (``logarithmic``)."""
    if logarithmic:
        value, low, high = np.log(value), np.log(low), np.log(high)
    return 0.5 if high <= low else float(np.clip((value - low) / (high - low), 0.0, 1.0))


def value_blip(value: float, low: float, high: float, logarithmic: bool = False, attack: float = PLUCK) -> np.ndarray:
    """A short plucked blip at 220 x 4^share Hz, share = where ``value`` lies between ``low`` and ``high``
    (``scale_share``)."""
    share = scale_share(value, low, high, logarithmic)
    return low_pass(envelope(tone(220 * 4 ** share, 0.14, triangle_wave), decay=0.05, attack=attack), LAB_CUTOFF)


def scale_reference() -> np.ndarray:
    """A new scale starts: its two ends one after the other, 220 Hz then 880 Hz (a ``cell`` blip at the lowest
    and the highest value, struck as a marker is, not plucked), centred: what the next blips of the quantity are
    heard against."""
    return in_sequence([pan(value_blip(share, 0.0, 1.0, attack=ATTACK), 0.0) for share in (0.0, 1.0)], 0.18)


def value_blips(values, spacing: float, low: float | None = None, high: float | None = None) -> np.ndarray:
    """A column of numbers read out: one blip per value, ``spacing`` apart, pitch as value: on ``low``..``high``
    when given (a scale that several cues share, so that smaller numbers sound closer together), else on the
    values' own range."""
    values = np.asarray(values, dtype=float)
    low, high = (values.min() if low is None else low), (values.max() if high is None else high)
    return in_sequence([pan(value_blip(v, low, high), 0.0) for v in values], spacing)


def distribution_chord(weights, duration: float = 1.0, positions=None) -> np.ndarray:
    """One pitch per key (a pentatonic ladder), each as loud as its probability and panned as its column."""
    sound = stereo_chord(ladder(KEY_PITCH, len(weights)), weights, duration, organ_wave, positions)
    return low_pass(envelope(sound, decay=duration / 2.5, attack=SWELL), LAB_CUTOFF)


# Panels compared side by side: scaling's unscaled and scaled rows, the pipeline's two weight presets.
VERSION_SIDES = {"unscaled": (-1.0, -0.3), "scaled": (0.3, 1.0), "lab": (-1.0, -0.3), "sharp": (0.3, 1.0)}


def softmax_row(weights, version: str | None = None) -> np.ndarray:
    """A softmax row's chord; a compared panel's row on its panel's side of the field."""
    return distribution_chord(weights, 1.0, spread(len(weights), *VERSION_SIDES.get(version, (-1.0, 1.0))))


BRIGHT_HARMONICS = 4.5  # the cut-off's place at T = 1, in harmonics of the note: a 550 Hz note about the lab's 2500 Hz


def timbre(temperature: float, pitch: float) -> tuple[float, float, float]:
    """(cut-off Hz, note length s, detune cents): sharp and bright when cold, diffuse when hot. The cut-off
    lies 4.5 / T harmonics above the note (from 1.5, near a sine, to all 28 of the sawtooth's), so that the
    brightness changes alike at every pitch: the power-weighted spectral centroid at T = 0.2 is over twice
    that at T = 3."""
    cutoff = float(np.clip(pitch * np.clip(BRIGHT_HARMONICS / temperature, 1.5, 28.0), 300.0, 20000.0))
    length = float(np.clip(0.25 * np.sqrt(temperature), 0.12, 0.8))
    detune = float(np.clip(8.0 * (temperature - 1.0), 0.0, 30.0))
    return cutoff, length, detune


def connection_note(weight: float, temperature: float = 1.0) -> np.ndarray:
    """200 + 600 alpha Hz on a sawtooth, low-passed at the temperature's cut-off (its loudness is alpha's share of
    its row's largest weight: ``emphasis``)."""
    cutoff, length, detune = timbre(temperature, 200 + 600 * weight)
    voices = tone(200 + 600 * weight, length, saw_wave, detune) + tone(200 + 600 * weight, length, saw_wave, -detune)
    return low_pass(envelope(voices / 2, decay=length / 2.5), cutoff)


QUIETEST_SHARE = 1e-3  # the faintest a weight is heard against its row's largest (-60 dB), not silence


def share_db(weight: float, peak: float) -> float:
    """A weight as loudness against its row's largest (``peak``): 20 log10(weight / peak) dB, down to -60 dB."""
    return float(20 * np.log10(max(weight / max(peak, weight, 1e-12), QUIETEST_SHARE)))


HEAD_REGISTERS = ((220.0, sine_wave), (440.0, triangle_wave), (880.0, organ_wave))  # low, middle, high
HEADS_SECONDS = {"head_row": 0.9, "heads_overlay": 0.9, "heads_chord": 1.4}  # one head's chord in these cues


def head_chord(head: int, weights, duration: float = 0.9) -> np.ndarray:
    """A distribution in head ``head``'s register and timbre: one pitch per token, loud as its weight."""
    base, wave = HEAD_REGISTERS[head % len(HEAD_REGISTERS)]
    sound = stereo_chord(ladder(base, len(weights)), weights, duration, wave)
    return low_pass(envelope(sound, decay=duration / 2.5, attack=SWELL), LAB_CUTOFF)


def heads_in_turn(rows, duration: float) -> np.ndarray:
    """Each head's chord in its register, one head after the other: each starts once the one before has ended
    (``heads_turn``)."""
    chords = [head_chord(head, row, duration) for head, row in enumerate(rows)]
    return in_sequence(chords, turn(chords[0]))


def heads_turn(kind: str) -> float:
    """Seconds between two heads' chords in a ``heads_overlay`` or ``heads_chord`` cue, or between ``head_row``
    cues of different heads: a scene that shows the heads one by one shows them on this beat."""
    return turn(head_chord(0, [1.0], HEADS_SECONDS[kind]))


def attended(weights) -> np.ndarray:
    """How much attention each token receives: the column sums of a weight matrix, as a distribution."""
    received = np.asarray(weights, dtype=float).sum(axis=0)
    return received / received.sum()


def token_arpeggio(count: int) -> np.ndarray:
    """One soft note per token, rising, 80 ms apart and left to right: the sentence laid out."""
    positions = spread(count)
    return in_sequence([pan(0.5 * value_blip(j, 0, max(count - 1, 1)), positions[j]) for j in range(count)], 0.08)


def encoding_pitch(angular_frequencies) -> np.ndarray:
    """The positional scale: 220 x 8^(1 + log10(omega) / 4) Hz, omega in [1e-4, 1] over three octaves."""
    share = np.clip(1 + np.log10(np.asarray(angular_frequencies, dtype=float)) / 4, 0.0, 1.0)
    return 220.0 * 8**share


def followed(pitches, levels, duration: float, positions) -> np.ndarray:
    """Sines at ``pitches`` whose loudness follows ``levels`` (one row per pitch) across ``duration``,
    each at its pan position (a number, or an array over time for a voice that travels)."""
    t = seconds(duration)
    levels = np.atleast_2d(np.asarray(levels, dtype=float))
    along = np.linspace(0, levels.shape[1] - 1, len(t))
    voices = [pan(np.interp(along, np.arange(levels.shape[1]), row) * np.sin(2 * np.pi * pitch * t), position)
              for pitch, row, position in zip(pitches, levels, positions)]
    sound = np.sum(voices, axis=0) / max(1, len(voices)) ** 0.5
    return low_pass(envelope(sound, decay=10 * duration, release=FOLLOWED_RELEASE), LAB_CUTOFF)


def curve_tone(values, duration: float) -> np.ndarray:
    """A curve drawn from left to right: a 440 Hz tone travelling left to right, loud as value / max."""
    values = np.asarray(values, dtype=float)
    return followed([440.0], [values / values.max()], duration, [left_to_right(duration)])


def left_to_right(duration: float) -> np.ndarray:
    """A pan position travelling from the left (first position) to the right (last) over ``duration``."""
    return np.linspace(-1.0, 1.0, len(seconds(duration)))


def sweep(angular_frequencies, values, duration: float) -> np.ndarray:
    """The encoding heard as it is drawn, position after position from left to right: each dimension at
    its pitch, loud where its value is high."""
    values = np.asarray(values, dtype=float)
    return followed(encoding_pitch(angular_frequencies), (values + 1) / 2, duration,
                    [left_to_right(duration)] * len(values))


def contrast(angular_frequencies, values, duration: float = 1.5) -> np.ndarray:
    """Two dimensions compared: the fast one on the left, the slow one on the right (their boxes' sides)."""
    return followed(encoding_pitch(angular_frequencies), (np.asarray(values) + 1) / 2, duration,
                    spread(len(angular_frequencies), -0.8, 0.8))


REST_PITCH = 261.63  # Hz, C4: the other words' one voice, an octave under París and a fifth under Roma
REST_SHARE = 0.5  # the rest voice's amplitude per unit of the other words' probability: a quiet background


def capital_chord(weights, duration: float = 1.6) -> np.ndarray:
    """París (C5, organ) and Roma (G4, triangle), the two voices that move, each as loud as its probability
    and panned as its bar; the six other words one quiet "rest" voice, a C4 sine as loud as half their summed
    probability, panned at the middle of their bars (six sines a semitone apart beat, 13-17 Hz)."""
    weights = np.asarray(weights, dtype=float)
    positions = spread(len(weights))
    voices = [pan(weights[0] * tone(523.25, duration, organ_wave), positions[0]),
              pan(weights[1] * tone(392.0, duration, triangle_wave), positions[1]),
              pan(REST_SHARE * weights[2:].sum() * tone(REST_PITCH, duration), float(positions[2:].mean()))]
    return low_pass(envelope(np.sum(voices, axis=0), decay=duration / 2, attack=SWELL), LAB_CUTOFF)


IDENTICAL = 1e-9  # the largest difference of outputs that are the same numbers (floating-point rounding)


def comparison(max_difference: float, duration: float = 1.5) -> np.ndarray:
    """Two voices, left and right: a unison when the outputs are identical, an interval when not (at least a
    whole tone, never two notes that beat; an octave from a difference of 0.5 on)."""
    cents = 0.0 if max_difference <= IDENTICAL else max(200.0, 1200 * np.log2(1 + min(1.0, 2 * max_difference)))
    voices = pan(tone(330.0, duration, triangle_wave), -0.7) + pan(tone(330.0, duration, triangle_wave, cents), 0.7)
    return low_pass(envelope(voices, decay=duration / 2, attack=SWELL), LAB_CUTOFF)


def masked_row(before, after, duration: float = 2.0) -> np.ndarray:
    """The query's row as a chord (keys panned as their columns), then the masked keys fall silent: each
    voice goes from its weight without the mask to its weight with it."""
    levels = np.column_stack([before, before, after, after])
    return followed(ladder(KEY_PITCH, len(before)), levels / levels.max(), duration, spread(len(before)))


WHOLE_TONE = 1 / 6  # octaves: the closest two voices of one chord may be (closer ones beat)


def entropy_cluster(bits: float, duration: float = 1.0, voices: int = 7) -> np.ndarray:
    """Up to seven sines spread evenly over ``bits`` octaves around 600 Hz (at most three): 0 bits is one tone;
    a narrow cluster has fewer voices, at least a whole tone apart."""
    width = min(bits, 3.0)
    voices = min(voices, 1 + int(width / WHOLE_TONE + 1e-9))
    octaves = np.linspace(-0.5, 0.5, voices) * width if voices > 1 else np.zeros(1)
    return low_pass(envelope(chord(600.0 * 2**octaves, np.ones(voices), duration), decay=duration / 2, attack=SWELL),
                    LAB_CUTOFF)


ENTROPY_GAP = 1.0  # seconds between two entropies' clusters in an ``entropy`` cue


def entropies_compared(free, masked) -> np.ndarray:
    """Each entropy's cluster, one after the other: without the mask on the left, with it on the right (the
    masked ones start ``len(free) * ENTROPY_GAP`` after the first)."""
    return in_sequence([pan(entropy_cluster(bits), side) for side, row in ((-0.7, free), (0.7, masked))
                        for bits in row], gap=ENTROPY_GAP)


MAPPINGS: dict[str, Callable[..., np.ndarray]] = {
    "step": lambda step, **_: step_tone(step),
    "reset": lambda **_: reset_tone(),
    "cell": lambda value, low, high, logarithmic=False, **_: value_blip(value, low, high, logarithmic),
    "values": lambda values, spacing, low=None, high=None, **_: value_blips(values, spacing, low, high),
    "scale": lambda **_: scale_reference(),
    "row": lambda weights, version=None, **_: softmax_row(weights, version),
    "connection": lambda weight, temperature=1.0, **_: connection_note(weight, temperature),
    "masked": lambda before, after, **_: masked_row(before, after),
    "entropy": lambda free, masked, rows, **_: entropies_compared(entropy(np.asarray(free)[rows]),
                                                                  entropy(np.asarray(masked)[rows])),
    "tokens": lambda count, **_: token_arpeggio(count),
    "head_arcs": lambda head, weights, **_: head_chord(head, attended(weights)),
    "head_row": lambda head, weights, **_: head_chord(head, weights, HEADS_SECONDS["head_row"]),
    "heads_overlay": lambda weights, **_: heads_in_turn([attended(w) for w in weights], HEADS_SECONDS["heads_overlay"]),
    "heads_sum": lambda weights, **_: distribution_chord(attended(weights)),
    "sum_row": lambda weights, **_: distribution_chord(weights),
    "heads_chord": lambda weights, **_: heads_in_turn(weights, HEADS_SECONDS["heads_chord"]),
    "cost": lambda **_: 0.5 * step_tone(0),
    "frequencies": lambda angular_frequencies, **_: followed(
        encoding_pitch(angular_frequencies[::2]), np.ones((len(angular_frequencies[::2]), 2)), 1.5,
        spread(len(angular_frequencies[::2]))),
    "position_sweep": lambda rows, angular_frequencies, duration, **_: sweep(
        angular_frequencies[::2], np.asarray(rows)[:, ::2].T, duration),
    "frequency_contrast": lambda angular_frequencies, values, **_: contrast(angular_frequencies, values),
    "wave": lambda angular_frequency, samples, duration, **_: followed(
        encoding_pitch([angular_frequency]), [(np.asarray(samples) + 1) / 2], duration, [left_to_right(duration)]),
    "similarity_curve": lambda similarities, duration, **_: curve_tone(similarities, duration),
    "curve": lambda values, duration, **_: curve_tone(values, duration),
    "vector_sum": lambda x_plus_pe, **_: value_blip(float(np.linalg.norm(x_plus_pe)), 0, 3),
    "outputs_compared": lambda max_difference, **_: comparison(max_difference),
    "distribution": lambda weights, seconds=1.6, **_: capital_chord(weights, max(0.6, seconds)),
    "concat": lambda heads, **_: token_arpeggio(heads),
}
# The mix: each kind's momentary loudness (BS.1770, 400 ms), in LU from the data cues' (``mix.cue_gain_db``: 6 LU
# under speech), the same in every section and for any data: every cue is measured and set there (``placed``), so a
# one-hot row and a flat one, one voice or seven, sound alike. The markers 6 LU under the data, the references and
# the sentence's soft arpeggios 3 LU under it.
MARKER, SOFT, DATA = -6.0, -3.0, 0.0
LEVELS = {"step": MARKER, "reset": MARKER, "cost": MARKER, "scale": SOFT, "tokens": SOFT, "concat": SOFT,
          **{kind: DATA for kind in MAPPINGS if kind not in ("step", "reset", "cost", "scale", "tokens", "concat")}}
# Kinds whose data is also loudness from one cue to the next (an attention line after another of its row): dB on
# top of their level.
EMPHASIS: dict[str, Callable[..., float]] = {"connection": lambda weight, peak=1.0, **_: share_db(weight, peak)}


def add_sound(kind: str, mapping: Callable[..., np.ndarray], level: float) -> None:
    """A new cue kind (a section declared outside the project brings its own): its sound and its level (LU from
    the data cues')."""
    if kind in MAPPINGS:
        raise ValueError(f"cue kind {kind!r}: already a sound; a section brings only kinds of its own")
    MAPPINGS[kind], LEVELS[kind] = mapping, level


def staggered(cues) -> list[float]:
    """Start times: cues of one kind at the same instant (two panels compared) play one after the other, each
    once the one before has ended (``turn``); the others at their times."""
    keys = [(cue.kind, round(cue.time, 3)) for cue in cues]
    shared = Counter(keys)
    times, free = [], {}
    for cue, key in zip(cues, keys):
        times.append(free.get(key, cue.time))
        if shared[key] > 1:  # only then is its sound made here: placed() makes each sound once more
            free[key] = times[-1] + turn(MAPPINGS[cue.kind](**cue.values))
    return times


def cue_loudness(cue, data_lufs: float) -> float:
    """The momentary loudness (LUFS) ``cue`` sounds at when the data cues sound at ``data_lufs``: its kind's level,
    plus its ``EMPHASIS``."""
    emphasis = EMPHASIS.get(cue.kind)
    return data_lufs + LEVELS[cue.kind] + (emphasis(**cue.values) if emphasis else 0.0)


def placed(timeline: Timeline, cues, data_lufs: float) -> Timeline:
    """Every cue's sound at its time on ``timeline``, measured as heard in the room and set to its loudness
    (``cue_loudness``) with the data cues at ``data_lufs``: one sound in memory at a time."""
    for cue, at in zip(cues, staggered(cues)):
        timeline.place(levelled(MAPPINGS[cue.kind](**cue.values), cue_loudness(cue, data_lufs), roomed=True), at)
    return timeline


def write_soundtrack(cues, duration: float, loudness_lufs: float, path: Path, voices=()) -> None:
    """Every cue's sound at its time and its kind's level on a stereo track exactly ``duration`` long, levelled
    against speech at ``loudness_lufs`` (``cue_gain_db``), in a light room (``in_room``), the narration's ``voices``
    ((start, mono samples) each) over it at that loudness with the tones ducked, through the limiter, written to the
    WAV ``path``. Built on scratch files and limited a block at a time: memory holds a block and a cue's sound,
    however long the section runs."""
    with Track(int(round(duration * SAMPLE_RATE))) as tones:
        placed(Timeline(samples=tones), cues, cue_gain_db(loudness_lufs))
        in_room(tones)
        with with_voices(tones, voices, loudness_lufs) if voices else tones as mix:  # closing tones twice is harmless
            write_wav_blocks((block for _, block in limited_blocks(mix)), path)


# Section 7 (``learned``) ------------------------------------------------------------------------------------
# * ``loss``: the training loss heard as it is drawn, a pitch that follows the curve from left to right:
#   220 x 4^(loss / guess) Hz, guessing (``guess`` = ln V nats) at 880 Hz and a loss of 0 at 220 Hz, so that the
#   sudden drop is heard as a sudden fall of the pitch. Its arcs and rows are the heads section's
#   ``head_arcs`` and ``head_row`` (the previous-token head in head 1's register, the induction head in head 3's).
LOSS_OCTAVES = 2  # from a loss of 0 to guessing


def loss_pitch(losses, guess: float) -> np.ndarray:
    """220 x 4^(loss / guess) Hz: two octaves from a perfect prediction (0) to guessing (ln V), clipped there."""
    share = np.clip(np.asarray(losses, dtype=float) / guess, 0.0, 1.0)
    return 220.0 * 2 ** (LOSS_OCTAVES * share)


def falling_pitch(losses, guess: float, duration: float) -> np.ndarray:
    """A sine whose pitch follows the losses (``loss_pitch``, spread evenly over ``duration``), travelling
    left to right with the curve being drawn; it fades out over its last FOLLOWED_RELEASE seconds."""
    pitches = loss_pitch(losses, guess)
    t = seconds(duration)
    along = np.interp(np.linspace(0, len(pitches) - 1, len(t)), np.arange(len(pitches)), pitches)
    phase = np.cumsum(along) / SAMPLE_RATE  # the integral of the pitch: no jump where it moves fast
    sound = pan(sine_wave(phase), left_to_right(duration))
    return low_pass(envelope(sound, decay=10 * duration, release=FOLLOWED_RELEASE), LAB_CUTOFF)


add_sound("loss", lambda losses, guess, duration, **_: falling_pitch(losses, guess, duration), DATA)
