"""The pipeline's sounds land with their picture (issue 26, listen report items 1, 2, 7): each data cue sounds at the
end of the play that shows what it announces (at the play's start that thing was not yet there, at its end it is),
the compared presets one after the other, never overlapping, and steps 1, 4 and 5 have a sound of their own.
Checked on the scene's state at the start and the end of every play (animations skipped, no video)."""

import numpy as np
import pytest
from manim import Scene, VGroup

from attn_math.attention import entropy
from scenes.pipeline import PipelineScene
from sonify.mappings import MAPPINGS
from sonify.synth import SAMPLE_RATE
from tests.scene_checks import FRAME, run_scene, shared_recorded
from tests.test_lab import literal_lab

LANDED = 0.95  # of full opacity: shown
ABSENT = 0.5  # at most, at the start of the play it lands in
LONGEST_LANDING = 1.5  # seconds: a compared map shows this fast, then its chord sounds
PAUSE = 0.2  # seconds of silence at least between two compared sounds


def opacity(scene, mobject) -> float:
    """How visible ``mobject`` is: its least opaque drawn part (a part still fading counts), 0 off the scene."""
    family = {id(part) for part in scene.get_mobject_family_members()}
    parts = [part for part in mobject.family_members_with_points()]
    if not parts or any(id(part) not in family for part in parts):
        return 0.0
    return min(max(part.get_fill_opacity(), part.get_stroke_opacity()) for part in parts)


def targets(scene) -> dict:
    """What each data cue announces, by (cue kind, step key, version): those built so far."""
    found = {}
    if hasattr(scene, "inputs"):
        found["tokens", "embeddings", None] = scene.inputs.tokens
    for kind, key, name in (("values", "scores", "scores"), ("values", "scaled", "scaled"), ("row", "softmax", "weights")):
        if hasattr(scene, name):  # every row, each sounding as it lands
            for i, row in enumerate(getattr(scene, name).matrix.entries):
                found[kind, key, i] = VGroup(*row)
    for preset, heatmap in getattr(scene, "preset_maps", {}).items():
        found["row", "presets", preset] = heatmap.matrix
    stage = getattr(scene, "presets_stage", None)
    if stage is not None and len(stage) == 4:  # the article's: sides, frames, rings, readouts
        for preset, readout in zip(("lab", "sharp"), stage[3]):
            found["row", "article", preset] = readout
    if hasattr(scene, "comparison"):
        for i, row in enumerate(scene.comparison.masked.matrix.entries):
            found["masked", "causal", i] = VGroup(*row)
    return found


@pytest.fixture(scope="module")
def watched():
    """The default pipeline run once; for every play its start and end time and each target's opacity then."""
    plays = []

    def update_to_time(scene, t):
        start = scene.renderer.time
        Scene.update_to_time(scene, 0)
        before = {key: opacity(scene, mobject) for key, mobject in targets(scene).items()}
        Scene.update_to_time(scene, t)
        after = {key: opacity(scene, mobject) for key, mobject in targets(scene).items()}
        plays.append((start, start + t, before, after))

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(PipelineScene, "update_to_time", update_to_time)
        scene = run_scene("pipeline")
    return scene, plays


def step_of(scene, time: float) -> str:
    """The key of the step on screen at ``time`` (a cue at a step's very start belongs to it)."""
    return [step.key for step in scene.steps if step.start - 0.7 <= time][-1]  # its header lands 0.6 s in


def data_cues(scene, kinds=("tokens", "values", "row", "masked")):
    """(cue, (kind, step, version)) of each data cue; a matrix row's (a row reveal's) version is its row: the rows
    sound in order, top to bottom."""
    found, rows = [], {}
    for cue in scene.cues:
        if cue.kind in kinds and not (cue.replay or cue.listen):  # a row heard again in the clear: no landing
            step, version = step_of(scene, cue.time), cue.values.get("version")
            if version is None and cue.kind in ("values", "row", "masked"):
                version = rows[cue.kind, step] = rows.get((cue.kind, step), -1) + 1
            found.append((cue, (cue.kind, step, version)))
    return found


def landing_play(plays, cue):
    """The play that ends as ``cue`` sounds: ``plays`` end after their run time, the clock (and the cue) where the
    play's last frame ends, within a frame after."""
    ending = [play for play in plays if play[1] > play[0] and -1e-6 < cue.time - play[1] < FRAME + 1e-6]
    assert ending, (cue.kind, cue.time)
    return ending[-1]


def test_every_data_cue_sounds_as_what_it_announces_lands(watched):
    """Step 1's tokens, each row of scores (4), of scaled scores (5) and of weights (6), each preset's map (8) and
    article readout (9), each row of masked weights (causal): absent or fading at the start of the play that ends at the cue,
    shown at its end. (Before: the masked chord and the presets' rows sounded as their fades began.)"""
    scene, plays = watched
    cues = data_cues(scene)
    for cue, key in cues:
        _, _, before, after = landing_play(plays, cue)
        assert before.get(key, 0.0) <= ABSENT and after.get(key, 0.0) >= LANDED, (key, cue.time, before, after)
    rows = range(len(scene.tokens))
    assert {key for _, key in cues} == {("tokens", "embeddings", None), *[(kind, step, i) for i in rows for kind, step in
                                                                        (("values", "scores"), ("values", "scaled"),
                                                                         ("row", "softmax"), ("masked", "causal"))],
                                       *[("row", step, preset) for step in ("presets", "article")
                                         for preset in ("lab", "sharp")]}


