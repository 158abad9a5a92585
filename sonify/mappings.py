"""From a scene's cues to sounds: what each cue kind sounds like, through the lecture's one legend
(``sonify.legend``: each quantity one dimension and one scale, each kind its register, docs/sound.md's table).

Every fundamental lies at or above 250 Hz (laptop speakers drop what is lower). Stereo positions mean
something: a note for a token, a key or a column sounds where that column is on screen (first left,
last right); two things compared side by side sound left and right, and one after the other; panels one above
the other share their columns' pan. Levels: every cue is measured as heard and set to its kind's level
(``LEVELS``, the same in every section, whatever the data's shape): data 6 LU above the step and reset markers.
A kind is a sound, not a section's: ``row`` or ``cell`` sound alike wherever they play. Which kinds a section
plays is its record's ``cue_kinds`` (``lesson.sections``, above this layer); a section declared outside the
project brings its own kinds with ``add_sound``.

Markers (every section): ``step``, a struck bell at 262 Hz; ``reset``, the bell gliding down to it; ``cost``, the bell.
Values (a number: pitch, ``legend.value_pitch``, 600 x 4^share Hz over its quantity's range):
* ``cell``: a computed cell's plucked blip, on one scale per quantity across a section (``shared_scale``: X, Q, K
  and V share one, the scores another), so that a value sounds at one pitch wherever it appears; logarithmic for a
  quantity that grows geometrically (the deviation of q . k against d_k: each doubling of d_k one fixed interval).
* ``values``: a column of numbers as blips one after the other (on the cue's scale when it gives one).
* ``scale``: where a quantity's scale starts, its two ends (600 Hz, then 2400 Hz), softer than the blips.
* ``vector_sum`` (positional): the length of x + PE.
* ``curve`` (pipeline's max weight against T), ``similarity_curve`` (positional), ``loss`` (learned): a tone whose
  pitch follows the curve as it is drawn, travelling left to right.
Weights over tokens (which token: pitch on the token ladder from 330 Hz, ``legend.ladder``, and pan at its
column; its weight: loudness, as weight / the row's largest):
* ``row``: a softmax row's chord; the pipeline's ``lab``/``sharp`` presets left and right, one after the other.
* ``distribution`` (capital): París (organ) and Roma (triangle) on the first two rungs, the six other words one
  quiet "rest" voice on the third.
* ``masked``: the query's row as a chord, then the keys the causal mask blocks fall silent.
* ``connection`` (pipeline): an attention line, its key's rung on a sawtooth, 20 log10(alpha / peak) dB under its
  level (``EMPHASIS``); the temperature sets the timbre: cold is bright and short (Butterworth cut-off 4.5/T
  harmonics above the note, all of them at T = 0.2), hot dull (near a sine), long, detuned.
* ``tokens``, ``concat``: the sentence (the heads) laid out, one plucked rung per token left to right.
* ``heads_sum``/``sum_row``: the heads' mean as a softmax row.
Heads (each head its timbre: sine, triangle, organ; a token on its rung of the token ladder in every head, as in every
row, so that «María» is one pitch whichever head looks at it): ``head_arcs`` (what each token receives), ``head_row``
(one token's row: the token's own note, then the chord of where it looks), ``heads_overlay`` and ``heads_chord`` (the
three heads one after the other, each chord dying away before the next starts).
Others: the positional encoding, a dimension of angular frequency omega at 300 x 8^(1 + log10(omega) / 4) Hz, loud
where its value is high, pulsing six times a second, its kind's own envelope (``frequencies``, ``position_sweep``,
``frequency_contrast``, ``wave``: ``pulses``); ``outputs_compared``,
two voices left and right on the compared row's rung, a unison when the outputs are identical, at least a whole
tone apart when not;
``entropy``, each compared row's entropy as the spread of a cluster of up to seven voices around 850 Hz, H bits =
H octaves wide (0 bits: one tone), one after the other: without the mask on the left, with it on the right.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from pathlib import Path

import numpy as np

from attn_math.attention import entropy
from sonify.legend import KEY_PITCH, MARKER_PITCH, ladder, value_pitch
from sonify.mix import (GATE_BLOCK, Timeline, Track, blocks, cue_gain_db, in_room, levelled, limited_blocks, with_voices,
                        write_wav_blocks)
from sonify.synth import (ATTACK, PLUCK, SAMPLE_RATE, SWELL, chord, envelope, glide, low_pass, organ_wave, pan,
                          saw_wave, seconds, sine_wave, tone, triangle_wave)

LAB_CUTOFF = 2500.0  # Hz, the lab's low-pass filter
SEQUENCE_GAP = 0.3  # seconds of silence between things compared one after the other
FOLLOWED_RELEASE = 0.06  # seconds: a held sound cut at full level fades out, it does not click


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


def together(sounds, starts, gains_db=None) -> np.ndarray:
    """Stereo sounds each at its start (seconds), each as loud as the others (measured: a one-tone cluster and a
    seven-voice one, a head's peaked chord and another's flat one), or ``gains_db`` louder than that, each its own."""
    track = Timeline(max(start + len(sound) / SAMPLE_RATE for sound, start in zip(sounds, starts)))
    for sound, start, gain in zip(sounds, starts, gains_db or [0.0] * len(sounds)):
        track.place(levelled(sound, SEQUENCE_LOUDNESS + gain), start)
    return track.samples


def in_sequence(sounds, gap: float) -> np.ndarray:
    """Stereo sounds one after the other, each starting ``gap`` seconds after the last, each as loud as the others."""
    return together(sounds, [k * gap for k in range(len(sounds))])


def turn(sound: np.ndarray) -> float:
    """Seconds from a compared sound's start to the next one's: its length, then SEQUENCE_GAP of silence (two
    compared sounds never overlap, so that they stay apart on a mono laptop speaker)."""
    return len(sound) / SAMPLE_RATE + SEQUENCE_GAP


def bell_wave(phase: np.ndarray) -> np.ndarray:
    """A marker's timbre: the fundamental and its 2nd and 3rd harmonics (a laptop speaker hears the pitch in them)."""
    return (np.sin(2 * np.pi * phase) + 0.7 * np.sin(4 * np.pi * phase) + 0.5 * np.sin(6 * np.pi * phase)) / 1.9


