"""The README and docs/ against the code: a short README, links that resolve, every CLI option documented with an
example (and none documented that the CLI lacks), the section table and the Debian packages as the code has them."""

import re
import shlex
import unicodedata
from pathlib import Path

import click
import pytest

from lecture.cli import cli
from lesson.locale import load_locale
from lesson.sections import SECTIONS

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
DOCS = sorted((ROOT / "docs").glob("*.md"))
PAGES = [README, *DOCS]
CLI_PAGE = ROOT / "docs" / "cli.md"
README_MAX_LINES = 200  # issue 28: "README at most about 200 lines"

FENCE = re.compile(r"^\s*(```|~~~)")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
EXTERNAL = re.compile(r"^[a-z][a-z0-9+.-]*:", re.IGNORECASE)  # https:, mailto:, ...
PROGRAMS = ("render.py", "atencion")  # how the docs invoke the CLI


def split_fenced(text: str) -> tuple[list[str], list[str]]:
    """The text's lines outside fenced code blocks, and those inside (a `# comment` in a shell block is no
    heading; a shell line ending in a backslash is joined to the next)."""
    prose, code, fenced, pending = [], [], False, ""
    for line in text.splitlines():
        if FENCE.match(line):
            fenced = not fenced
        elif not fenced:
            prose.append(line)
        elif line.rstrip().endswith("\\"):
            pending += line.rstrip()[:-1] + " "
        else:
            code.append(pending + line)
            pending = ""
    return prose, code


def prose_lines(page: Path) -> list[str]:
    """The page's lines outside fenced code blocks."""
    return split_fenced(page.read_text(encoding="utf-8"))[0]


def command_lines(page: Path) -> list[str]:
    """The page's lines of code, and its inline code spans that run the CLI (`python render.py site`)."""
    prose, code = split_fenced(page.read_text(encoding="utf-8"))
    spans = re.findall(r"`([^`]+)`", "\n".join(prose))
    return code + [span for span in spans if any(program + " " in span for program in PROGRAMS)]


def github_anchor(heading: str) -> str:
    """GitHub's anchor for a heading: markup dropped, lower case, punctuation removed, spaces to hyphens."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link in a heading keeps its text
    text = text.replace("`", "").lower()
    kept = "".join(char for char in text
                    if char in " -_" or unicodedata.category(char)[0] in "LN")
    return kept.replace(" ", "-")


def anchors(page: Path) -> set[str]:
    """Every heading's anchor, the second of a name with -1 as GitHub numbers repeats."""
    seen: dict[str, int] = {}
    found = set()
    for line in prose_lines(page):
        match = HEADING.match(line)
        if match:
            anchor = github_anchor(match.group(2))
            found.add(anchor if anchor not in seen else f"{anchor}-{seen[anchor]}")
            seen[anchor] = seen.get(anchor, 0) + 1
    return found


def relative_links(page: Path) -> list[str]:
    """The page's link targets that are not external addresses."""
    text = "\n".join(prose_lines(page))
    text = re.sub(r"`[^`]*`", "", text)  # `[x](y)` inside inline code is no link
    return [target for target in LINK.findall(text) if not EXTERNAL.match(target)]


def command_invocations(page: Path) -> list[tuple[str, list[str]]]:
    """(subcommand, its words) for every line of code that runs the CLI: `python render.py slides --to pptx`."""
    found = []
    for line in command_lines(page):
        for part in re.split(r"&&|\|\||;|\|", line.replace("$ ", "", 1)):
            try:
                words = shlex.split(part, comments=True)
            except ValueError:  # an unbalanced quote in an error message shown as output
                continue
            programs = [i for i, word in enumerate(words) if Path(word).name in PROGRAMS]
            if programs:
                rest = [word for word in words[programs[0] + 1:] if not word.startswith(">")]
                name = rest[0] if rest and rest[0] in cli.commands else "render"
                found.append((name, rest[1:] if rest and rest[0] == name else rest))
    return found


def option_names(command: click.Command) -> set[str]:
    """Every spelling of the command's options, --help included."""
    names = {"-h", "--help"}
    for param in command.params:
        if isinstance(param, click.Option):
            names.update(param.opts + param.secondary_opts)
    return names


def words_of_options(words: list[str]) -> set[str]:
    """The option names among a command line's words: `--set`, `-q`, `--to=pptx` as `--to`."""
    return {word.split("=")[0] for word in words if re.match(r"^--?[A-Za-z]", word)}


def section_of(page: Path, title: str) -> str:
    """The page's text under the heading ``title`` (any level), up to the next heading of that level or higher."""
    lines = page.read_text(encoding="utf-8").splitlines()
    start = next(i for i, line in enumerate(lines) if (m := HEADING.match(line)) and m.group(2) == title)
    level = len(HEADING.match(lines[start]).group(1))
    end = next((i for i in range(start + 1, len(lines))
                if (m := HEADING.match(lines[i])) and len(m.group(1)) <= level), len(lines))
    return "\n".join(lines[start:end])


def table_rows(text: str) -> list[list[str]]:
    """The cells of every Markdown table row in ``text``, header and separator rows left out."""
    rows = [[cell.strip() for cell in re.split(r"(?<!\\)\|", line)[1:-1]]
            for line in text.splitlines() if line.startswith("|")]
    separators = {i for i, row in enumerate(rows) if all(set(cell) <= set("-: ") for cell in row)}
    return [row for i, row in enumerate(rows) if i not in separators and i + 1 not in separators]


