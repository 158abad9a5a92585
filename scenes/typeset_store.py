"""Typeset labels kept on disk between processes: every section's render (and each save in watch mode) is
a fresh process, and typesetting a caption (Pango, then parsing its SVG) takes about 120 ms where loading
the finished label takes a few. A tiny render of the matrix section typesets some 60 labels.

The store is a private folder in the user's own cache (``lesson.user_cache``: ``$XDG_CACHE_HOME/atencion/
typeset-…``, never the output folder, which others may write to), one file per label named by a hash of
everything that shapes it and of the versions of manim and Pango that drew it. The folder is checked once per
process and every entry is opened relative to its descriptor, so swapping a folder on its path mid-render
redirects nothing.

An entry is data, never code: an .npz read with ``allow_pickle=False`` that holds the label's mobjects as JSON
(each one's class, from a short list, and its attributes: numbers, text, colours, and references to other
mobjects and to arrays) and the arrays themselves (points, colours, …) as one flat array per dtype. Loading
rebuilds the same mobjects, sharing what the typeset label shared, so a loaded label is the typeset one; an
entry that does not load is typeset again and replaced. Writes go to a temporary name and are renamed, so
concurrent renders never read half an entry.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections.abc import Callable
from functools import cache
from pathlib import Path

import manim
import manimpango
import numpy as np
from manim import ManimColor, MarkupText, Mobject, VGroup
from manim.constants import CapStyleType, LineJointType
from manim.mobject.svg.svg_mobject import VMobjectFromSVGPath

from lesson.user_cache import PrivateFolder, open_entry, private_folder, trim, write_entry

STORE_VERSION = 2  # raise when what a stored label holds changes
MOST_ENTRIES = 2_000  # a caption takes about 10 kB: at most some 20 MB; past it the least used half goes
ENTRY = re.compile(r"[0-9a-f]{40}\.npz")  # the names we write, and only those are trimmed
STATE = "state"  # the .npz member holding the JSON; the others are the flat arrays, named by dtype
CLASSES = {cls.__name__: cls for cls in (MarkupText, VGroup, VMobjectFromSVGPath)}
ENUMS = {cls.__name__: cls for cls in (CapStyleType, LineJointType)}
NUMBER_KINDS = "biuf"  # bool, int, unsigned, float: the only dtypes stored
LEFT_OUT = {"path_obj"}  # stored as None: the parsed SVG path a glyph's points were made from, read only then


class Unstorable(TypeError):
    """A value with no place in an entry: the label is used, just not kept."""


def stored(key: tuple, make: Callable[[], Mobject]) -> Mobject:
    """``make()``, or what it returned for ``key`` in an earlier process."""
    folder = store_folder()
    if folder is None:
        return make()
    name = f"{hashlib.sha256(repr(key).encode()).hexdigest()[:40]}.npz"
    try:
        return _loaded(folder, name)
    except Exception:  # missing, truncated, not ours to read, or from an incompatible version: typeset it again
        made = make()
    _keep(made, folder, name)
    return made


@cache
def font_installed(font: str) -> bool:
    """Whether Pango has ``font``: part of a label's key, so shapes typeset in a stand-in font before the
    font was installed are not used after."""
    return font in manimpango.list_fonts()


@cache
def store_folder() -> PrivateFolder | None:
    """Our private store, made if missing; None when another user could change it (see ``lesson.user_cache``)."""
    return private_folder(f"typeset-{STORE_VERSION}-manim-{manim.__version__}-pango-{manimpango.__version__}")


def _loaded(folder: PrivateFolder, name: str) -> Mobject:
    with open_entry(folder, name) as file, np.load(file, allow_pickle=False) as entry:
        state = json.loads(entry[STATE].tobytes())
        flat = {member: entry[member] for member in entry.files if member != STATE}
    return Decoder(state, flat).root()


def _keep(made: Mobject, folder: PrivateFolder, name: str) -> None:
    try:
        state, flat = Encoder(made).entry()
    except Unstorable:
        return
    # compressed: a tenth of the size (about 10 kB a caption) and no slower to load
    stored_state = np.frombuffer(json.dumps(state, separators=(",", ":")).encode(), np.uint8)
    if write_entry(folder, name, lambda file: np.savez_compressed(file, **{STATE: stored_state}, **flat)):
        trim(folder, ENTRY, MOST_ENTRIES)  # a full disk costs only the time a stored label saves


class Encoder:
    """A mobject as JSON-ready state and flat arrays: ``state["mobjects"][0]`` is the mobject, each as its class
    and attributes; ``{"mobject": i}`` and ``{"array": i}`` refer to entries of ``state["mobjects"]`` and
    ``state["arrays"]`` (an array's dtype, offset in the flat array of that dtype, and shape), so what the
    mobject shares stays shared; tuples, dicts, colours, enums, numpy scalars and paths are tagged likewise."""

    def __init__(self, root: Mobject):
        self.mobjects: list[Mobject] = []
        self.arrays: list[np.ndarray] = []
        self.index: dict[int, int] = {}  # id of a mobject or array -> its place in its list
        self.root = root

    def entry(self) -> tuple[dict, dict[str, np.ndarray]]:
        states = []
        self.mobject(self.root)
        while len(states) < len(self.mobjects):  # encoding one mobject may find more
            mobject = self.mobjects[len(states)]
            states.append({"class": type(mobject).__name__,
                           "attributes": {name: None if name in LEFT_OUT else self.value(value)
                                          for name, value in vars(mobject).items()}})
        flat, filled, table = {}, {}, []
        for array in self.arrays:
            dtype = array.dtype.str
            table.append([dtype, filled.get(dtype, 0), list(array.shape)])
            flat.setdefault(dtype, []).append(array.ravel())
            filled[dtype] = table[-1][1] + array.size
        return {"mobjects": states, "arrays": table}, {dtype: np.concatenate(chunks) for dtype, chunks in flat.items()}

    def value(self, value):
        kind = type(value)
        if value is None or kind in (bool, int, float, str):
            return value
        if kind is list:
            return [self.value(item) for item in value]
        if kind is tuple:
            return {"tuple": [self.value(item) for item in value]}
        if kind is dict and all(type(name) is str for name in value):
            return {"dict": {name: self.value(item) for name, item in value.items()}}
        if kind in ENUMS.values():
            return {"enum": [kind.__name__, value.name]}
        if kind is ManimColor:
            return {"colour": value.to_rgba().tolist()}
        if isinstance(value, np.generic) and value.dtype.kind in NUMBER_KINDS:
            return {"scalar": [value.dtype.str, value.item()]}
        if kind is np.ndarray and value.dtype.kind in NUMBER_KINDS:
            return {"array": self.place(value, self.arrays)}
        if isinstance(value, Path):
            return {"path": str(value)}
        if kind in CLASSES.values():
            return {"mobject": self.mobject(value)}
        raise Unstorable(f"a {kind.__name__} in a typeset label")

    def mobject(self, mobject: Mobject) -> int:
        return self.place(mobject, self.mobjects)

    def place(self, item, items: list) -> int:
        """``item``'s index in ``items``, where it is added the first time it is met."""
        if id(item) not in self.index:
            self.index[id(item)] = len(items)
            items.append(item)
        return self.index[id(item)]


class Decoder:
    """The mobject an ``Encoder`` stored: each mobject made without its ``__init__`` (nothing is typeset) and
    given its attributes, as ``copy.deepcopy`` does. Only the classes, enums and dtypes listed above are made."""

    def __init__(self, state: dict, flat: dict[str, np.ndarray]):
        # copies: each array owns its memory, as a typeset label's do, whatever is later done to it in place
        self.arrays = [flat[dtype][offset:offset + math.prod(shape)].reshape(shape).copy()
                       for dtype, offset, shape in state["arrays"]]
        self.mobjects = [object.__new__(CLASSES[entry["class"]]) for entry in state["mobjects"]]
        for mobject, entry in zip(self.mobjects, state["mobjects"]):
            mobject.__dict__.update({name: self.value(value) for name, value in entry["attributes"].items()})

    def root(self) -> Mobject:
        return self.mobjects[0]

    def value(self, value):
        if type(value) is list:
            return [self.value(item) for item in value]
        if type(value) is not dict:
            return value
        ((tag, content),) = value.items()
        if tag == "tuple":
            return tuple(self.value(item) for item in content)
        if tag == "dict":
            return {name: self.value(item) for name, item in content.items()}
        if tag == "enum":
            return ENUMS[content[0]][content[1]]
        if tag == "colour":
            return ManimColor(np.array(content, dtype=float))
        if tag == "scalar":
            return self.scalar(*content)
        if tag == "array":
            return self.arrays[content]
        if tag == "path":
            return Path(content)
        if tag == "mobject":
            return self.mobjects[content]
        raise ValueError(f"unknown tag {tag!r}")

    @staticmethod
    def scalar(dtype: str, number):
        if np.dtype(dtype).kind not in NUMBER_KINDS:
            raise ValueError(f"a scalar of dtype {dtype}")
        return np.dtype(dtype).type(number)
