"""A deck as a reveal.js page that needs no network: reveal.js and the clips are beside the page
(``NAME.html`` and ``NAME_assets/``, its clips hard links to those in ``slides/files`` where the file system
allows) or, with ``one_file``, embedded in it."""

from __future__ import annotations

import base64
import shutil
from importlib import resources
from pathlib import Path

from jinja2 import Environment
from markupsafe import Markup

from lecture.publish import revealjs
from lecture.publish.decks import Deck
from lecture.render.output_folder import link_or_copy
from lesson.locale import load_locale

TEMPLATE = resources.files("lecture.publish") / "templates" / "deck.html"
LAYOUT_WIDTH = 1280  # CSS pixels reveal.js lays a slide's text out in, then scales to the screen


def write_html(deck: Deck, target: Path, one_file: bool, theme: str = revealjs.THEMES[0]) -> list[Path]:
    """Write ``deck`` to ``target`` in reveal.js' ``theme``; returns what was written (the page, and its assets
    folder unless ``one_file``). Raises ``revealjs.RevealMissing`` before writing when reveal.js is not set up."""
    reveal, styles = revealjs.installed(), revealjs.styles(theme)
    clips = [step.clip for section in deck.sections for step in section.steps]
    if one_file:
        page = _render(deck, styles=[Markup(f"<style>{_text(reveal / name)}</style>") for name in styles],
                       scripts=[Markup(f"<script>{_text(reveal / name)}</script>") for name in revealjs.SCRIPTS],
                       video_attribute="data-clip", videos={clip: f"clip-{n}" for n, clip in enumerate(clips)},
                       embedded=[(f"clip-{n}", base64.b64encode(clip.read_bytes()).decode("ascii"))
                                 for n, clip in enumerate(clips)])
        target.write_text(page, encoding="utf-8")
        return [target]
    assets = target.with_name(f"{target.stem}_assets")
    videos = {step.clip: f"{assets.name}/{section.stem}/{step.clip.name}"
              for section in deck.sections for step in section.steps}
    for clip, name in videos.items():
        link_or_copy(clip, target.parent / name)  # a second name of the clip in slides/files, not a copy
    for name in (*styles, *revealjs.SCRIPTS, "LICENSE"):  # copies: the installed files are not ours
        _copy(reveal / name, assets / "reveal.js" / name)
    page = _render(deck, styles=[Markup(f'<link rel="stylesheet" href="{assets.name}/reveal.js/{name}">')
                                 for name in styles],
                   scripts=[Markup(f'<script src="{assets.name}/reveal.js/{name}"></script>')
                            for name in revealjs.SCRIPTS],
                   video_attribute="data-background-video", videos=videos, embedded=[])
    target.write_text(page, encoding="utf-8")
    return [target, assets]


def _render(deck: Deck, **parts) -> str:
    """The page; its title slides are laid out at one size whatever the videos' resolution."""
    environment = Environment(autoescape=True, trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True)
    return environment.from_string(TEMPLATE.read_text(encoding="utf-8")).render(
        deck=deck, layout_width=LAYOUT_WIDTH, layout_height=round(LAYOUT_WIDTH * deck.height / deck.width),
        strings=load_locale(deck.lang)["slides"], **parts)


def _text(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def _copy(source: Path, target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(source, target)
