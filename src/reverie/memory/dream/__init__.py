"""Dream: turning history entries into small edits of the durable files, confined and audited.

Everything here works on the storage seam (``reverie.storage.ports.DreamStores``), the same on
a workspace folder and a database workspace; where the files live, the confinement rules
(``reverie.storage.folder.confine``) and how a publish lands and recovers (a folder's journal,
a database's transaction) are the backend's.

The file side: the staging copy the tools edit (``staging``, behind the publish ``guard``),
patch application (``patch``), the four model tools (``tools``, described in ``tool_specs``)
and the no-progress detector (``progress``). These must not import ``reverie.llm``.

The run side, which does: the prompt (``prompt``), the bounded tool loop (``loop``), the one
runner with publish, commit, cursor and back-off (``runner``: ``Dreamer``), its typed result
(``result``), the kept transcript (``transcript``), and when to run (``schedule``, over the
back-off ``state``; ``outlook`` reads both, for the runner and for ``status`` without it).
``edit`` holds a person's restore and edit, under the same lock.
"""
