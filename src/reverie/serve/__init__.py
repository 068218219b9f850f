"""``reverie serve``: memory over HTTP, as an OpenAI-compatible proxy and as MCP.

A surface with no memory logic of its own: ``app`` assembles the routes, ``proxy`` runs one
exchange (``chat_request`` parses and prepares it, ``reconcile`` decides which messages are
new, ``replay`` gives a retried exchange its recorded answer, ``stream`` rebuilds a streamed
answer, ``leases`` keeps one exchange per session at a time), ``upstream`` reaches the model
endpoint, ``auth`` checks the bearer token. Starlette,
uvicorn, httpx2 and the MCP SDK are the ``serve`` extra, imported only by the command.
"""

from reverie.serve.app import create_app
from reverie.serve.auth import TOKEN_VARIABLE, ServeRefusedError, is_loopback, token_for
from reverie.serve.upstream import Upstream

__all__ = [
    "TOKEN_VARIABLE",
    "ServeRefusedError",
    "Upstream",
    "create_app",
    "is_loopback",
    "token_for",
]
