"""Fades that only change opacity: what FadeIn/FadeOut without a shift draw, at half the cost.

manim's FadeIn and FadeOut are Transforms: they deep-copy the mobject twice and interpolate every
point of it on every frame, though no point moves. Clearing a stage of three matrices took 0.75 s
that way and 0.36 s here, where each part's opacities are kept once and scaled frame by frame.
``lag_ratio`` staggers the parts as it does in manim. ``Swap`` fades an old number out, then a new one in.
"""

from __future__ import annotations

from manim import Animation, VGroup, VMobject


class _OpacityFade(Animation):
    def __init__(self, *mobjects: VMobject, appear: bool, **kwargs):
        mobject = mobjects[0] if len(mobjects) == 1 else VGroup(*mobjects)
        super().__init__(mobject, introducer=appear, remover=not appear, **kwargs)
        self.appear = appear
        self.faded = mobjects
        self.parts: list[tuple] = []

    def begin(self) -> None:
        self.parts = [(part, part.fill_rgbas[:, 3].copy(), part.stroke_rgbas[:, 3].copy(),
                       part.background_stroke_rgbas[:, 3].copy())
                      for part in self.mobject.family_members_with_points() if isinstance(part, VMobject)]
        super().begin()

    def create_starting_mobject(self):
        return self.mobject  # the opacities kept in begin() are the only starting state needed

    def get_all_families_zipped(self):
        return [(part,) for part in self.parts]

    def interpolate_submobject(self, part, alpha: float) -> None:
        mobject, fill, stroke, background = part
        self._show(mobject, fill, stroke, background, alpha if self.appear else 1.0 - alpha)

    def clean_up_from_scene(self, scene) -> None:
        self._on_finish(scene)
        if not self.appear:
            # Each faded mobject, not the VGroup gathering several: that group is not on the scene, and
            # removing it would leave the parts on screen (a matrix's numbers, say, under new ones).
            scene.remove(*self.faded)
        for mobject, fill, stroke, background in self.parts:  # as FadeOut does: removed, but intact
            self._show(mobject, fill, stroke, background, 1.0)

    @staticmethod
    def _show(mobject, fill, stroke, background, share: float) -> None:
        mobject.fill_rgbas[:, 3] = fill * share
        mobject.stroke_rgbas[:, 3] = stroke * share
        mobject.background_stroke_rgbas[:, 3] = background * share


class Appear(_OpacityFade):
    """FadeIn(mobject): opacity from 0 to what each part has."""

    def __init__(self, *mobjects: VMobject, **kwargs):
        super().__init__(*mobjects, appear=True, **kwargs)


class Vanish(_OpacityFade):
    """FadeOut(mobject): opacity to 0, then removed from the scene with its opacities restored."""

    def __init__(self, *mobjects: VMobject, **kwargs):
        super().__init__(*mobjects, appear=False, **kwargs)


class Swap(Animation):
    """Fade the number ``old`` out in the first half of the play, then ``new`` in where it already stands.

    Never both at once: two numbers cross-faded in one place read as neither ("0.02" over "0.05"). For numbers
    this reads better than ReplacementTransform's glyph morph, and it leaves nothing
    behind: ReplacementTransform also adds its target to the scene on its own, a copy on screen that stays
    when the group holding it is later replaced. ``new`` is already in its group on screen; ``old``,
    already taken out of it, is on screen only for the fade.
    """

    def __init__(self, old, new, **kwargs):
        self.old = old
        super().__init__(new, **kwargs)

    def _setup_scene(self, scene) -> None:
        super()._setup_scene(scene)
        scene.add(self.old)

    def create_starting_mobject(self):
        return self.mobject  # interpolate_mobject needs no starting state

    def interpolate_mobject(self, alpha: float) -> None:
        self.old.set_opacity(max(0.0, 1 - 2 * alpha))
        self.mobject.set_opacity(max(0.0, 2 * alpha - 1))

    def clean_up_from_scene(self, scene) -> None:
        super().clean_up_from_scene(scene)
        scene.remove(self.old)