def test_readme_is_short():
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= README_MAX_LINES, f"README.md has {len(lines)} lines; move a topic to docs/"


def test_docs_exist_and_readme_links_each_page():
    assert DOCS, "docs/ holds no page"
    linked = {(README.parent / target.split("#")[0]).resolve() for target in relative_links(README)}
    assert [page.name for page in DOCS if page.resolve() not in linked] == []


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.relative_to(ROOT).as_posix())
def test_every_relative_link_resolves(page):
    broken = []
    for target in relative_links(page):
        path, _, anchor = target.partition("#")
        resolved = (page.parent / path).resolve() if path else page
        if not resolved.exists():
            broken.append(f"{target}: no such file")
        elif anchor and (resolved.suffix != ".md" or anchor not in anchors(resolved)):
            broken.append(f"{target}: no heading with that anchor")
    assert broken == []


def test_github_anchor_rule():
    assert github_anchor("The `atencion` command") == "the-atencion-command"
    assert github_anchor("Batches: many variants, on one machine or a Dask cluster") == \
        "batches-many-variants-on-one-machine-or-a-dask-cluster"
    assert github_anchor("¿Por qué dividir por √d_k?") == "por-qué-dividir-por-d_k"


@pytest.mark.parametrize("name", sorted(cli.commands))
def test_every_option_has_an_example_in_the_cli_page(name):
    """Each subcommand's options (read from click) appear in an example that runs that subcommand."""
    used = set()
    for command, words in command_invocations(CLI_PAGE):
        if command == name:
            used |= words_of_options(words)
    command = cli.commands[name]
    missing = [param.opts for param in command.params
               if isinstance(param, click.Option) and not used & set(param.opts + param.secondary_opts)]
    assert missing == [], f"docs/cli.md: no example of `{name}` with {missing}"


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.relative_to(ROOT).as_posix())
def test_no_example_uses_an_option_the_cli_lacks(page):
    unknown = [(command, sorted(words_of_options(words) - option_names(cli.commands[command])))
               for command, words in command_invocations(page)
               if words_of_options(words) - option_names(cli.commands[command])]
    assert unknown == []


def test_cli_page_option_tables_name_real_options():
    """The option tables of docs/cli.md, one under each command's heading, name only that command's options."""
    wrong = []
    for name, command in cli.commands.items():
        for row in table_rows(section_of(CLI_PAGE, f"`{name}`")):
            named = set(re.findall(r"(?<![\w-])--?[a-z][\w-]*", row[0]))
            wrong += [(name, option) for option in named - option_names(command)]
    assert wrong == []


def test_readme_section_table_is_the_sections_registry():
    """The README's section table: every section of lesson/sections.py in lesson order, with its title on screen
    and the keys of its config model."""
    rows = table_rows(section_of(README, "The sections"))
    titles = load_locale("es")
    assert [(row[0], row[1].strip("`")) for row in rows] == [(str(section.number), section.id) for section in SECTIONS]
    assert [row[2] for row in rows] == [titles[section.id]["title"] for section in SECTIONS]
    assert [re.findall(r"`([^`]+)`", row[4]) for row in rows] == \
        [[f"{section.id}.{key}" for key in section.config.model_fields] for section in SECTIONS]


def declared_packages() -> set[str]:
    """The Debian packages tools/system-deps.sh always installs and those the Makefile adds (tests, draft voice)."""
    script = (ROOT / "tools" / "system-deps.sh").read_text(encoding="utf-8")
    listed = re.search(r"^packages=\((.*?)^\)", script, re.MULTILINE | re.DOTALL).group(1)
    packages = {word for line in listed.splitlines() for word in line.split("#")[0].split()}
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    packages |= set(re.search(r"^TEST_PACKAGES :=(.*)$", makefile, re.MULTILINE).group(1).split())
    optional = re.search(r"^EXTRA_PACKAGES :=(.*)$", makefile, re.MULTILINE).group(1)
    packages |= set(re.findall(r",([a-z0-9.+-]+)\)", optional))  # $(if $(filter tts,...),espeak-ng)
    return packages


def test_docs_name_every_debian_package_setup_installs():
    text = "\n".join(page.read_text(encoding="utf-8") for page in PAGES)
    packages = declared_packages()
    assert {"gcc", "espeak-ng", "chromium"} <= packages  # the parse found the script's list and the Makefile's
    assert sorted(package for package in packages if not re.search(rf"(?<![\w.-]){re.escape(package)}(?![\w.-])",
                                                                   text)) == []


def test_layout_names_every_top_level_folder():
    """The README's layout block names each folder of code, and each name in it exists."""
    layout = section_of(README, "Project layout")
    named = set(re.findall(r"^([\w.-]+/?)\s", "\n".join(split_fenced(layout)[1]), re.MULTILINE))
    assert [name for name in named if not (ROOT / name).exists()] == []
    folders = {path.relative_to(ROOT).parts[0] for path in ROOT.glob("*/*.py") if not path.parts[-2].startswith(".")}
    assert sorted(folder for folder in folders if f"{folder}/" not in named) == []

