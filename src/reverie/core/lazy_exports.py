"""Lazy re-exports for package ``__init__`` modules (PEP 562).

A package lists each public name with the module that defines it; ``lazy_getattr`` returns the
module-level ``__getattr__`` that imports that module on first use and caches the value in the
package's namespace. So ``import reverie`` (and the CLI) pay only for the names they touch.
Each package keeps the same names in ``TYPE_CHECKING`` imports for type checkers; a test keeps
the two lists and ``__all__`` in step.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, MutableMapping


def lazy_getattr(
    package: str, where: Mapping[str, str], namespace: MutableMapping[str, object]
) -> Callable[[str], object]:
    """Return a ``__getattr__`` for ``package`` that loads ``where[name]`` on first use."""

    def load(name: str) -> object:
        module = where.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        namespace[name] = value
        return value

    return load
