"""Make manim cheaper where our scenes spend their time: imported for its effect by every scene module.

Copies of text: every animation deep-copies the mobjects it moves, and a glyph of Text or MathTex
carries the parsed SVG path it was built from. Copying that path was 80% of the copy time (a caption
took 0.14 s to copy, five times what it does with the path shared). The path is only read while the
glyph's points are generated, never changed afterwards, so copies can share it.

Drawing: for every shape on every frame, manim's Cairo camera asks where its subpaths split, with
fancy indexing that costs more than the comparison itself on a glyph's hundred points. The same
comparison on slices takes two thirds of the time (tests check the answers are identical).

Memory: every frame is a fresh array of width x height x 4 bytes (3.7 MB at 720p, 33 MB at 2160p), made in
the drawing thread and freed in an encoder's thread. glibc serves such blocks from its heaps once its
adaptive threshold has risen past them, and the heaps of several threads fragment: a section's peak grew
with its length (pipeline at 480p: 565 MB to 954 MB over the render). Served by mmap instead, a freed frame
goes back to the system at once (the same render: 695 MB), and ``release_free_memory`` hands back what the
heaps still keep free between steps.
"""

import ctypes
import ctypes.util

import numpy as np
from manim import VMobject
from manim.mobject.mobject import Mobject
from manim.mobject.svg.svg_mobject import VMobjectFromSVGPath

manims_subpath_split_indices = VMobject.get_subpath_split_indices_from_points


def _deepcopy_sharing_the_parsed_path(self, memo):
    memo[id(self.path_obj)] = self.path_obj
    return Mobject.__deepcopy__(self, memo)


def subpath_split_indices(self, points, n_dims: int = 3):
    """[start, end) point ranges of the subpaths: a split wherever a curve's end anchor is not within
    tolerance (np.isclose's rule, NaN never close, equal infinities close) of the next curve's start."""
    nppcc = self.n_points_per_cubic_curve
    n_points = len(points)
    if n_points < nppcc:
        return np.empty((0, 2), dtype=int)
    starts = points[nppcc::nppcc, :n_dims]
    if len(starts) == 0:
        return np.array([[0, n_points]])
    ends = points[nppcc - 1:n_points - 1:nppcc, :n_dims]
    with np.errstate(invalid="ignore"):
        gaps = np.abs(ends - starts)
        close = gaps <= self.tolerance_for_point_equality + 1.0e-5 * np.abs(starts)
        finite = np.isfinite(gaps)
        if not finite.all():
            close &= finite
            close |= ends == starts
    splits = (np.flatnonzero(~close.all(axis=1)) + 1) * nppcc
    bounds = np.empty((len(splits) + 1, 2), dtype=int)
    bounds[0, 0], bounds[-1, 1] = 0, n_points
    bounds[1:, 0] = splits
    bounds[:-1, 1] = splits
    return bounds


M_MMAP_THRESHOLD = -3  # mallopt's parameter (malloc.h)
MMAP_THRESHOLD = 1 << 20  # bytes: blocks this large (a frame, a soundtrack block) are mapped, never kept in a heap


def _libc():
    """glibc, or None where the C library is another (musl, macOS): there the allocator is left as it is."""
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c"))
        return libc if hasattr(libc, "mallopt") and hasattr(libc, "malloc_trim") else None
    except OSError:
        return None


LIBC = _libc()


def release_free_memory() -> None:
    """Give back to the system what glibc's heaps hold free (a step's freed mobjects and frames)."""
    if LIBC is not None:
        LIBC.malloc_trim(0)


VMobjectFromSVGPath.__deepcopy__ = _deepcopy_sharing_the_parsed_path
VMobject.get_subpath_split_indices_from_points = subpath_split_indices
if LIBC is not None:
    LIBC.mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD)  # a fixed threshold: glibc no longer raises it past frames
