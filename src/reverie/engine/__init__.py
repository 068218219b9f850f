"""Layer 3, ``engine``: ``MemoryEngine``, the one way in, with its wiring and results.

``facade`` holds the class; ``async_engine`` wraps it for asyncio callers.
"""
