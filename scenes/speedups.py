"""Make manim cheaper where our scenes spend their time: imported for its effect by every scene module.

Copies of text: every animation deep-copies the mobjects it moves, and a glyph of Text or MathTex
carries the parsed SVG path it was built from. Copying that path was 80% of the copy time (a caption
took 0.14 s to copy, five times what it does with the path shared). The path is only read while the
glyph's points are generated, never changed afterwards, so copies can share it.

Copies, again: manim deep-copies a mobject attribute by attribute through ``copy.deepcopy``, whose bookkeeping
costs more than the copying for the values a mobject holds (numbers, strings, small arrays, lists of submobjects,
colours). Those are now copied directly, sharing kept as ``deepcopy`` keeps it, anything else still through it
(tested: the same attributes, arrays and sharing as manim's): a caption's copy 2.8 ms instead of 5.5 ms, a whole
scene with animations skipped 4-5 % faster (pipeline, capital).

Families: manim lists a mobject's family (itself and everything below it) recursively, removing repeats again
at every level of the tree, and asks for families on every play and every frame. One walk and at most one
pass to remove repeats give the same list (tested against manim's on trees with shared parts) in 13 % less
time for a whole scene (pipeline, animations skipped: 5.4 s to 4.7 s).

Edges: every placement (``next_to``, ``align_to``, ``get_top`` …) asks for the anchors of a mobject's whole family,
which manim gathers point by point into Python tuples and back into an array (10 % of a scene run). Slicing the
points array of each member and joining them gives the same array (tested against manim's on glyphs, shapes,
groups and empty mobjects).

Drawing: for every shape on every frame, manim's Cairo camera asks where its subpaths split, with
fancy indexing that costs more than the comparison itself on a glyph's hundred points. The same
comparison on slices takes two thirds of the time (tests check the answers are identical).

Memory: every frame is a fresh array of width x height x 4 bytes (3.7 MB at 720p, 33 MB at 2160p), made in
the drawing thread and freed in an encoder's thread. glibc serves such blocks from its heaps once its
adaptive threshold has risen past them, and the heaps of several threads fragment: a section's peak grew
with its length (pipeline at 480p: 565 MB to 954 MB over the render). Served by mmap instead, a freed frame
goes back to the system at once (the same render: 695 MB), and ``release_free_memory`` hands back what the
heaps still keep free between steps. Above 1080p the largest thing a worker holds is x264's lookahead (about
25 MB a frame at 2160p in each of its two encoders): 10 frames instead of 40 took the pipeline at 2160p60 from
2937 MB to 1661 MB. A GIF is made in two passes, so its frames are never held all at once.
"""

import copy
import ctypes
import ctypes.util
import enum
from pathlib import Path

import av
import numpy as np
from manim import ManimColor, VMobject, config
from manim.mobject.mobject import Mobject
from manim.mobject.svg.svg_mobject import VMobjectFromSVGPath
from manim.scene.scene_file_writer import SceneFileWriter, to_av_frame_rate
from manim.utils.iterables import remove_list_redundancies

from lesson.formats import GIF, MP4

manims_subpath_split_indices = VMobject.get_subpath_split_indices_from_points
manims_get_family = Mobject.get_family
manims_boundary_points = VMobject.get_points_defining_boundary
manims_deepcopy = Mobject.__deepcopy__
KEPT = frozenset({bool, int, float, str, type(None), np.float64})  # immutable: a copy is the value itself
manims_open_partial_movie_stream = SceneFileWriter.open_partial_movie_stream
manims_combine_files = SceneFileWriter.combine_files


def _deepcopy_sharing_the_parsed_path(self, memo):
    memo[id(self.path_obj)] = self.path_obj
    return Mobject.__deepcopy__(self, memo)


def mobject_deepcopy(self, memo: dict) -> Mobject:
    """manim's ``Mobject.__deepcopy__``: a new mobject whose attributes are deep copies, what was shared staying
    shared (through ``memo``); numbers, strings, enums, numeric arrays, lists of mobjects and colours copied here,
    anything else by ``copy.deepcopy``."""
    result = self.__class__.__new__(self.__class__)
    memo[id(self)] = result
    copied = result.__dict__
    for name, value in self.__dict__.items():
        kind = type(value)
        if kind in KEPT or isinstance(value, enum.Enum):
            copied[name] = value
        elif id(value) in memo:
            copied[name] = memo[id(value)]
        elif kind is np.ndarray and value.dtype.kind in "biuf":
            copied[name] = memo[id(value)] = value.copy(order="K")
        elif kind is list and all(isinstance(item, Mobject) for item in value):
            items = copied[name] = memo[id(value)] = []
            items.extend(memo[id(item)] if id(item) in memo else item.__deepcopy__(memo) for item in value)
        elif kind is ManimColor and all(type(part) is np.ndarray for part in vars(value).values()):
            colour = copied[name] = memo[id(value)] = ManimColor.__new__(ManimColor)
            colour.__dict__.update({key: part.copy() for key, part in vars(value).items()})
        else:
            copied[name] = copy.deepcopy(value, memo)
    result.original_id = str(id(self))
    return result


def family_in_one_walk(self, recurse: bool = True) -> list[Mobject]:
    """manim's ``get_family``: the mobject and its submobjects depth first, a mobject met twice kept at its last
    place."""
    walked, waiting = [], [self]
    while waiting:
        mobject = waiting.pop()
        walked.append(mobject)
        waiting.extend(reversed(mobject.submobjects))
    return walked if len(set(walked)) == len(walked) else remove_list_redundancies(walked)


