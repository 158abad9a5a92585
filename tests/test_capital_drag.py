"""The capital section's drag (issue 43): while the country's identity is dragged, every number on screen (the
slider's readout, the eight bars' values, the panel's prediction, probability and loss) belongs to the one
identity the slider shows, checked against a numpy forward pass written here from the model's matrices."""

import math

import numpy as np
import pytest
from manim import DL

from attn_math.capital import EMBEDDINGS, VOCAB, W_K, W_Q, W_V, W_out
from lesson.config import load_config
from lesson.locale import load_locale
from lesson.numbers import parse_number
from scenes.capital import CapitalScene
from tests.scene_checks import run_scene

CAPITAL = load_locale("es")["capital"]
IDENTITY_ENDS = {"france": 1.0, "italy": -1.0}


def normalized_residual(identity: float) -> np.ndarray:
    """LN(softmax(q_es K^T / sqrt(3)) V + x_es) for «La capital de <país> es», the country row (2, 0, identity)."""
    words = np.array([EMBEDDINGS["the"], EMBEDDINGS["capital"], EMBEDDINGS["of"], [2.0, 0.0, identity],
                      EMBEDDINGS["is"]])
    position = np.arange(5)[:, None]
    X = words + np.hstack([np.sin(position), np.cos(position), np.sin(position / 10000 ** (2 / 3))])
    scaled = (X @ W_K) @ (X[-1] @ W_Q) / np.sqrt(3)
    weights = np.exp(scaled - scaled.max()) / np.exp(scaled - scaled.max()).sum()
    residual = weights @ (X @ W_V) + X[-1]
    centred = residual - residual.mean()
    return centred / np.sqrt(np.mean(centred**2))


def next_word_probs(identity: float) -> np.ndarray:
    """softmax((LN(r(identity)) - LN(r(0))) W_out): the output bias sets every logit to 0 with no country."""
    logits = (normalized_residual(identity) - normalized_residual(0.0)) @ W_out
    return np.exp(logits - logits.max()) / np.exp(logits - logits.max()).sum()


def outline(mobject) -> np.ndarray:
    """Points along every cubic curve of a text, relative to its lower left corner: the same for the same glyphs
    wherever they stand, however a transform subdivided their curves."""
    t = np.linspace(0.0, 1.0, 5)[:, None]
    bernstein = np.hstack([(1 - t) ** 3, 3 * (1 - t) ** 2 * t, 3 * (1 - t) * t**2, t**3])  # (5, 4)
    curves = np.vstack([member.points.reshape(-1, 4, 3) for member in mobject.get_family() if len(member.points)])
    return (bernstein @ curves).reshape(-1, 3) - mobject.get_corner(DL)


def same_glyphs(one: np.ndarray, other: np.ndarray, tolerance: float = 1e-3) -> bool:
    """Every point of each outline within ``tolerance`` (of a frame 8 high) of the other outline."""
    distances = np.linalg.norm(one[:, None, :] - other[None, :, :], axis=-1)
    return bool(distances.min(axis=1).max() < tolerance and distances.min(axis=0).max() < tolerance)


def numbers_shown(scene) -> dict:
    """The drag stage's numbers and word as written: identity, the eight bars' values, prediction, p and loss."""
    prediction, probability, loss = (row.value for row in scene.readouts)
    return {"identity": scene.slider.readout.value, "bars": list(scene.chart.value_texts),
            "prediction": prediction, "probability": probability, "loss": loss}


def text_of(mobject) -> str:
    return getattr(mobject, "shown_text", None) or mobject.text


def number_outlines(scene) -> list[np.ndarray]:
    """The outline of every number and word of the drag stage, in numbers_shown's order."""
    shown = numbers_shown(scene)
    return [outline(text) for text in [shown["identity"], *shown["bars"], shown["prediction"], shown["probability"],
                                        shown["loss"]]]


def moves_the_bars(scene) -> bool:
    """Whether the play just run (``scene.animations``) moved the distribution's bars: a drag's increment."""
    return any(animation.mobject is bar for animation in scene.animations for bar in scene.chart.bars)


def drag_states(*overrides: str) -> list[dict]:
    """For every play of a drag (it moves the bars): the numbers written as it ends, the marker's and the bars'
    geometry then, and whether every number kept its glyphs through the play (no number morphing into the next)."""
    states = []
    play = CapitalScene.play

    def watched_play(scene, *animations, **options):
        before = number_outlines(scene) if hasattr(scene, "slider") else None
        play(scene, *animations, **options)
        if before is None or not moves_the_bars(scene):
            return
        shown = numbers_shown(scene)
        after = number_outlines(scene)
        track = scene.slider.track
        states.append({"written": {key: [text_of(text) for text in value] if key == "bars" else text_of(value)
                                   for key, value in shown.items()},
                       "kept_glyphs": all(same_glyphs(one, other) for one, other in zip(before, after, strict=True)),
                       "marker_share": (scene.slider.marker.get_x() - track.get_start()[0])
                                       / (track.get_end()[0] - track.get_start()[0]),
                       "bar_heights": np.array([bar.height for bar in scene.chart.bars]),
                       "framed_x": scene.prediction_frame.get_x(),
                       "frame_opacity": scene.prediction_frame.get_stroke_opacity(),
                       "label_xs": [label.get_x() for label in scene.chart.labels]})

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(CapitalScene, "play", watched_play)
        run_scene("capital", *overrides)
    return states


