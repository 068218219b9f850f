"""Storage parts of a workspace: history log, cursors, memory files, locks, quarantine, audit.

``layout`` names every path of a workspace and holds the one link rule all of them obey.

Nothing in ``reverie.storage.folder`` imports ``reverie.llm`` (a test enforces the layers).
"""
