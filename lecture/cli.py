"""The command line: `atencion` (installed) or `python render.py`; with no command it renders every section.

The CLI only parses, validates and hands a plain request to ``lecture.render.runner``.
"""

from __future__ import annotations

from pathlib import Path

import click
from click.core import ParameterSource
from rich.console import Console

from lecture.batch.run import batch_command
from lecture.cli_options import (JOBS_OPTION, OUT_OPTION, RERUN_OPTIONS, OneLineErrors, check_system, fail,
                                 run_guarded, split_set_hint)
from lecture.folder_config import folder_config, folder_quality
from lecture.render.jobs import QUALITIES, Quality
from lecture.render.preflight import memory_problem
from lecture.publish.revealjs import RevealMissing, installed as revealjs_installed
from lecture.render.runner import RenderRequest, chosen_steps, render as run_render
from lecture.publish.script import build as build_script
from lecture.publish.site import build as build_site
from lecture.publish.slides import DECK_FORMATS, build as build_slides
from lecture.publish.storyboard import build as build_storyboards
from lecture.watch import WatchRequest, watch as run_watch
from lesson.config import ConfigError, load_config, suggestion, toml_value
from lesson.config_dump import documented_toml
from lesson.config_hints import shown
from lesson.formats import DEFAULT_FORMAT, FORMATS, PNG
from lesson.locale import DEFAULT_LANGUAGE, languages, load_locale
from lesson.sections import BY_ID, SECTION_IDS
from lesson.steps import StepsError


def config_options(command):
    command = click.option("--set", "overrides", multiple=True, metavar="KEY=VALUE",
                           help="Override one config key; VALUE is TOML, e.g. --set pipeline.temperature=0.5.")(command)
    return click.option("-c", "--config", "config_file", type=click.Path(dir_okay=False, path_type=Path),
                        help="TOML file with config values (see `render.py config`).")(command)


QUALITY_OPTIONS = (
    click.option("-q", "--quality", type=click.Choice(list(QUALITIES)), default="m", show_default=True,
                 help="l 480p15, m 720p30, h 1080p60, k 2160p60."),
    click.option("--resolution", metavar="WxH", help="Custom frame size in pixels, e.g. 640x360."),
    click.option("--fps", type=click.IntRange(1, 120), help="Custom frame rate."),
    OUT_OPTION, JOBS_OPTION,
)
FORMAT_OPTION = click.option("--format", "file_format", type=click.Choice(FORMATS), default=DEFAULT_FORMAT.name, show_default=True,
                             help="Video format, or png for one still per step.")
NARRATION_OPTION = click.option(
    "--narration", metavar="tts|none|DIR",
    help="Who speaks every step: tts (the default: a natural synthetic voice, narration.voice), none (nobody: "
         "a lecturer talks over it) or a folder of recordings named like the stills, e.g. "
         "DIR/01-matrix/03-queries.wav (same as --set narration.source=...).")
STEPS_OPTION = click.option(
    "--steps", metavar="N|KEY|FIRST..LAST",
    help="Only these steps of each section, by number or key, e.g. 4 or queries..softmax: a short clip "
         "(NN-section-steps-04-06.*), kept apart from the full section and never joined into the lecture.")
LANG_OPTION = click.option("--lang", type=click.Choice(languages()), default=None,
                           help="Language of everything a viewer sees or hears (same as --set lecture.lang=...; "
                                f"default: the config's, {DEFAULT_LANGUAGE}). Output names do not change: use -o "
                                "to keep languages apart.")
NO_AUDIO_OPTION = click.option("--no-audio", is_flag=True, help="No audio stream (same as --set audio.mute=true).")
CLEAN_OPTION = click.option("--clean", is_flag=True,
                            help="The content alone, to embed in your own slides: no title, step counter or caption "
                                 "drawn (a video keeps its subtitles; same as --set lecture.clean=true, same file "
                                 "names: use -o to keep both).")
def shared_options(*options):
    """A decorator adding ``options``, in this order in --help, then -c and --set."""
    def decorate(command):
        for option in reversed(options):
            command = option(command)
        return config_options(command)
    return decorate


render_options = shared_options(*QUALITY_OPTIONS, FORMAT_OPTION, STEPS_OPTION, CLEAN_OPTION, NARRATION_OPTION,
                                NO_AUDIO_OPTION, LANG_OPTION, *RERUN_OPTIONS)
watch_options = shared_options(*QUALITY_OPTIONS[:3], OUT_OPTION, STEPS_OPTION, LANG_OPTION)
slides_options = shared_options(*QUALITY_OPTIONS, STEPS_OPTION, NARRATION_OPTION, NO_AUDIO_OPTION, LANG_OPTION,
                                *RERUN_OPTIONS)
script_options = shared_options(OUT_OPTION, JOBS_OPTION, LANG_OPTION)
storyboard_options = shared_options(*QUALITY_OPTIONS, LANG_OPTION, *RERUN_OPTIONS)


