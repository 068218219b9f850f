"""Adapters: reverie as the memory of agent frameworks (layer 4, a surface).

Each module here plugs ``MemoryEngine`` into one framework's memory interface and imports
that framework inside itself only, so ``import reverie`` never needs it: install the extra
(``reverie[agents]``, ``reverie[langchain]``, ``reverie[langgraph]``,
``reverie[pydantic-ai]``) and import the module.
The adapters go through the facade's public operations alone; what a framework asks to
delete (a popped item, a cleared session, a store item) is set aside, never erased:
reverie's sessions are append-only, and ``MemoryEngine.forget`` is the one way to remove
what memory holds.
"""
