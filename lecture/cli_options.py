"""What every command of the CLI shares and the batch command builds on: the one-line failure (ours and click's),
the hint for a --set value the shell split, the output and jobs options, the re-render options, the system check
and the guard that turns interruptions into exit statuses."""

from __future__ import annotations

import os
import re
import shlex
import signal
import sys
from contextlib import contextmanager
from pathlib import Path

import click

from lecture.render.narration import NarrationError
from lecture.render.output_folder import OutputError
from lecture.render.preflight import missing_system_dependencies
from lesson.config_hints import clipped, shown
from lesson.sections import SECTION_IDS
from lesson.steps import StepsError


def fail(message: str) -> None:
    """Bad input: one line on stderr, exit status 2, nothing written."""
    # a value or a path from the user may hold a line break: it must not break the line
    click.echo(f"error: {message}".replace("\r", "\\r").replace("\n", "\\n"), err=True)
    sys.exit(2)


TOML_WORDS = {"true", "false", "inf", "nan"}


def split_set_hint(overrides: tuple[str, ...], sections: tuple[str, ...]) -> str | None:
    """When the shell split an unquoted ``--set`` value at its spaces (``--set matrix.X=[[1, 0], [0, 1]]`` gives
    the value ``matrix.X=[[1,`` and the sections ``0],`` ``[0,`` ``1]]``), the one-line error that shows the
    quoting; None when nothing looks split."""
    pieces = [section for section in sections if section not in SECTION_IDS]
    for override in overrides:
        value = override.partition("=")[2]
        if unbalanced(value):
            taken = []
            while pieces and unbalanced(" ".join([value, *taken])):
                taken.append(pieces.pop(0))
            whole = clipped(shlex.quote(" ".join([override, *taken])))
            return f"--set {clipped(override)}: the shell split the value at its spaces; quote it: --set {whole}"
        if pieces and re.fullmatch(r"[^\W\d_][\w-]*", value) and value not in TOML_WORDS:
            whole = clipped(shlex.quote(" ".join([override, *pieces])))
            return (f"section {shown(pieces[0])}: unknown section; if it belongs to --set {clipped(override)}, "
                    f"quote the value: --set {whole}")
    return None


def unbalanced(value: str) -> bool:
    """More brackets or braces opened than closed, or an odd number of quotes."""
    return (value.count("[") > value.count("]") or value.count("{") > value.count("}")
            or value.count('"') % 2 == 1 or value.count("'") % 2 == 1)


class OneLineUsage:
    """Click's usage errors (an unknown option, a missing argument, a bad choice or number) as one line like
    ours, not click's usage, hint and message on four: click's message, the values it quotes clipped, and the
    command's --help; exit status 2."""

    def make_context(self, info_name, args, parent=None, **extra):
        with one_line_usage_errors(f"{parent.command_path} {info_name}" if parent else info_name):
            return super().make_context(info_name, args, parent, **extra)


class OneLineCommand(OneLineUsage, click.Command):
    """A command whose usage errors are one line."""


class OneLineErrors(OneLineUsage, click.Group):
    """A command group whose usage errors, and its commands', are one line, an unknown command's too."""

    command_class = OneLineCommand

    def invoke(self, context):
        with one_line_usage_errors(context.command_path):
            return super().invoke(context)


CLICK_QUOTED = re.compile(r"'[^']*'|\([^()]*\)")  # how click's messages quote a value: 'value' or (arguments)


@contextmanager
def one_line_usage_errors(command: str):
    """Click's usage errors inside as ``fail`` lines that point at ``command``'s --help."""
    try:
        yield
    except click.UsageError as error:
        message = CLICK_QUOTED.sub(lambda quoted: clipped(quoted[0]), error.format_message())
        fail(f"{message.rstrip('.')}; see '{command} --help'")


OUT_OPTION = click.option("-o", "--out", "out_dir", type=click.Path(file_okay=False, path_type=Path),
                          default=Path("output"), show_default=True, help="Output directory.")
JOBS_OPTION = click.option("-j", "--jobs", type=click.IntRange(1, 64), default=os.cpu_count() or 1,
                           show_default="number of cores", help="Sections rendered in parallel.")
RERUN_OPTIONS = (
    click.option("--force", is_flag=True, help="Re-render even when the output is up to date."),
    click.option("-v", "--verbose", is_flag=True, help="Show manim's own logging."),
)


def run_guarded(build, *arguments) -> None:
    """Run a command that writes into OUT and exit with its status: an unusable folder is one line and
    exit 2; Ctrl-C exits 130 and SIGTERM or SIGHUP 128 + the signal, after the workers are stopped and the
    scratch files removed. Files are only ever replaced whole (see lecture.render.output_folder)."""
    previous = {stop: signal.signal(stop, _exit_on_signal) for stop in (signal.SIGTERM, signal.SIGHUP)}
    try:
        sys.exit(build(*arguments))
    except (OutputError, NarrationError, StepsError) as error:
        fail(str(error))
    except KeyboardInterrupt:
        click.echo("interrupted: no file was left half-written; unfinished sections keep their earlier files",
                   err=True)
        sys.exit(130)
    finally:
        for stop, handler in previous.items():
            signal.signal(stop, handler)


def _exit_on_signal(number, frame):
    raise SystemExit(128 + number)


def check_system() -> None:
    """Stop before rendering when LaTeX or a font is missing, naming the package to install."""
    problems = missing_system_dependencies()
    if problems:
        fail("; ".join(problems))