def resolve_sections(names: tuple[str, ...], overrides: tuple[str, ...] = ()) -> tuple[str, ...]:
    hint = split_set_hint(overrides, names)
    if hint:
        fail(hint)
    for name in names:
        if name not in BY_ID:
            fail(f"section {shown(name)}: unknown section{suggestion(name, list(SECTION_IDS))}")
    chosen = set(names or SECTION_IDS)
    return tuple(section for section in SECTION_IDS if section in chosen)


def resolve_quality(quality: str, resolution: str | None, fps: int | None) -> Quality:
    base = QUALITIES[quality]
    width, height = base.width, base.height
    if resolution:
        try:
            width, height = (int(part) for part in resolution.lower().split("x"))
        except ValueError:
            fail(f"--resolution: expected WIDTHxHEIGHT in pixels, e.g. 640x360, got {shown(resolution)}")
        if not (16 <= width <= 7680 and 16 <= height <= 4320) or width % 2 or height % 2:
            fail(f"--resolution: expected even sizes between 16x16 and 7680x4320, got {shown(resolution)}")
    return Quality(width, height, fps or base.fps)


def with_lang(overrides: tuple[str, ...], lang: str | None) -> tuple[str, ...]:
    """--lang is --set lecture.lang=...: the config's layering then brings that language's defaults."""
    return overrides if lang is None else (*overrides, f"lecture.lang={toml_value(lang)}")


def with_clean(overrides: tuple[str, ...], clean: bool) -> tuple[str, ...]:
    """--clean is --set lecture.clean=true."""
    return (*overrides, "lecture.clean=true") if clean else overrides


def make_request(sections, quality, resolution, fps, out_dir, jobs, config_file, overrides, *,
                 file_format=DEFAULT_FORMAT.name, steps=None, narration=None, no_audio=False, lang=None, force=False,
                 verbose=False, reuse_folder=False) -> RenderRequest:
    """The plain request every rendering command hands on, from its validated options. With ``reuse_folder``
    (commands that build on renders), no -c/--set/--narration/--no-audio/--lang means: the config OUT was
    rendered with, and no -q/--resolution/--fps its frame size and rate, so nothing is rendered again over it."""
    chosen = resolve_sections(sections, overrides)
    overrides = with_lang(overrides, lang)
    if narration is not None:
        overrides = (*overrides, f"narration.source={toml_value(narration)}")
    config, size = None, None
    if reuse_folder and config_file is None and not overrides and not no_audio:
        try:
            found = folder_config(out_dir, chosen)
        except ConfigError as error:
            fail(str(error))
        if found:
            config, line = found
            click.echo(line, err=True)
            context = click.get_current_context()
            if all(context.get_parameter_source(name) == ParameterSource.DEFAULT
                   for name in ("quality", "resolution", "fps")):
                size = folder_quality(out_dir, chosen)
    config = config or load(config_file, overrides, no_audio)
    if not sections and config.lecture.sections is not None:  # the config's choice, when the command names none
        chosen = tuple(section for section in chosen if section in config.lecture.sections)
    size = size or resolve_quality(quality, resolution, fps)
    problem = memory_problem(size.width, size.height, file_format)
    if problem:
        fail(problem)
    request = RenderRequest(sections=chosen, config=config, quality=size, format=file_format,
                            out_dir=out_dir, jobs=jobs, force=force, verbose=verbose, steps=steps)
    try:
        chosen_steps(request)  # a refused --steps is its one error line, without the warnings before it
    except StepsError as error:
        fail(str(error))
    for section in chosen:
        for line in getattr(config, section).warnings(config.lecture.lang):
            click.echo(f"warning: {line}", err=True)
    return request


def load(config_file: Path | None, overrides: tuple[str, ...], no_audio: bool = False):
    if no_audio:
        overrides = (*overrides, "audio.mute=true")
    try:
        return load_config(config_file, overrides)
    except ConfigError as error:
        fail(str(error))


@click.group(cls=OneLineErrors, invoke_without_command=True,
             context_settings={"help_option_names": ["-h", "--help"]})
@click.pass_context
def cli(context: click.Context):
    """Render the lecture on attention and transformers as videos, stills and slides.

    With no command, renders every section with the default config into output/.
    """
    if context.invoked_subcommand is None:
        context.invoke(render)


@cli.command()
@click.argument("sections", nargs=-1)
@render_options
def render(sections, quality, resolution, fps, out_dir, jobs, file_format, steps, clean, narration, no_audio, lang,
           force, verbose, config_file, overrides):
    """Render SECTIONS (default: all) into OUT as NN-section files, lecture.mp4 and manifest.json."""
    request = make_request(sections, quality, resolution, fps, out_dir, jobs, config_file, with_clean(overrides, clean),
                           file_format=file_format, steps=steps, narration=narration, no_audio=no_audio,
                           lang=lang, force=force, verbose=verbose)
    check_system()
    run_guarded(run_render, request)


