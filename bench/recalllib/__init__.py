"""The parts of ``bench/recall.py``: a seeded dev set of conversations and its scoring."""
