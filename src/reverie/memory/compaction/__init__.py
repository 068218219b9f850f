"""Compaction: old session turns become one history entry, so every prompt stays under budget.

Modules: ``attempt`` (the ``Summariser`` protocol: messages in, ``Summary | SummaryFailure``
out), ``transcript`` (messages → text for a model's prompt and for raw fallbacks),
``summariser`` (the model summariser: one metered call and its failure modes), ``chunks``
(any chunk summarised in budget-sized calls), ``compactor`` (token-pressure compaction with the
progress guarantee), ``idle`` (compaction of sessions nobody is talking to), ``result`` (typed
outcomes).
"""
