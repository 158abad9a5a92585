"""Capital's residual and layer-norm step sounds what it builds (issue 44: every build that shows a change has a
sound; the step was silent): r = context + x_es is heard as its three numbers land, then LN(r) as it lands, both
as values on the scale X, Q, K, V and the context share, so the listener hears r's spread drawn in."""

import numpy as np
import pytest

from scene_checks import recorded
from sonify.legend import KIND_QUANTITIES


@pytest.fixture(scope="module")
def capital():
    return recorded("capital")


def layer_norm_cues(scene, log):
    """(cue, the play after it) for every data cue of the layer-norm step."""
    step = next(record for record in scene.steps if record.key == "layer_norm")
    found = []
    for index, entry in enumerate(log):
        if entry[0] != "cue":
            continue
        cue = scene.cues[entry[1]]
        if step.start <= cue.time < step.end and cue.kind not in ("step", "scale"):
            following = next(later[1] for later in log[index + 1:] if later[0] == "play" and not later[1].waits)
            found.append((cue, following))
    return found


def test_the_residual_and_its_layer_norm_sound_as_they_land(capital):
    scene, log = capital
    walk = scene.walk
    residual = walk.context + walk.X[-1]  # the residual connection, redone here
    normalized = (residual - residual.mean()) / residual.std()  # layer norm without gain or bias
    vectors = np.concatenate([np.ravel(m) for m in (walk.X, walk.Q, walk.K, walk.V, walk.context)])
    pairs = layer_norm_cues(scene, log)
    assert [cue.kind for cue, _ in pairs] == ["values", "values"]
    assert all(KIND_QUANTITIES[cue.kind] == ("value",) for cue, _ in pairs)
    for (cue, play), expected, name in zip(pairs, (residual, normalized), ("residual", "normalized")):
        np.testing.assert_allclose(cue.values["values"], expected, atol=1e-9)
        assert (cue.values["low"], cue.values["high"]) == pytest.approx((vectors.min(), vectors.max()))
        assert (name, (0, 0)) in play.tags(), f"the {name} cue's next play writes something else"
        assert cue.time == pytest.approx(play.end, abs=1e-6), f"{name}: heard at {cue.time:.2f} s, lands {play.end:.2f} s"
