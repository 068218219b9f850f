"""The model layer: the Provider protocol, its adapters, and token counting.

Owns everything that talks to a model or measures a prompt in tokens. It must never import
``reverie.storage.folder`` (the store sizes files with ``reverie.core.token_estimate``, not with
this layer). The public names are re-exported from ``reverie``.
"""
