"""An annotated evaluation set for model-free curation, written for reverie (no public data).

``model`` holds the types and the matching rule; ``dev`` the conversations rules may be looked
at against; ``heldout`` the conversations only evaluated at the end (see bench/curation.py).
"""
