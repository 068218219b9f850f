"""Compaction: old session turns become one history entry, so every prompt stays under budget.

Modules: ``attempt`` (the ``Summariser`` protocol: messages in, ``Summary | SummaryFailure``
out), ``transcript`` (messages → text for a model's prompt and for raw fallbacks),
``summariser`` (the model summariser: one metered call and its failure modes), ``chunks``
(any chunk summarised in budget-sized calls), ``compactor`` (token-pressure compaction with the
progress guarantee), ``rounds`` (what one call carries from round to round), ``idle``
(compaction of sessions nobody is talking to), ``result`` (typed outcomes, and ``Fitted``: a
result with the session compaction last read).
"""
