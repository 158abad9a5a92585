"""A narrated step's key sound, heard again at full level once its voice has ended.

Under a voice the cues are ducked (``mix.DUCK_DB``), so a step's data would be heard only faintly. Its key sound
(its last data cue, with the cues of that kind before it in the step, as many as fit in REPLAY_SECONDS played one
after the other) sounds again REPLAY_GAP after the voice has ended, at its kind's level, while the step's finished
picture is on screen: that picture shows every value the replayed cues carry, so the sound repeats what is seen and
contradicts nothing. The scene holds the step until the replay has ended."""

from __future__ import annotations

from sonify.mappings import MAPPINGS, SEQUENCE_GAP
from sonify.synth import SAMPLE_RATE

NOT_DATA = frozenset({"step", "reset", "scale"})  # markers and scale references: no value of the step's own
REPLAY_GAP = 0.3  # seconds of quiet between the voice's end and the replay (the ducking's ramp takes 0.08)
REPLAY_SECONDS = 5.0  # the most a replay of several cues lasts; a single cue plays whole however long


def sound_seconds(cue) -> float:
    """How long the cue's sound lasts (``cue`` has ``kind`` and ``values``)."""
    return len(MAPPINGS[cue.kind](**cue.values)) / SAMPLE_RATE


def key_cues(cues) -> list:
    """The step's key sound among ``cues`` (the step's, in time order): its last data cue and, before it, the
    step's cues of the same kind that fit in REPLAY_SECONDS when played one after the other; in time order."""
    data = [cue for cue in cues if cue.kind not in NOT_DATA]
    if not data:
        return []
    chosen, seconds = [], -SEQUENCE_GAP
    for cue in reversed([cue for cue in data if cue.kind == data[-1].kind]):
        turn = sound_seconds(cue) + SEQUENCE_GAP
        if chosen and seconds + turn > REPLAY_SECONDS:
            break
        chosen.insert(0, cue)
        seconds += turn
    return chosen


def replay_times(cues, start: float) -> tuple[list[float], float]:
    """Start times of ``cues`` played one after the other from ``start`` (SEQUENCE_GAP of quiet between two),
    and when the last one ends."""
    times, at = [], start
    for cue in cues:
        times.append(at)
        at += sound_seconds(cue) + SEQUENCE_GAP
    return times, at - SEQUENCE_GAP
