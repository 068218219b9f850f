"""The parts of ``bench/scale.py``: generated chat to fill a workspace, and the timed probes."""