@pytest.fixture(scope="module", params=[(), ("capital.identity=-0.37",)], ids=["francia", "off_grid"])
def drag(request):
    """The default drag (Francia's +1 to −1, then 0, +0.90 and −0.90) and one from an identity off the 0.25 grid."""
    return request.param, drag_states(*request.param)


def start_identity(overrides) -> float:
    """The identity the section's config starts the drag from: capital.identity, else its country's."""
    capital = load_config(overrides=overrides).capital
    return capital.identity if capital.identity is not None else IDENTITY_ENDS[capital.country]


def test_the_drag_visits_both_ends_the_tie_and_the_mirror_pair(drag):
    overrides, states = drag
    visited = [parse_number(state["written"]["identity"]) for state in states]
    start = start_identity(overrides)
    near = math.copysign(1.0, start)
    assert 0 < abs(visited[0] - start) <= 0.25 + 0.005  # the first increment from where the config starts
    assert {near, -near, 0.0, 0.9, -0.9} <= {start, *visited}
    assert visited[-1] == -0.9
    mirror = visited[len(visited) - 1 - visited[::-1].index(0.9):]  # from +0.90 to −0.90, the mirror step's drag
    assert mirror == [-identity for identity in mirror[::-1]]  # opposite stops: 0.23 and −0.23, not 0.22


def test_every_number_at_the_end_of_each_drag_play_belongs_to_the_slider_value(drag):
    """Before the fix the panel kept the previous identity's prediction, p and loss while the bars showed the
    next one: at «0.25» the bars read 0.125 (identity 0) and the panel París 0.178."""
    for state in drag[1]:
        written = state["written"]
        identity = parse_number(written["identity"])
        probs = next_word_probs(identity)
        best = int(np.argmax(probs))
        tie = np.ptp(probs) < 1e-12
        word = CAPITAL["labels"]["tie"] if tie else CAPITAL["words"][VOCAB[best]]
        context = f"slider at {written['identity']}: {written}"
        np.testing.assert_allclose([parse_number(value) for value in written["bars"]], probs, atol=0.0005,
                                   err_msg=context)
        assert written["prediction"] == word, context
        assert parse_number(written["probability"]) == pytest.approx(probs[best], abs=0.0005), context
        assert parse_number(written["loss"]) == pytest.approx(-math.log(probs[best]), abs=0.005), context


def test_the_marker_bars_and_frame_stand_where_the_slider_value_puts_them(drag):
    for state in drag[1]:
        identity = parse_number(state["written"]["identity"])
        probs = next_word_probs(identity)
        assert state["marker_share"] == pytest.approx((identity + 1) / 2, abs=1e-6)
        np.testing.assert_allclose(state["bar_heights"] / probs, state["bar_heights"][0] / probs[0], rtol=1e-6)
        best = int(np.argmax(probs))
        assert state["framed_x"] == pytest.approx(state["label_xs"][best], abs=1e-6)
        assert state["frame_opacity"] == (0.0 if np.ptp(probs) < 1e-12 else 1.0)


def test_no_number_changes_while_the_bars_move(drag):
    """Every number takes its new value as a drag play starts and keeps its glyphs through it: before the fix
    the bars' values morphed digit into digit for the whole play while the panel waited for its end."""
    assert all(state["kept_glyphs"] for state in drag[1])


def marker_share(scene) -> float:
    """Where the slider's marker stands on its track, 0 at Italia's end and 1 at Francia's."""
    track = scene.slider.track
    return (scene.slider.marker.get_x() - track.get_start()[0]) / (track.get_end()[0] - track.get_start()[0])


def test_the_knob_stands_at_the_value_its_readout_shows_on_every_frame():
    """Review 43: the knob lagged its readout. The readout (with the bars' values and the panel) took the next
    identity on an increment's first frame, the knob glided there over the next frames: at 30 fps the first three
    frames of every increment showed the knob at the previous identity. Every drawn frame of every drag play is
    stepped through here (as a drawn render steps manim's animations) and the knob read against the readout."""
    frames = []
    scene_class = CapitalScene

    def time_progression(scene, run_time, description, n_iterations=None, override_skip_animations=False):
        drawn = override_skip_animations or hasattr(scene, "slider")  # every frame from the drag stage on
        return progression(scene, run_time, description, n_iterations, drawn)

    def update_to_time(scene, t):
        update(scene, t)
        if hasattr(scene, "slider") and moves_the_bars(scene):
            frames.append((parse_number(text_of(scene.slider.readout.value)), marker_share(scene)))

    progression, update = scene_class.get_time_progression, scene_class.update_to_time
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(scene_class, "get_time_progression", time_progression)
        patch.setattr(scene_class, "update_to_time", update_to_time)
        run_scene("capital", steps=None)
    assert len(frames) > 100  # 30 increments of 12 frames
    lagging = [(identity, share) for identity, share in frames if abs(share - (identity + 1) / 2) > 1e-6]
    assert lagging == [], f"{len(lagging)} of {len(frames)} frames, e.g. readout, knob share: {lagging[:3]}"