def step_tone(step: int = 0) -> np.ndarray:
    """A struck bell at 262 Hz, a quarter second: every step alike, under every kind of data (a marker, not a
    value: the step's number is on screen)."""
    return envelope(tone(MARKER_PITCH, 0.3, bell_wave), decay=0.12)


def reset_tone() -> np.ndarray:
    """The marker's bell gliding down to it from a whole tone above: going back to the start."""
    return envelope(glide(MARKER_PITCH * 2 ** (2 / 12), MARKER_PITCH, 0.45, bell_wave), decay=0.25)


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


BLIP_HARMONICS = 3.0  # a blip's low-pass cut-off, in harmonics of its note: one brightness at every pitch


def value_blip(value: float, low: float, high: float, logarithmic: bool = False, attack: float = PLUCK) -> np.ndarray:
    """A short plucked blip at the value's pitch (``legend.value_pitch``: 600 x 4^share Hz), share = where
    ``value`` lies between ``low`` and ``high`` (``scale_share``)."""
    pitch = float(value_pitch(scale_share(value, low, high, logarithmic)))
    return low_pass(envelope(tone(pitch, 0.14, triangle_wave), decay=0.05, attack=attack), BLIP_HARMONICS * pitch)


def scale_reference() -> np.ndarray:
    """A new scale starts: its two ends one after the other, 600 Hz then 2400 Hz (a ``cell`` blip at the lowest
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
    """One pitch per key (the token ladder), each as loud as its probability and panned as its column."""
    sound = stereo_chord(ladder(len(weights)), weights, duration, organ_wave, positions)
    return low_pass(envelope(sound, decay=duration / 2.5, attack=SWELL), LAB_CUTOFF)


# Panels compared side by side: the pipeline's two weight presets. (Scaling's unscaled and scaled panels stand one
# above the other: their keys' columns are the same, and so is their pan.)
VERSION_SIDES = {"lab": (-1.0, -0.3), "sharp": (0.3, 1.0)}


def softmax_row(weights, version: str | None = None) -> np.ndarray:
    """A softmax row's chord; a compared panel's row on its panel's side of the field."""
    return distribution_chord(weights, 1.0, spread(len(weights), *VERSION_SIDES.get(version, (-1.0, 1.0))))


