"""Dream: turning history entries into small edits of the durable files, confined and audited.

This package holds the parts of dream that touch files: the confinement rules (``confine``),
the staging overlay (``staging``) and its crash-safe publish journal (``journal``), patch
application (``patch``), the four model tools (``tools``) and the no-progress detector
(``progress``). It must not import ``reverie.llm``; the model loop wraps these parts.
"""
