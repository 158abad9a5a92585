"""LaTeX typeset once per user, not once per output folder: every formula's SVG kept in the user's own cache.

manim keeps what LaTeX and dvisvgm made in its Tex folder, which is a section's cache inside each output folder
(``lecture.render.jobs``), so a render into a new folder typesets every formula again: two programs run per
formula, about 5 s of a tiny render of the matrix section (21 formulas). The store is a private folder
(``lesson.user_cache``: ``$XDG_CACHE_HOME/atencion/tex-…``), one SVG per formula, named by a hash of the whole TeX
file (template and expression), the compiler, the output format and the versions of the compiler and of
dvisvgm. An entry is read relative to the folder's descriptor and used only if it parses as SVG; it is copied
into manim's Tex folder under manim's own name (written under a temporary name, then renamed), so manim goes on
as if it had typeset it. A formula not in the store is typeset by manim and then kept, written under a
temporary name and renamed, so concurrent renders never read half an entry.
"""

from __future__ import annotations

import hashlib
import os
import re
import secrets
import subprocess
import xml.etree.ElementTree as ElementTree
from functools import cache
from pathlib import Path

from manim import config
from manim.mobject.text import tex_mobject
from manim.utils.tex import TexTemplate
from manim.utils.tex_file_writing import generate_tex_file, tex_to_svg_file

from lesson.user_cache import PrivateFolder, open_entry, private_folder, trim, write_entry

STORE_VERSION = 1  # raise when what an entry holds changes
MOST_ENTRIES = 4_000  # a formula's SVG takes about 10 kB: at most some 40 MB; past it the least used half goes
ENTRY = re.compile(r"[0-9a-f]{40}\.svg")


def install() -> None:
    """Make manim's Tex and MathTex take their SVGs through the store (once per process)."""
    tex_mobject.tex_to_svg_file = stored_svg


def stored_svg(expression: str, environment: str | None = None, tex_template: TexTemplate | None = None) -> Path:
    """manim's ``tex_to_svg_file``: the SVG of ``expression`` in manim's Tex folder, from the store when it is there."""
    template = tex_template or config["tex_template"]
    tex_file = generate_tex_file(expression, environment, template)
    svg = tex_file.with_suffix(".svg")
    folder = store_folder()
    if svg.exists() or folder is None:
        return tex_to_svg_file(expression, environment, template)
    name = entry_name(tex_file.read_bytes(), template)
    try:
        with open_entry(folder, name) as file:
            content = file.read()
        _check_svg(content)
        _write_beside(svg, content)
        return svg
    except (OSError, ElementTree.ParseError, ValueError):  # missing, damaged or not ours: typeset it again
        made = tex_to_svg_file(expression, environment, template)
    content = made.read_bytes()
    if write_entry(folder, name, lambda file: file.write(content)):
        trim(folder, ENTRY, MOST_ENTRIES)
    return made


def entry_name(tex: bytes, template: TexTemplate) -> str:
    """The store's name for the SVG of the TeX file ``tex``: sha256 over it, the output format and the programs that
    typeset it, each with its version."""
    compilers = template.tex_compiler if isinstance(template.tex_compiler, list) else [template.tex_compiler]
    digest = hashlib.sha256(tex + b"\0" + template.output_format.encode())
    for program in (*compilers, "dvisvgm"):
        digest.update(b"\0" + program.encode() + b"\0" + version_of(program).encode())
    return f"{digest.hexdigest()[:40]}.svg"


@cache
def version_of(program: str) -> str:
    """The first line ``program --version`` prints ('' for a program that is missing)."""
    try:
        printed = subprocess.run([program, "--version"], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        return ""
    return printed.splitlines()[0] if printed else ""


@cache
def store_folder() -> PrivateFolder | None:
    """Our private store, made if missing; None when another user could change it (see ``lesson.user_cache``)."""
    return private_folder(f"tex-{STORE_VERSION}")


def _check_svg(content: bytes) -> None:
    if not ElementTree.fromstring(content).tag.endswith("svg"):
        raise ValueError("not an SVG")


def _write_beside(path: Path, content: bytes) -> None:
    """``content`` written to ``path`` through a temporary name beside it, then renamed over it."""
    temporary = path.with_name(f".{path.name}-{secrets.token_hex(8)}")
    try:
        temporary.write_bytes(content)
        os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)