def test_the_presets_maps_and_readouts_land_fast_and_their_chords_never_overlap(watched):
    """Steps 8-9: each side shows in at most 1.5 s (a chord struck at a 6.8 s fade's start was heard long before
    its map), and the designed side's chord starts at least 0.2 s after the lab's has ended."""
    scene, plays = watched
    for step in ("presets", "article"):
        rows = [cue for cue, key in data_cues(scene, ("row",)) if key[1] == step]
        assert [cue.values["version"] for cue in rows] == ["lab", "sharp"], step
        for cue in rows:
            start, end, _, _ = landing_play(plays, cue)
            assert end - start <= LONGEST_LANDING + 1e-6, (step, cue.values["version"], end - start)
        lab, sharp = rows
        assert sharp.time >= lab.time + len(MAPPINGS["row"](**lab.values)) / SAMPLE_RATE + PAUSE, step


def test_the_query_row_of_scores_and_of_scaled_scores_is_heard_on_one_scale(watched):
    """Steps 4 and 5 read out the query's row shown, on one scale that covers both: the scaled row, divided by
    √d_k · T, is heard as many times narrower (its blips' pitches closer together)."""
    scene, _ = watched
    steps, q = scene.run.steps, scene.query
    values = {key[1]: cue.values for cue, key in data_cues(scene, ("values",)) if key[2] == q}
    assert values["scores"]["values"] == pytest.approx(steps.scores[q].tolist())
    assert values["scaled"]["values"] == pytest.approx(steps.scaled[q].tolist())
    assert (values["scores"]["low"], values["scores"]["high"]) == (values["scaled"]["low"], values["scaled"]["high"])
    assert values["scores"]["high"] >= np.abs(steps.scores).max()


def test_the_masked_chord_goes_from_the_free_row_to_the_masked_one(watched):
    """The causal step's chord: the query's weights without the mask, then with it (what its map shows)."""
    scene, _ = watched
    (cue, _), = [(cue, key) for cue, key in data_cues(scene, ("masked",)) if key[2] == scene.query]
    masked = scene.comparison.masked.matrix.values[scene.query]
    assert cue.values["after"] == pytest.approx(np.asarray(masked).tolist(), abs=0.006)
    assert entropy(np.asarray(cue.values["before"])) >= entropy(np.asarray(cue.values["after"]))


REVEALS = {"scores": "scores", "scaled": "scaled", "softmax": "weights", "causal": "weights_causal"}  # matrix names
LANDING_SLACK = 0.3  # seconds: a row's sound may come this long after its row has faded in, never before


def expected_rows(scene, step: str) -> list[dict]:
    """What each row of ``step``'s matrix sounds, computed from the lab by hand (tests/test_lab.literal_lab): the
    scores' and the scaled scores' values, the softmax's weights, the causal step's weights before and after."""
    sentence, temperature = " ".join(scene.tokens), scene.settings.temperature
    free, masked = literal_lab(sentence, temperature, False), literal_lab(sentence, temperature, True)
    scores = np.array(free["Q"]) @ np.array(free["K"]).T
    return {"scores": [{"values": row} for row in scores],
            "scaled": [{"values": row} for row in scores / (np.sqrt(8) * temperature)],
            "softmax": [{"weights": row} for row in free["weights"]],
            "causal": [{"before": before, "after": after}
                       for before, after in zip(free["weights"], masked["weights"])]}[step]


@pytest.mark.parametrize("step", REVEALS)
def test_each_row_sounds_its_own_values_as_it_fades_in(step):
    """Issue 44, less silence: steps 4-6 and 12 reveal their matrix row after row over 20-30 s, and only the query's
    row sounded (70-118 s of the default run was silent but for the step markers). Every row's sound lands 0 to
    0.3 s after the play that shows its numbers ends, with that row's numbers: the scores' and scaled scores' as
    blips, the softmax's as a row's chord, the causal step's as the masked chord; each row's sound once."""
    scene, log = shared_recorded("pipeline")
    plays = [entry[1] for entry in log if entry[0] == "play"]
    name, n = REVEALS[step], len(scene.tokens)
    shown = [next(play for play in plays if {(name, (i, j)) for j in range(n)} <= play.tags()) for i in range(n)]
    cues = [cue for cue in scene.cues if cue.kind in ("values", "row", "masked")
            and not (cue.replay or cue.listen)]
    for i, (play, expected) in enumerate(zip(shown, expected_rows(scene, step))):
        landing = [cue for cue in cues if -1e-6 <= cue.time - play.end <= LANDING_SLACK]
        assert len(landing) == 1, (step, i, play.end, [(cue.kind, cue.time) for cue in landing])
        for field, values in expected.items():
            assert landing[0].values[field] == pytest.approx(np.asarray(values).tolist(), abs=1e-6), (step, i, field)
