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
mobjects and to arrays) and the arrays themselves (points, colours, …) as one flat array per dtype. A glyph's
thirty-odd attributes are mostly the same as every other glyph's, so the JSON lists each distinct value once and
each mobject as the numbers of its values: a caption's JSON a twentieth the size, loaded in a third the time. Loading
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
from manim.typing import ManimColorDType
from manim.constants import CapStyleType, LineJointType
from manim.mobject.svg.svg_mobject import VMobjectFromSVGPath

from lesson.user_cache import PrivateFolder, open_entry, private_folder, trim, write_entry

STORE_VERSION = 3  # raise when what a stored label holds changes
MOST_ENTRIES = 2_000  # a caption takes about 10 kB: at most some 20 MB; past it the least used half goes
ENTRY = re.compile(r"[0-9a-f]{40}\.npz")  # the names we write, and only those are trimmed
STATE, ROWS, TABLE = "state", "rows", "table"  # .npz members (see Encoder); the others are flat arrays, named by dtype
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
        arrays = {member: entry[member] for member in entry.files if member != STATE}
    return Decoder(state, arrays).root()


def _keep(made: Mobject, folder: PrivateFolder, name: str) -> None:
    try:
        state, arrays = Encoder(made).entry()
    except Unstorable:
        return
    # compressed: a tenth of the size (about 10 kB a caption) and no slower to load
    stored_state = np.frombuffer(json.dumps(state, separators=(",", ":")).encode(), np.uint8)
    if write_entry(folder, name, lambda file: np.savez_compressed(file, **{STATE: stored_state}, **arrays)):
        trim(folder, ENTRY, MOST_ENTRIES)  # a full disk costs only the time a stored label saves


class Encoder:
    """A mobject as JSON-ready state and arrays. ``arrays[ROWS]`` lists the mobjects, the label first: each as the
    number of its shape in ``state["shapes"]`` (its class and attribute names), then one number per attribute:
    ``n >= 0`` for ``state["values"][n]``, ``n < 0`` for the array ``-1 - n``. ``arrays[TABLE]`` lists the arrays
    (points, colours, …): the number of its dtype in ``state["dtypes"]``, its offset in that dtype's flat array
    (``arrays[dtype]``), its number of dimensions, its shape. Inside a value, ``{"mobject": i}`` and
    ``{"array": i}`` refer to a mobject and an array, so what the label shares stays shared; tuples, dicts,
    colours, enums, numpy scalars and paths are tagged likewise."""

    def __init__(self, root: Mobject):
        self.mobjects: list[Mobject] = []
        self.arrays: list[np.ndarray] = []
        self.index: dict[int, int] = {}  # id of a mobject or array -> its place in its list
        self.root = root

    def entry(self) -> tuple[dict, dict[str, np.ndarray]]:
        shapes, values, rows = Numbered(), Numbered(), []
        self.mobject(self.root)
        for mobject in self.mobjects:  # encoding one mobject may find more, met later in this loop
            attributes = vars(mobject)
            rows.append(shapes.number([type(mobject).__name__, list(attributes)]))
            rows.extend(values.number(None) if name in LEFT_OUT else self.number(value, values)
                        for name, value in attributes.items())
        dtypes, flat, table = Numbered(), {}, []
        for array in self.arrays:
            chunks = flat.setdefault(array.dtype.str, [])
            table += [dtypes.number(array.dtype.str), sum(chunk.size for chunk in chunks), array.ndim, *array.shape]
            chunks.append(array.ravel())
        state = {"shapes": shapes.items, "values": values.items, "dtypes": dtypes.items}
        return state, {ROWS: np.array(rows, dtype=np.int64), TABLE: np.array(table, dtype=np.int64),
                       **{dtype: np.concatenate(chunks) for dtype, chunks in flat.items()}}

    def number(self, value, values: Numbered) -> int:
        """An attribute's number in a row: an array's ``-1 - place``, any other value's place in ``values``."""
        if type(value) is np.ndarray and value.dtype.kind in NUMBER_KINDS:
            return -1 - self.place(value, self.arrays)
        return values.number(self.value(value))

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


class Numbered:
    """Distinct JSON values, each numbered the first time it is met."""

    def __init__(self):
        self.items: list = []
        self.numbers: dict[str, int] = {}

    def number(self, value) -> int:
        key = json.dumps(value, separators=(",", ":"))
        if key not in self.numbers:
            self.numbers[key] = len(self.items)
            self.items.append(value)
        return self.numbers[key]


class Decoder:
    """The mobject an ``Encoder`` stored: each mobject made without its ``__init__`` (nothing is typeset) and
    given its attributes, as ``copy.deepcopy`` does. Only the classes, enums and dtypes listed above are made."""

    def __init__(self, state: dict, arrays: dict[str, np.ndarray]):
        self.arrays, table, at = [], arrays[TABLE].tolist(), 0
        while at < len(table):
            dtype, offset, dimensions = table[at:at + 3]
            shape, at = table[at + 3:at + 3 + dimensions], at + 3 + dimensions
            # copies: each array owns its memory, as a typeset label's do, whatever is later done to it in place
            self.arrays.append(arrays[state["dtypes"][dtype]][offset:offset + math.prod(shape)].reshape(shape).copy())
        shapes = [(CLASSES[name], attributes) for name, attributes in state["shapes"]]
        rows, starts, at = arrays[ROWS].tolist(), [], 0
        while at < len(rows):
            starts.append(at)
            at += 1 + len(shapes[rows[at]][1])
        if not starts or at != len(rows):
            raise ValueError("the rows end inside a mobject")
        self.mobjects = [object.__new__(shapes[rows[start]][0]) for start in starts]
        values = state["values"]
        # a value that nothing can change is made once and shared; lists, dicts and colours are made for each use
        made = {number for number, value in enumerate(values) if self.changeable(value)}
        shared = [None if number in made else self.value(value) for number, value in enumerate(values)]
        for mobject, start in zip(self.mobjects, starts):
            attributes = shapes[rows[start]][1]
            mobject.__dict__.update(zip(attributes, [
                self.arrays[-1 - number] if number < 0 else self.value(values[number]) if number in made
                else shared[number] for number in rows[start + 1:start + 1 + len(attributes)]]))

    @classmethod
    def changeable(cls, value) -> bool:
        """Whether the value ``value`` stands for can be changed in place (a list, a dict, a colour, or a tuple
        holding one)."""
        if type(value) is list:
            return True
        if type(value) is not dict or len(value) != 1:
            return False
        ((tag, content),) = value.items()
        return tag in ("dict", "colour") or (tag == "tuple" and any(cls.changeable(item) for item in content))

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
        if tag == "colour":  # made as manim copies one (ManimColor's checks cost more than the rest of a glyph)
            colour = ManimColor.__new__(ManimColor)
            colour._internal_value = np.array(content, dtype=ManimColorDType)
            return colour
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
