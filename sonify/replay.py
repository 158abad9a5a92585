"""A narrated step's key sound, heard again at full level once its voice has ended.

Under a voice the cues are ducked (``mix.DUCK_DB``), so a step's data would be heard only faintly. Its key sound
sounds again REPLAY_GAP after the voice has ended, at its kind's level, while the step's finished picture is on
screen, and it must repeat what that picture shows: the last data cue of the step, and before it
* for a computed cell (which stays written where it landed), the step's other cells, as many as fit in
  REPLAY_SECONDS played one after the other: the finished table shows every one of them;
* for a sound whose picture is redrawn in place (a row's bars, a distribution, an attention line), only the cues
  heard back to back with it (two panels compared, a head after another), each panel or head once: the earlier
  states are gone from the screen, so they are not replayed (scaling's last two d_k each played their pair of
  panels: the replay played both pairs, 8 s alike, over a frame that shows the last one).
A data cue the scene marks ``heard_next`` is not replayed: the next step plays that figure in the clear, in a
listening moment after the voice's invitation (matrix's followed row, then the softmax's rows of A).
The scene holds the step until the replay has ended."""

from __future__ import annotations

from sonify.mappings import MAPPINGS, SEQUENCE_GAP
from sonify.synth import SAMPLE_RATE

NOT_DATA = frozenset({"step", "reset", "scale"})  # markers and scale references: no value of the step's own
REPLAY_GAP = 0.3  # seconds of quiet between the voice's end and the replay (the ducking's ramp takes 0.08)
REPLAY_SECONDS = 5.0  # the most a replay of several cues lasts; a single cue plays whole however long


def sound_seconds(cue) -> float:
    """How long the cue's sound lasts (``cue`` has ``kind`` and ``values``)."""
    return len(MAPPINGS[cue.kind](**cue.values)) / SAMPLE_RATE


STAYS_ON_SCREEN = frozenset({"cell"})  # kinds whose picture stays where it landed for the rest of the step
BACK_TO_BACK = 0.1  # seconds of slack: a cue starting this soon after the one before has ended follows it


def panel(cue):
    """What a redrawn cue's picture stands on: its compared panel (``version``) or its head, None if neither."""
    return cue.values.get("version", cue.values.get("head"))


def key_cues(cues) -> list:
    """The step's key sound among ``cues`` (the step's, in time order): its last data cue, or the last one a scene
    marked ``key_sound`` (what the voice ends on: the heads' mean row, after the head it dilutes); of that kind the last
    one a scene marked ``replayed`` (the query's row among a matrix's rows, each heard as it came), and the cues of
    its kind before it that the finished picture still shows (see the module's docstring), in time order."""
    data = [cue for cue in cues if cue.kind not in NOT_DATA]
    if not data or data[-1].values.get("heard_next"):
        return []
    key = max((index for index, cue in enumerate(data) if cue.values.get("key_sound")), default=len(data) - 1)
    same = [cue for cue in data[:key + 1] if cue.kind == data[key].kind]
    marked = [index for index, cue in enumerate(same) if cue.values.get("replayed")]
    same = same[:marked[-1] + 1] if marked else same
    chosen, seconds = [same[-1]], sound_seconds(same[-1])
    for cue in reversed(same[:-1]):
        turn = sound_seconds(cue) + SEQUENCE_GAP
        follows = cue.time + turn + BACK_TO_BACK >= chosen[0].time
        redrawn = cue.kind not in STAYS_ON_SCREEN and panel(cue) is not None and panel(cue) in map(panel, chosen)
        if seconds + turn > REPLAY_SECONDS or redrawn or not (cue.kind in STAYS_ON_SCREEN or follows):
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
