"""Layer 0, ``config``: settings, their ranges, and loading them.

Settings come from ``reverie.toml`` and ``REVERIE_*``.
``settings`` holds the frozen settings values, ``checks`` their ranges, ``file`` the
loading, ``bounded`` the bounded whole-file read every loader uses.
"""
