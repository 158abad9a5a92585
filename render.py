"""Render the lecture on attention and transformers: `python render.py` renders every section.

The same command as the installed `atencion`; its code lives in ``lecture/cli.py``.
"""

from lecture.cli import cli

if __name__ == "__main__":
    cli()