def boundary_points(self) -> np.ndarray:
    """manim's ``get_points_defining_boundary`` for a VMobject: the start and end anchor of every curve of every
    member of its family, in order, (n, 3); a member of one point adds that point; an empty result has shape (0,)."""
    anchors = []
    for member in self.get_family():
        points, step = member.points, getattr(member, "n_points_per_cubic_curve", None)
        if step is None or len(points) % step:  # not a VMobject, or a partial curve: manim's own error or answer
            anchors.append(np.asarray(member.get_anchors()).reshape(-1, points.shape[-1]))
        elif len(points):
            anchors.append(np.stack((points[::step], points[step - 1::step]), axis=1).reshape(-1, points.shape[-1]))
    anchors = [part for part in anchors if len(part)]
    return np.concatenate(anchors) if anchors else np.array(())


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


LARGE_FRAME = 1920 * 1080  # pixels: above this, x264's lookahead is the largest thing a worker holds
LOOKAHEAD_FRAMES = "10"  # x264's default 40 frames of lookahead took 1.4 GB per encoder at 2160p; 10 take 0.65 GB


def open_partial_movie_stream_with_short_lookahead(self, *arguments, **options) -> None:
    """manim's, with x264 looking ahead LOOKAHEAD_FRAMES frames on frames larger than LARGE_FRAME (set before the
    first frame opens the encoder)."""
    manims_open_partial_movie_stream(self, *arguments, **options)
    context = self._current_encode_job.stream.codec_context
    if context.name == "libx264" and config.pixel_width * config.pixel_height > LARGE_FRAME:
        context.options = {**context.options, "rc-lookahead": LOOKAHEAD_FRAMES}


GIF_PALETTE = "stats_mode=diff"  # manim's palettegen and paletteuse settings, kept
GIF_DITHER = "dither=bayer:bayer_scale=5:diff_mode=rectangle"


def combine_files_into_a_gif_a_frame_at_a_time(self, input_files, output_file, create_gif=False,
                                               includes_sound=False) -> None:
    """manim's, but a GIF is made in two passes over the joined movie (``gif_in_two_passes``): manim's one pass
    held every frame of the section until the palette was known at its end (0.9 MB a frame at 480x270)."""
    if not create_gif:
        manims_combine_files(self, input_files, output_file, False, includes_sound)
        return
    movie = Path(output_file).with_name(Path(output_file).stem + "-frames" + MP4.suffix)
    manims_combine_files(self, input_files, movie, False, False)
    try:
        gif_in_two_passes(movie, Path(output_file))
    finally:
        movie.unlink(missing_ok=True)


def gif_in_two_passes(movie: Path, gif: Path) -> None:
    """The GIF of ``movie``: its palette from every frame (palettegen keeps statistics, not frames), then each
    frame mapped to that palette as it is decoded again."""
    palette = _palette_of(movie)
    with av.open(str(movie)) as source, av.open(str(gif), "w") as target:
        video = source.streams.video[0]
        stream = target.add_stream(GIF.video_codec, rate=to_av_frame_rate(config.frame_rate))
        stream.width, stream.height, stream.pix_fmt = video.width, video.height, "rgb8"
        graph = av.filter.Graph()
        frames = graph.add_buffer(template=video)
        colours = graph.add_buffer(width=palette.width, height=palette.height, format=palette.format.name,
                                   time_base=video.time_base)
        use = graph.add("paletteuse", GIF_DITHER)
        frames.link_to(use, 0, 0)
        colours.link_to(use, 0, 1)
        use.link_to(graph.add("buffersink"))
        graph.configure()
        palette.pts = 0
        colours.push(palette)
        colours.push(None)
        written = 0
        for frame in source.decode(video):
            frames.push(frame)
            written = _mux_gif_frames(graph, stream, target, written)
        frames.push(None)
        _mux_gif_frames(graph, stream, target, written)
        target.mux(stream.encode(None))


def _palette_of(movie: Path):
    """The 256-colour palette of every frame of ``movie`` (one 16x16 frame)."""
    with av.open(str(movie)) as source:
        graph = av.filter.Graph()
        frames = graph.add_buffer(template=source.streams.video[0])
        palette = graph.add("palettegen", GIF_PALETTE)
        frames.link_to(palette)
        palette.link_to(graph.add("buffersink"))
        graph.configure()
        for frame in source.decode(video=0):
            frames.push(frame)
            try:  # asked for its output, the graph takes the frame in (pushed alone, frames wait in a queue)
                graph.pull()
            except av.error.BlockingIOError:  # no palette before the last frame
                pass
        frames.push(None)
        return graph.pull()


def _mux_gif_frames(graph, stream, target, written: int) -> int:
    """Encode what the graph has ready, numbered on from ``written``; the count written so far."""
    while True:
        try:
            frame = graph.pull()
        except (av.error.BlockingIOError, av.error.EOFError):
            return written
        if stream.codec_context.time_base is not None:  # known once the encoder opens at its first frame
            frame.time_base = stream.codec_context.time_base
        frame.pts = written
        target.mux(stream.encode(frame))
        written += 1


def release_free_memory() -> None:
    """Give back to the system what glibc's heaps hold free (a step's freed mobjects and frames)."""
    if LIBC is not None:
        LIBC.malloc_trim(0)


VMobjectFromSVGPath.__deepcopy__ = _deepcopy_sharing_the_parsed_path
Mobject.__deepcopy__ = mobject_deepcopy
Mobject.get_family = family_in_one_walk
VMobject.get_subpath_split_indices_from_points = subpath_split_indices
VMobject.get_points_defining_boundary = boundary_points
SceneFileWriter.open_partial_movie_stream = open_partial_movie_stream_with_short_lookahead
SceneFileWriter.combine_files = combine_files_into_a_gif_a_frame_at_a_time
if LIBC is not None:
    LIBC.mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD)  # a fixed threshold: glibc no longer raises it past frames
