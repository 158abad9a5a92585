"""Make manim's copies of text cheap: imported for its effect by every scene module.

Every animation deep-copies the mobjects it moves, and a glyph of Text or MathTex carries the
parsed SVG path it was built from. Copying that path was 80% of the copy time (a caption took
0.14 s to copy, five times what it does with the path shared). The path is only read while the
glyph's points are generated, never changed afterwards, so copies can share it.
"""

from manim.mobject.mobject import Mobject
from manim.mobject.svg.svg_mobject import VMobjectFromSVGPath


def _deepcopy_sharing_the_parsed_path(self, memo):
    memo[id(self.path_obj)] = self.path_obj
    return Mobject.__deepcopy__(self, memo)


VMobjectFromSVGPath.__deepcopy__ = _deepcopy_sharing_the_parsed_path
