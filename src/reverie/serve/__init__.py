"""``reverie serve``: memory over HTTP, as an OpenAI-compatible proxy and as MCP.

A surface with no memory logic of its own, serving a home of principals (``reverie.engine.owners``):
``home_select`` finds the home and its token book, ``gate`` decides a request's principal
from its credential, ``app`` assembles the routes, ``mcp_routes`` keeps one MCP server per
principal, ``proxy`` runs one exchange (``chat_request`` parses and prepares it,
``reconcile`` decides which messages are new, ``replay`` gives a retried exchange its
recorded answer, ``stream`` rebuilds a streamed answer,
``leases`` keeps one exchange per conversation at a time), ``responses`` runs the Responses
API over the same exchange (``responses_request`` parses it into the chat call,
``responses_reply`` and ``responses_stream`` give the answer back as a response or its
events), ``memories`` serves the memories API (its schema: ``memories_schema``), ``unknown``
answers every other ``/v1`` route OpenAI-shaped, ``upstream`` reaches the model endpoint,
``auth`` checks the bearer tokens. Starlette, uvicorn, httpx2 and the MCP SDK are
the ``serve`` extra, imported only by the command.
"""

from reverie.serve.app import create_app
from reverie.serve.auth import TOKEN_VARIABLE, ServeRefusedError, is_loopback, token_for
from reverie.serve.gate import Gate
from reverie.serve.home_select import served_home, token_book
from reverie.serve.upstream import Upstream

__all__ = [
    "TOKEN_VARIABLE",
    "Gate",
    "ServeRefusedError",
    "Upstream",
    "create_app",
    "is_loopback",
    "served_home",
    "token_book",
    "token_for",
]