BRIGHT_HARMONICS = 4.5  # the cut-off's place at T = 1, in harmonics of the note: a 550 Hz note about the lab's 2500 Hz


def timbre(temperature: float, pitch: float) -> tuple[float, float, float]:
    """(cut-off Hz, note length s, detune cents): sharp and bright when cold, diffuse when hot. The cut-off
    lies 4.5 / T harmonics above the note (from 2, the note and its octave, which a laptop speaker still plays at
    the lowest key, to all 28 of the sawtooth's), so that the brightness changes alike at every pitch: the
    power-weighted spectral centroid at T = 0.2 is over twice that at T = 3."""
    cutoff = float(np.clip(pitch * np.clip(BRIGHT_HARMONICS / temperature, 2.0, 28.0), 300.0, 20000.0))
    length = float(np.clip(0.25 * np.sqrt(temperature), 0.12, 0.8))
    detune = float(np.clip(8.0 * (temperature - 1.0), 0.0, 30.0))
    return cutoff, length, detune


def connection_note(key: int, temperature: float = 1.0) -> np.ndarray:
    """The line's key on the token ladder (``legend.ladder``) on a sawtooth, low-passed at the temperature's cut-off
    (its loudness is its weight's share of its row's largest: ``EMPHASIS``)."""
    pitch = float(ladder(key + 1)[key])
    cutoff, length, detune = timbre(temperature, pitch)
    voices = tone(pitch, length, saw_wave, detune) + tone(pitch, length, saw_wave, -detune)
    return low_pass(envelope(voices / 2, decay=length / 2.5), cutoff)


QUIETEST_SHARE = 1e-3  # the faintest a weight is heard against its row's largest (-60 dB), not silence


def share_db(weight: float, peak: float) -> float:
    """A weight as loudness against its row's largest (``peak``): 20 log10(weight / peak) dB, down to -60 dB."""
    return float(20 * np.log10(max(weight / max(peak, weight, 1e-12), QUIETEST_SHARE)))


HEAD_WAVES = (sine_wave, triangle_wave, organ_wave)  # heads 1, 2, 3: each its timbre (``legend.HEAD_TIMBRES``)
HEADS_SECONDS = {"head_row": 0.9, "heads_overlay": 0.9, "heads_chord": 1.4}  # one head's chord in these cues
HEAD_FADE = np.log(10 ** (30 / 20))  # a head's chord dies 30 dB by its end: the next head starts after a silence


def head_chord(head: int, weights, duration: float = 0.9) -> np.ndarray:
    """A distribution in head ``head``'s timbre: each token at its rung of the token ladder (``legend.ladder``),
    loud as its weight; it has died away (30 dB) by its end, so that heads heard in turn are heard one by one."""
    wave = HEAD_WAVES[head % len(HEAD_WAVES)]
    sound = stereo_chord(ladder(len(weights)), weights, duration, wave)
    return low_pass(envelope(sound, decay=duration / HEAD_FADE, attack=SWELL), LAB_CUTOFF)


LOOK_GAP = 0.2  # seconds from a row's own token to the chord of where it looks


