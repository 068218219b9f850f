"""Dream: turning history entries into small edits of the durable files, confined and audited.

The file side: the confinement rules (``confine``), the staging overlay the tools edit
(``overlay``; over a folder ``staging`` with its crash-safe publish journal ``journal``, over
the storage seam ``store_staging``), patch application (``patch``), the four model tools
(``tools``, described in ``tool_specs``) and the no-progress detector (``progress``). These
must not import ``reverie.llm``.

The run side, which does: the prompt (``prompt``), the bounded tool loop (``loop``), the run
itself with publish, commit, cursor and back-off (``cycle``: ``DreamCycle``, the same on every
backend; ``runner``: ``Dreamer`` on a folder, with recovery; ``store_runner``:
``StoreDreamer`` on a database workspace), its typed result (``result``), the kept transcript
(``transcript``), and when to run (``schedule``, over the back-off ``state``; ``outlook`` reads
both, for the runner and for ``status`` without it). ``shared`` holds a person's restore and
edit on the storage seam.
"""
