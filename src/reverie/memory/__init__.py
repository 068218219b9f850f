"""Layer 2, ``memory``: the processes, on the ports of the storage seam.

Prompt, compaction, recall, dream, model-free curation, provenance, ingest, doctor,
status and the agent.

Processes work on the ports of ``reverie.storage.ports`` and never import the engine.
"""