@cli.command()
@click.argument("sections", nargs=-1)
@click.option("--to", "decks", type=click.Choice(DECK_FORMATS), multiple=True, default=("html",),
              show_default=True, help="Deck format: reveal.js HTML, PowerPoint or PDF; repeat for several.")
@click.option("--joined", is_flag=True,
              help="One deck of SECTIONS in lesson order, a title slide before each section: slides/lecture.* "
                   "(slides/lecture-matrix-scaling.* for some), instead of a deck per section.")
@click.option("--one-file", is_flag=True,
              help="HTML as one self-contained file, clips and reveal.js embedded (the default is the page "
                   "and its NAME_assets folder); both play with no network.")
@slides_options
def slides(sections, decks, joined, one_file, quality, resolution, fps, out_dir, jobs, steps, narration, no_audio,
           lang, force, verbose, config_file, overrides):
    """Slides of SECTIONS (default: all) that keep their sound, one per step, into OUT/slides.

    Writes manim-slides presentations (`manim-slides present NN-section` from OUT) and their decks.
    """
    request = make_request(sections, quality, resolution, fps, out_dir, jobs, config_file, overrides,
                           steps=steps, narration=narration, no_audio=no_audio, lang=lang, force=force,
                           verbose=verbose, reuse_folder=True)
    check_system()
    if "html" in decks:
        try:
            revealjs_installed()
        except RevealMissing as error:
            fail(str(error))
    run_guarded(build_slides, request, tuple(dict.fromkeys(decks)), one_file, joined, Console(stderr=True))


@cli.command()
@click.argument("sections", nargs=-1)
@storyboard_options
def storyboard(sections, quality, resolution, fps, out_dir, jobs, lang, force, verbose, config_file, overrides):
    """One contact sheet per section: the last frame of every step with its title, as OUT/NN-section-storyboard.png."""
    request = make_request(sections, quality, resolution, fps, out_dir, jobs, config_file, overrides,
                           file_format=PNG.name, lang=lang, force=force, verbose=verbose, reuse_folder=True)
    check_system()
    run_guarded(build_storyboards, request, Console(stderr=True))


@cli.command()
@click.argument("sections", nargs=-1)
@script_options
def script(sections, out_dir, jobs, lang, config_file, overrides):
    """The narration script of SECTIONS (default: all) as OUT/script.md: for every step the file name to
    record it under, the text to read (numbers computed from this config) and how long the step lasts silent."""
    # the default quality's frame rate: the silent lengths are those of the video `render` makes by default
    request = make_request(sections, "m", None, None, out_dir, jobs, config_file, overrides, file_format="steps",
                           lang=lang)
    check_system()
    run_guarded(build_script, request, Console(stderr=True))


@cli.command()
@OUT_OPTION
@LANG_OPTION
def site(out_dir, lang):
    """The lecture page OUT/site/index.html from what OUT holds: the videos in lesson order with chapters,
    captions and transcript, and links to the decks, storyboards and stills; one folder to copy that works
    offline. Renders nothing: sections not rendered yet are listed as missing."""
    run_guarded(build_site, out_dir, Console(stderr=True), lang)


@cli.command()
@click.argument("sections", nargs=-1)
@click.option("--video", is_flag=True, help="Render the whole video (mp4) on each save, not the stills.")
@watch_options
def watch(sections, video, quality, resolution, fps, out_dir, steps, lang, config_file, overrides):
    """Re-render the stills of SECTIONS (default: the first, matrix) on every save of the -c config file, printing their
    paths; a bad edit prints its one-line error and the watch goes on. Ctrl-C stops it."""
    if config_file is None:
        fail("watch: -c/--config FILE is required (the file to watch)")
    check_system()
    first = tuple(SECTION_IDS[:1])
    request = WatchRequest(resolve_sections(sections or first, overrides), config_file, with_lang(overrides, lang),
                           resolve_quality(quality, resolution, fps), out_dir, steps, video)
    run_guarded(run_watch, request, lambda line: click.echo(line, err=line.startswith("error")))


@cli.command("list")
@LANG_OPTION
def list_sections(lang):
    """The sections in lesson order: id, title and what it shows (in --lang, default the course's language)."""
    locale = load_locale(lang or DEFAULT_LANGUAGE)
    for section_id in SECTION_IDS:
        click.echo(f"{BY_ID[section_id].number}. {section_id:<11} {locale[section_id]['title']}")
        click.echo(f"   {'':<11} {locale[section_id]['summary']}")


@cli.command("config")
@LANG_OPTION
@config_options
def show_config(lang, config_file, overrides):
    """Print the config as TOML: assets/default.toml with its comments and the values of -c/--set in place
    (derived values such as the preset's matrices left out), ready to save and edit."""
    try:
        click.echo(documented_toml(config_file, with_lang(overrides, lang)), nl=False)
    except ConfigError as error:
        fail(str(error))


def main() -> None:
    """Entry point of the `atencion` console command."""
    cli(prog_name="atencion")


cli.add_command(batch_command)
