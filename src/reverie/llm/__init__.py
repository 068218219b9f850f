"""The model layer: the Provider protocol, its adapters, and token counting.

Owns everything that talks to a model or measures a prompt in tokens. It must never import
``reverie.store`` (the store sizes files with ``reverie.token_estimate``, not with this layer).
The public names are re-exported from ``reverie``.
"""
