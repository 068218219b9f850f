"""The model endpoint behind the proxy, and OpenAI-style error answers.

``Upstream`` posts a chat-completions body to the configured OpenAI-compatible endpoint
(``[model]``: base URL, key, timeout) and hands back the raw response, streaming or not, so the
proxy can return it unchanged in shape. Transport failures become ``UpstreamError`` with the
status the client should see: 504 when the endpoint does not answer in time, 502 when it
cannot be reached or breaks off its answer. Errors name the endpoint by ``shown_url``
(``reverie.core.redact.display_url``: no userinfo, no secret query values), never the raw URL.
An HTTP error from the endpoint is not an exception: its status and body
go back to the client as they are (wrapped into ``{"error": {...}}`` when the body is not
already in that shape, see ``error_passthrough``).

``error_body`` builds the OpenAI error shape every error of the server uses, so the official
SDKs raise their usual typed exceptions (``AuthenticationError``, ``InternalServerError``, ...).
"""

from __future__ import annotations

import json
from collections.abc import Mapping

import httpx2

from reverie.core.messages import JSONObject, JSONValue
from reverie.core.redact import display_url, redact, scrub_urls

OPENAI_BASE_URL = "https://api.openai.com/v1"


def error_body(
    message: str, error_type: str, *, code: str | None = None, param: str | None = None
) -> JSONObject:
    """The OpenAI error shape: ``{"error": {"message", "type", "param", "code"}}``."""
    return {"error": {"message": message, "type": error_type, "param": param, "code": code}}


class UpstreamError(Exception):
    """The endpoint could not be asked or did not answer; ``status`` is what the client gets."""

    def __init__(self, message: str, *, status: int, error_type: str) -> None:
        super().__init__(message)
        self.status = status
        self.error_type = error_type

    def body(self) -> JSONObject:
        """This error as an OpenAI-style body."""
        return error_body(str(self), self.error_type, code=self.error_type)


def error_passthrough(status: int, content: bytes) -> JSONObject:
    """The endpoint's error body, redacted, in the OpenAI shape (its own or a wrapped text).

    The message is passed through ``reverie.core.redact`` (an endpoint that echoes "Incorrect API
    key provided: sk-..." never hands the key to the client) and its URLs shown without
    userinfo or secret query values.
    """
    try:
        parsed: JSONValue = json.loads(content)
    except ValueError:
        parsed = None
    found = parsed.get("error") if isinstance(parsed, dict) else None
    if isinstance(found, dict):
        error = dict(found)
        if isinstance(error.get("message"), str):
            error["message"] = shown(str(error["message"]))
        return {"error": error}
    text = content.decode("utf-8", "replace").strip()[:2000] or f"HTTP {status}"
    kind = "server_error" if status >= 500 else "invalid_request_error"
    return error_body(f"model endpoint answered {status}: {shown(text)}", kind)


def shown(text: str) -> str:
    """``text`` fit to show a client: secrets redacted, URLs without their credentials."""
    return scrub_urls(redact(text))


class Upstream:
    """An OpenAI-compatible chat-completions endpoint, reached with one pooled HTTP client.

    Args:
        base_url: the endpoint's ``/v1`` URL (default: OpenAI's).
        api_key: sent as the bearer token when set.
        model: the model used when a request names none.
        timeout: seconds to wait for the endpoint to answer (and between streamed chunks).
    """

    def __init__(
        self,
        *,
        base_url: str | None,
        api_key: str | None,
        model: str,
        timeout: float,
    ) -> None:
        self.base_url = (base_url or OPENAI_BASE_URL).rstrip("/")
        self.shown_url = display_url(self.base_url)
        """The URL as printed and put in errors: no userinfo, no secret query values."""
        self.model = model
        self.timeout = timeout
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._client = httpx2.AsyncClient(
            timeout=httpx2.Timeout(timeout, connect=min(timeout, 10.0)),
            headers=headers,
            limits=httpx2.Limits(max_connections=64, max_keepalive_connections=16),
        )

    def __repr__(self) -> str:
        return f"Upstream(base_url={self.shown_url!r}, model={self.model!r})"

    async def send(self, body: Mapping[str, JSONValue]) -> httpx2.Response:
        """Post ``body`` and return the response with its body not read yet (``stream``).

        Raises:
            UpstreamError: the endpoint timed out (504) or could not be reached (502).
        """
        request = self._client.build_request(
            "POST", self.base_url + "/chat/completions", json=dict(body)
        )
        try:
            return await self._client.send(request, stream=True)
        except httpx2.TimeoutException as exc:
            raise self.timed_out() from exc
        except httpx2.TransportError as exc:
            raise UpstreamError(
                f"cannot reach the model endpoint {self.shown_url} ({type(exc).__name__})",
                status=502,
                error_type="upstream_unreachable",
            ) from exc

    def timed_out(self) -> UpstreamError:
        """The error for an endpoint that did not answer within the timeout."""
        return UpstreamError(
            f"the model endpoint {self.shown_url} did not answer within {self.timeout:g} s",
            status=504,
            error_type="upstream_timeout",
        )

    def broke_off(self, exc: httpx2.HTTPError | None) -> UpstreamError:
        """The error for an answer the endpoint stopped sending (None: it ended unfinished)."""
        if isinstance(exc, httpx2.TimeoutException):
            return UpstreamError(
                f"the model endpoint {self.shown_url} stopped answering for {self.timeout:g} s",
                status=504,
                error_type="upstream_timeout",
            )
        how = f" ({type(exc).__name__})" if exc is not None else ""
        return UpstreamError(
            f"the model endpoint {self.shown_url} broke off its answer{how}",
            status=502,
            error_type="upstream_error",
        )

    def not_a_stream(self) -> UpstreamError:
        """The error for a ``stream: true`` answer that is neither events nor a completion."""
        return UpstreamError(
            f"the model endpoint {self.shown_url} answered a streamed request with neither "
            "events nor a chat completion",
            status=502,
            error_type="upstream_error",
        )

    async def aclose(self) -> None:
        """Close the pooled connections."""
        await self._client.aclose()
