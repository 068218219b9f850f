"""Ingest: existing conversations into durable, searchable, audited memory.

``run`` replays each conversation, ``guard`` keeps one ingest per workspace at a time,
``importers`` reads each supported format.
"""