def looking(head: int, weights, query: int) -> np.ndarray:
    """One token's row in head ``head``: the token's own note plucked at its place, then (LOOK_GAP later) the
    row's chord, loudest where it looks: a previous-token head's row is each token's note followed by the one
    before it."""
    wave, count = HEAD_WAVES[head % len(HEAD_WAVES)], len(weights)
    own = tone(float(ladder(count)[query]), 0.14, wave)
    note = pan(low_pass(envelope(own, decay=0.05, attack=PLUCK), LAB_CUTOFF), float(spread(count)[query]))
    return in_sequence([note, head_chord(head, weights, HEADS_SECONDS["head_row"])], LOOK_GAP)


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
    """One plucked note per token on the token ladder, 80 ms apart and left to right: the sentence laid out."""
    positions, pitches = spread(count), ladder(count)
    return in_sequence([pan(envelope(tone(pitch, 0.14, triangle_wave), decay=0.05, attack=PLUCK), position)
                        for pitch, position in zip(pitches, positions)], 0.08)


def encoding_pitch(angular_frequencies) -> np.ndarray:
    """The positional scale: 300 x 8^(1 + log10(omega) / 4) Hz, omega in [1e-4, 1] over three octaves."""
    share = np.clip(1 + np.log10(np.asarray(angular_frequencies, dtype=float)) / 4, 0.0, 1.0)
    return 300.0 * 8**share


def followed(pitches, levels, duration: float, positions, wave=sine_wave, pulsing: bool = False) -> np.ndarray:
    """Voices (sines unless ``wave`` says) at ``pitches`` whose loudness follows ``levels`` (one row per pitch) across
    ``duration``, each at its pan position (a number, or an array over time for a voice that travels); ``pulsing``:
    the encoding's envelope, PULSE_HZ pulses a second (``pulses``)."""
    t = seconds(duration)
    levels = np.atleast_2d(np.asarray(levels, dtype=float))
    along = np.linspace(0, levels.shape[1] - 1, len(t))
    voices = [pan(np.interp(along, np.arange(levels.shape[1]), row) * wave(pitch * t), position)
              for pitch, row, position in zip(pitches, levels, positions)]
    sound = np.sum(voices, axis=0) / max(1, len(voices)) ** 0.5
    sound = sound * pulses(duration)[:, None] if pulsing else sound
    return low_pass(envelope(sound, decay=10 * duration, release=FOLLOWED_RELEASE), LAB_CUTOFF)


# The positional encoding's own envelope (every register and timbre is in use: its 300-2400 Hz sines lay over the
# values' blips and the similarity curve): its voices pulse, smoothly, six times a second, a hand turning, not a held
# tone; no other kind pulses (a run of blips is plucked notes, 0.12 s or more apart, each at its own pitch).
PULSE_HZ, PULSE_FLOOR = 6.0, 0.25  # pulses a second; the amplitude between two pulses, against their peak


def pulses(duration: float) -> np.ndarray:
    """The encoding's envelope: a raised cosine PULSE_HZ times a second, from PULSE_FLOOR to 1 (it starts at its
    peak, so the sound's attack is its own), held at its peak over its last pulse, so that the sound's release is a
    fade (``FOLLOWED_RELEASE``) and not a pulse cut short."""
    t = seconds(duration)
    depth = np.clip((duration - t) * PULSE_HZ - 1, 0.0, 1.0)  # 1 until the last two pulses, 0 over the last one
    return 1 - depth * (1 - PULSE_FLOOR) * (1 - np.cos(2 * np.pi * PULSE_HZ * t)) / 2


def traced(pitches, duration: float) -> np.ndarray:
    """A sine whose pitch follows ``pitches`` (spread evenly over ``duration``), travelling left to right with the
    curve being drawn; it fades out over its last FOLLOWED_RELEASE seconds."""
    t = seconds(duration)
    along = np.interp(np.linspace(0, len(pitches) - 1, len(t)), np.arange(len(pitches)), pitches)
    phase = np.cumsum(along) / SAMPLE_RATE  # the integral of the pitch: no jump where it moves fast
    sound = pan(sine_wave(phase), left_to_right(duration))
    return low_pass(envelope(sound, decay=10 * duration, release=FOLLOWED_RELEASE), LAB_CUTOFF)


