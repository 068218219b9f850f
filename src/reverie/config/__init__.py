"""Layer 0, ``config``: settings, their ranges, and loading them.

Settings come from ``reverie.toml`` and ``REVERIE_*``. ``sections`` holds the frozen values of
each TOML table, ``settings`` the ``Config`` that gathers and builds them, ``checks`` their
ranges, ``file`` the loading, ``bounded`` the bounded whole-file read every loader uses.
"""
