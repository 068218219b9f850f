"""Storage parts of a workspace: history log, cursors, memory files, locks, quarantine, audit.

Nothing in ``reverie.store`` imports ``reverie.llm`` (a test enforces the layers).
"""
