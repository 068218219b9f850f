"""Compaction: old session turns become one history entry, so every prompt stays under budget.

Modules: ``transcript`` (messages → text for the summariser), ``summariser`` (the model call
and its failure modes), ``compactor`` (token-pressure compaction with the progress guarantee),
``idle`` (compaction of sessions nobody is talking to), ``result`` (typed outcomes).
"""