def curve_tone(values, duration: float) -> np.ndarray:
    """A curve drawn from left to right: a tone travelling left to right whose pitch follows it on the values'
    scale (``legend.value_pitch``), its lowest point at 600 Hz and its highest at 2400 Hz."""
    values = np.asarray(values, dtype=float)
    spread_of_values = np.ptp(values)
    shares = (values - values.min()) / spread_of_values if spread_of_values > 0 else np.full(len(values), 0.5)
    return traced(value_pitch(shares), duration)


def left_to_right(duration: float) -> np.ndarray:
    """A pan position travelling from the left (first position) to the right (last) over ``duration``."""
    return np.linspace(-1.0, 1.0, len(seconds(duration)))


def sweep(angular_frequencies, values, duration: float) -> np.ndarray:
    """The encoding heard as it is drawn, position after position from left to right: each dimension at
    its pitch, loud where its value is high."""
    values = np.asarray(values, dtype=float)
    return followed(encoding_pitch(angular_frequencies), (values + 1) / 2, duration,
                    [left_to_right(duration)] * len(values), pulsing=True)


def contrast(angular_frequencies, values, duration: float = 1.5) -> np.ndarray:
    """Two dimensions compared: the fast one on the left, the slow one on the right (their boxes' sides)."""
    return followed(encoding_pitch(angular_frequencies), (np.asarray(values) + 1) / 2, duration,
                    spread(len(angular_frequencies), -0.8, 0.8), pulsing=True)




def capital_chord(weights, duration: float = 1.6) -> np.ndarray:
    """París (organ) and Roma (triangle), the two voices that move, on the first two rungs of the token ladder,
    each as loud as its probability and panned as its bar; the six other words one quiet "rest" voice on the third
    rung, a sine as loud as one of them (their mean probability: as loud as their sum, it drowned the winner), panned
    at the middle of their bars (six sines a semitone apart beat, 13-17 Hz)."""
    weights = np.asarray(weights, dtype=float)
    positions, (paris, rome, rest) = spread(len(weights)), ladder(3)
    voices = [pan(weights[0] * tone(paris, duration, organ_wave), positions[0]),
              pan(weights[1] * tone(rome, duration, triangle_wave), positions[1]),
              pan(weights[2:].mean() * tone(rest, duration), float(positions[2:].mean()))]
    return low_pass(envelope(np.sum(voices, axis=0), decay=duration / 2, attack=SWELL), LAB_CUTOFF)


IDENTICAL = 1e-9  # the largest difference of outputs that are the same numbers (floating-point rounding)


def comparison(max_difference: float, row: int = 0, duration: float = 1.5) -> np.ndarray:
    """Two voices, left and right, on the compared token's rung of the ladder (``row``: a sentence's rows compared
    one after the other climb it, not one pitch six times): a unison when the outputs are identical, an interval
    when not (at least a whole tone, never two notes that beat; an octave from a difference of 0.5 on)."""
    cents = 0.0 if max_difference <= IDENTICAL else max(200.0, 1200 * np.log2(1 + min(1.0, 2 * max_difference)))
    pitch = float(ladder(row + 1)[row])
    voices = pan(tone(pitch, duration, organ_wave), -0.7) + pan(tone(pitch, duration, organ_wave, cents), 0.7)
    return low_pass(envelope(voices, decay=duration / 2, attack=SWELL), LAB_CUTOFF)


def masked_row(before, after, duration: float = 2.0) -> np.ndarray:
    """The query's row as a chord (keys panned as their columns), then the masked keys fall silent: each
    voice goes from its weight without the mask to its weight with it."""
    levels = np.column_stack([before, before, after, after])
    return followed(ladder(len(before)), levels / levels.max(), duration, spread(len(before)), organ_wave)


WHOLE_TONE = 1 / 6  # octaves: the closest two voices of one chord may be (closer ones beat)


