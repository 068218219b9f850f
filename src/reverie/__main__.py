"""``python -m reverie``: the same as the ``reverie`` command."""

from reverie.cli import main

main()
