"""Render the lecture on attention and transformers: `python render.py` renders every section.

The same command as the installed `atencion`; its code lives in ``lecture/cli.py``. Imported only when run: each
render worker is a fresh process that imports this file again, and needs none of the CLI.
"""

if __name__ == "__main__":
    from lecture.cli import cli

    cli()
