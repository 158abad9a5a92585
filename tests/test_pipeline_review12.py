"""Review s12 («06 pipeline», grade 8), its first item: three stretches of 8-9 s with no voice and nothing new, at the
end of steps «scores», «causal» and «entropy»: the step's key sound, fallen under the voice, was replayed after it
while a light circled the finished screen, then the screen held 4 s. Each key sound is now heard in a listening moment
where the voice invites it (the voice pausing, the picture moving with the sound), so nothing is replayed and the step
ends with its voice and its hold. Measured on the narrated scene (a stand-in voice at the narration's pace); the
numbers heard are recomputed here from the lab's weights."""

import math

import numpy as np
import pytest

from attn_math.lab import lab_embedding, lab_weights
from scenes.lesson_scene import FINISHED_HOLD
from tests.scene_checks import stills_in
from tests.test_pipeline_review9 import SENTENCE, plays_in, spoken, step  # noqa: F401 (spoken: a fixture)

STEPS = ("scores", "causal", "entropy")
QUERY = 1  # «gato», the lab's default query
END_SLACK = 1.0  # s after the voice's end and the hold: the voice's tail and a frame or two
CLEAR_OF_THE_VOICE = 0.1  # s: a listening moment's sound starts at least this long after the phrase before it ended


def attention(causal: bool) -> tuple[np.ndarray, np.ndarray]:
    """(QKᵀ, softmax(QKᵀ/√d_k + mask)) of the lab's sentence, written out here from the lab's weights."""
    weights = lab_weights()
    X = np.array([lab_embedding(token, i) for i, token in enumerate(SENTENCE)])
    Q, K = X @ weights.W_Q.T, X @ weights.W_K.T
    scores = Q @ K.T
    scaled = scores / math.sqrt(Q.shape[1])
    if causal:
        scaled[np.triu_indices(len(SENTENCE), 1)] = -np.inf
    A = np.exp(scaled - scaled.max(axis=1, keepdims=True))
    return scores, A / A.sum(axis=1, keepdims=True)


def cues_in(scene, record):
    return [cue for cue in scene.cues if record.start <= cue.time < record.end]


def voice_end(record) -> float:
    return record.narration["start"] + record.narration["seconds"]


@pytest.mark.parametrize("key", STEPS)
def test_nothing_is_replayed_and_the_step_ends_with_its_voice_and_hold(spoken, key):
    """The review measured 7.7-9.1 s from the voice's end to the step's end (replay and light, then the 4 s hold)."""
    scene, _ = spoken
    record = step(scene, key)
    assert [cue.kind for cue in cues_in(scene, record) if cue.replay] == []
    assert record.end - voice_end(record) <= FINISHED_HOLD + END_SLACK


@pytest.mark.parametrize("key", STEPS)
def test_the_key_sound_is_heard_in_a_listening_moment_between_two_phrases(spoken, key):
    """The voice stops for the key sound after the phrase that invites it and goes on after it: no phrase overlaps
    the listening moment, a phrase ends before it and one starts after it."""
    scene, _ = spoken
    record = step(scene, key)
    [(start, end)] = record.narration["listening"]
    phrases = record.narration["phrases"]
    assert all(finish <= start + 1e-6 or begin >= end - 1e-6 for _, begin, finish, _ in phrases)
    before = [(text, finish) for text, _, finish, _ in phrases if finish <= start + 1e-6]
    assert before and any(word in before[-1][0].lower() for word in ("escucha", "listen", "hear"))
    assert any(begin >= end - 1e-6 for _, begin, _, _ in phrases)
    heard = [cue for cue in cues_in(scene, record) if cue.listen]
    assert heard and all(before[-1][1] + CLEAR_OF_THE_VOICE <= cue.time <= end for cue in heard)


def test_the_scores_listening_moment_is_the_querys_row(spoken):
    """Step 4: the query's row of QKᵀ (recomputed) in the clear."""
    scene, _ = spoken
    record = step(scene, "scores")
    scores, _ = attention(causal=False)
    [heard] = [cue for cue in cues_in(scene, record) if cue.listen]
    assert heard.kind == "values"
    np.testing.assert_allclose(heard.values["values"], scores[QUERY], atol=1e-9)


def test_the_causal_listening_moment_is_the_first_row_losing_its_future(spoken):
    """Step 12: «hear its chord shrink to a single note»: the first row's weights without the mask, then with it (one
    weight, 1, on itself), recomputed."""
    scene, _ = spoken
    record = step(scene, "causal")
    _, free = attention(causal=False)
    _, masked = attention(causal=True)
    [heard] = [cue for cue in cues_in(scene, record) if cue.listen]
    assert heard.kind == "masked"
    np.testing.assert_allclose(heard.values["before"], free[0], atol=1e-9)
    np.testing.assert_allclose(heard.values["after"], masked[0], atol=1e-9)
    assert np.count_nonzero(np.asarray(heard.values["after"]) > 1e-9) == 1


def test_the_entropy_listening_moment_is_the_four_clusters(spoken):
    """Step 13: the two rows' entropies without and with the mask, as the pairs land."""
    scene, _ = spoken
    record = step(scene, "entropy")
    [heard] = [cue for cue in cues_in(scene, record) if cue.listen]
    assert heard.kind == "entropy" and heard.values["rows"] == [0, 3]


@pytest.mark.parametrize("key", STEPS)
def test_the_picture_moves_with_the_sound(spoken, key):
    """The listening moment is no still: plays run through it (the row's cells lit one by one, the frame crossing
    from the unmasked row to the masked one, the entropy pairs landing), and the step has no still over 6 s."""
    scene, log = spoken
    record = step(scene, key)
    [(start, end)] = record.narration["listening"]
    moving = sum(max(0.0, min(play.end, end) - max(play.start, start)) for play in plays_in(log, record)
                 if not play.waits)
    assert moving >= 0.6 * (end - start)
    assert stills_in(scene, key) == []
