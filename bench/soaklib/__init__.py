"""The parts of ``bench/soak.py``: fault-injecting model, workers, supervisor, invariant checks."""