def entropy_cluster(bits: float, duration: float = 1.0, voices: int = 7) -> np.ndarray:
    """Up to seven sines spread evenly over ``bits`` octaves around 850 Hz (at most 2.5, down to 360 Hz): 0 bits is
    one tone; a narrow cluster has fewer voices, at least a whole tone apart."""
    width = min(bits, 2.5)
    voices = min(voices, 1 + int(width / WHOLE_TONE + 1e-9))
    octaves = np.linspace(-0.5, 0.5, voices) * width if voices > 1 else np.zeros(1)
    return low_pass(envelope(chord(850.0 * 2**octaves, np.ones(voices), duration), decay=duration / 2, attack=SWELL),
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
    "connection": lambda key, temperature=1.0, **_: connection_note(key, temperature),
    "masked": lambda before, after, **_: masked_row(before, after),
    "entropy": lambda free, masked, rows, **_: entropies_compared(entropy(np.asarray(free)[rows]),
                                                                  entropy(np.asarray(masked)[rows])),
    "tokens": lambda count, **_: token_arpeggio(count),
    "head_arcs": lambda head, weights, **_: head_chord(head, attended(weights)),
    "head_row": lambda head, weights, query=None, **_: (head_chord(head, weights, HEADS_SECONDS["head_row"])
                                                        if query is None else looking(head, weights, query)),
    "heads_overlay": lambda weights, **_: heads_in_turn([attended(w) for w in weights], HEADS_SECONDS["heads_overlay"]),
    "heads_sum": lambda weights, **_: distribution_chord(attended(weights)),
    "sum_row": lambda weights, **_: distribution_chord(weights),
    "heads_chord": lambda weights, **_: heads_in_turn(weights, HEADS_SECONDS["heads_chord"]),
    "cost": lambda **_: 0.5 * step_tone(0),
    "frequencies": lambda angular_frequencies, **_: followed(
        encoding_pitch(angular_frequencies[::2]), np.ones((len(angular_frequencies[::2]), 2)), 1.5,
        spread(len(angular_frequencies[::2])), pulsing=True),
    "position_sweep": lambda rows, angular_frequencies, duration, **_: sweep(
        angular_frequencies[::2], np.asarray(rows)[:, ::2].T, duration),
    "frequency_contrast": lambda angular_frequencies, values, **_: contrast(angular_frequencies, values),
    "wave": lambda angular_frequency, samples, duration, **_: followed(
        encoding_pitch([angular_frequency]), [(np.asarray(samples) + 1) / 2], duration, [left_to_right(duration)],
        pulsing=True),
    "similarity_curve": lambda similarities, duration, **_: curve_tone(similarities, duration),
    "curve": lambda values, duration, **_: curve_tone(values, duration),
    "vector_sum": lambda x_plus_pe, **_: value_blip(float(np.linalg.norm(x_plus_pe)), 0, 3),
    "outputs_compared": lambda max_difference, row=0, **_: comparison(max_difference, row),
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


HEARD_TOGETHER = GATE_BLOCK / SAMPLE_RATE  # seconds: sounds starting closer share one momentary loudness window
LONGEST_RUN = 30.0  # seconds: a run heard together is held in memory whole; past this a new one starts


def joins(run, cue, at: float) -> bool:
    """Whether ``cue`` at ``at`` is heard with the ``run`` before it ((cue, start, sound) each): a cue of its kind
    that starts before the last one's sound has ended or within the 400 ms a momentary loudness measures (blips 0.2 s
    apart, an attention row's lines 86 ms apart), or the next of a matrix's rows revealed one after another (one
    ``row_spacing``, not replayed), within LONGEST_RUN of the run's first."""
    if not run:
        return False
    last, start, sound = run[-1]
    if cue.kind != last.kind or cue.replay != last.replay or at - run[0][1] > LONGEST_RUN:
        return False
    spacing = cue.values.get("row_spacing")
    if spacing and not cue.replay and spacing == last.values.get("row_spacing"):
        return True
    return at < start + max(HEARD_TOGETHER, len(sound) / SAMPLE_RATE)


def heard_together(cues, times):
    """(cue, start, sound) runs of cues heard together (``joins``), every other cue a run of its own; one run's
    sounds in memory at a time."""
    run = []
    for cue, at in zip(cues, times):
        sound = MAPPINGS[cue.kind](**cue.values)
        if run and not joins(run, cue, at):
            yield run
            run = []
        run.append((cue, at, sound))
    if run:
        yield run


def placed(timeline: Timeline, cues, data_lufs: float) -> Timeline:
    """Every cue's sound at its time on ``timeline``, measured as heard in the room and set to its loudness
    (``cue_loudness``) with the data cues at ``data_lufs``. Sounds heard together (``heard_together``: a matrix's
    rows revealed close together, blips 0.2 s apart, a row's attention lines) are measured and set as one sound, at
    the loudest of their loudnesses, each in it at its own against the others (levelled alone, 2 s masked rows 0.2 s
    apart piled up to 9 LU over their level, five blips to 2.7; a temperature row's lines, each levelled alone and
    lowered by how many shared a window, left a peaked row 3 LU under a flat one)."""
    for run in heard_together(cues, staggered(cues)):
        (_, start, sound), loudness = run[0], [cue_loudness(cue, data_lufs) for cue, _, _ in run]
        if len(run) > 1:
            sound = together([sound for _, _, sound in run], [at - start for _, at, _ in run],
                             [level - max(loudness) for level in loudness])
        timeline.place(levelled(sound, max(loudness), roomed=True), start)
    return timeline


UNDUCKED = frozenset({"step", "reset"})  # markers heard over a voice: a step's bell sounds as its voice starts


def write_soundtrack(cues, duration: float, loudness_lufs: float, path: Path, voices=()) -> None:
    """Every cue's sound at its time and its kind's level on a stereo track exactly ``duration`` long, levelled
    against speech at ``loudness_lufs`` (``cue_gain_db``), in a light room (``in_room``), the narration's ``voices``
    ((start, mono samples) each) over it at that loudness with the tones ducked, but for the step and reset markers
    (``UNDUCKED``: a step's voice starts with its bell, which ducked 14 dB was lost under the first syllables),
    through the limiter, written to the WAV ``path``. Built on scratch files and limited a block at a time: memory
    holds a block and a cue's sound, however long the section runs."""
    length = int(round(duration * SAMPLE_RATE))
    apart = [cue for cue in cues if cue.kind in UNDUCKED] if voices else []
    with Track(length) as tones, Track(length if apart else 0) as markers:
        placed(Timeline(samples=tones), [cue for cue in cues if cue.kind not in UNDUCKED or not voices],
               cue_gain_db(loudness_lufs))
        placed(Timeline(samples=markers), apart, cue_gain_db(loudness_lufs))
        in_room(tones)
        in_room(markers)
        with with_voices(tones, voices, loudness_lufs) if voices else tones as mix:  # closing tones twice is harmless
            for start, block in blocks(markers):
                mix[start:start + len(block)] = mix[start:start + len(block)] + block
            write_wav_blocks((block for _, block in limited_blocks(mix)), path)


# Section 7 (``learned``) ------------------------------------------------------------------------------------
# * ``loss``: the training loss heard as it is drawn, a pitch that follows the curve from left to right on the
#   values' scale: 600 x 4^(loss / guess) Hz, guessing (``guess`` = ln V nats) at 2400 Hz and a loss of 0 at 600 Hz,
#   so that the sudden drop is heard as a sudden fall of the pitch. Its rows are the heads section's ``head_row``
#   (the previous-token head in head 1's register, the induction head in head 3's); the heads forming are heard as
#   their scores, ``cell`` blips on the 0-1 scale, before, during and after the drop.


def loss_pitch(losses, guess: float) -> np.ndarray:
    """600 x 4^(loss / guess) Hz (``legend.value_pitch``): two octaves from a perfect prediction (0) to guessing
    (ln V), clipped there."""
    return value_pitch(np.clip(np.asarray(losses, dtype=float) / guess, 0.0, 1.0))


add_sound("loss", lambda losses, guess, duration, **_: traced(loss_pitch(losses, guess), duration), DATA)
