"""``render.py`` with the quick section: registered here at the top level, before the CLI loads the config
schema, so that the CLI's worker processes (started afresh, each importing this file again) know it too."""

import sys

from lesson.sections import register
from quick_section.record import SECTION

register(SECTION)


def main() -> None:
    from lecture.cli import cli

    cli(sys.argv[1:], prog_name="atencion")


if __name__ == "__main__":
    main()
