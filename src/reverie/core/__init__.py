"""Layer 0, ``core``: values and pure rules shared by every layer and both backends.

No I/O here: messages, sessions, turns, tokens, the clock, inbound checks, search hits
and source references, the text rules, redaction and screening. Imports only
``reverie.errors`` and other ``core`` modules.
"""
