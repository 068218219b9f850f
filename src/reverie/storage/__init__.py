"""Layer 1, ``storage``: the one seam between the processes and where memory lives.

``ports`` holds every protocol the processes use, ``open`` chooses the backend a
workspace names, ``transfer`` copies one backend into another through the ports.
``folder`` is the embedded default (files, git, SQLite); ``postgres`` is the server
backend. Only this package names a backend class; it never imports ``reverie.llm``.
"""
