"""A scriptable OpenAI-compatible chat endpoint on loopback, for fault tests and benchmarks.

A real HTTP server (stdlib ``http.server``, one thread per connection) so that the adapter, the
``openai`` client and the transport are exercised as they are in production; only what the server
answers is scripted. ``respond`` sees each request body and the number of earlier requests carrying
the same case id (``Case ID: ...`` in the prompt) and returns a :class:`Reply`. The server counts
requests and the largest number it was serving at once (requests in flight, measured server-side).
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

_CASE_ID = re.compile(r"Case ID: (\S+)")


@dataclass(frozen=True)
class Reply:
    """What to answer: a chat completion with ``text`` (``status`` 200), or an error status.

    ``choices=False`` sends an empty choice list; ``truncate_body`` cuts the JSON body in half (with
    a matching Content-Length, as a broken proxy would); ``delay_s`` waits before answering.
    """

    text: str = ""
    status: int = 200
    finish_reason: str = "stop"
    choices: bool = True
    truncate_body: bool = False
    delay_s: float = 0.0
    headers: dict[str, str] = field(default_factory=dict)
    usage: tuple[int, int] = (1000, 200)
    tool_calls: tuple[dict[str, Any], ...] = ()  # OpenAI-shape tool calls on the reply message


Responder = Callable[[dict[str, Any], int], Reply]


def case_id(body: dict[str, Any]) -> str | None:
    """The ``Case ID`` the Stage-1 prompt names, if any."""
    for message in body.get("messages", []):
        content = message.get("content")
        texts = [content] if isinstance(content, str) else [p.get("text", "") for p in content or []]
        for text in texts:
            found = _CASE_ID.search(text or "")
            if found:
                return found.group(1)
    return None


class ChatServer:
    def __init__(self, respond: Responder, latency_s: float = 0.0) -> None:
        self.respond = respond
        self.latency_s = latency_s
        self.requests: list[dict[str, Any]] = []
        self.by_case: Counter[str] = Counter()
        self.in_flight = 0
        self.peak_in_flight = 0
        self._lock = threading.Lock()
        self._server = _Server(("127.0.0.1", 0), _handler(self))

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    @contextmanager
    def running(self) -> Iterator[ChatServer]:
        thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )
        thread.start()
        try:
            yield self
        finally:
            self._server.shutdown()
            self._server.server_close()
            thread.join(timeout=5)

    def _begin(self, body: dict[str, Any]) -> int:
        with self._lock:
            self.requests.append(body)
            key = case_id(body) or ""
            seen = self.by_case[key]
            self.by_case[key] += 1
            self.in_flight += 1
            self.peak_in_flight = max(self.peak_in_flight, self.in_flight)
            return seen

    def _end(self) -> None:
        with self._lock:
            self.in_flight -= 1


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 256  # hundreds of concurrent connects must not overflow the listen backlog


def _handler(server: ChatServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:
            pass

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))))
            seen = server._begin(body)
            try:
                reply = server.respond(body, seen)
                time.sleep(server.latency_s + reply.delay_s)
                self._answer(body, reply)
            finally:
                server._end()

        def _answer(self, body: dict[str, Any], reply: Reply) -> None:
            if reply.status != 200:
                payload: dict[str, Any] = {
                    "error": {"message": f"scripted HTTP {reply.status}", "type": "test"}
                }
            else:
                prompt, completion = reply.usage
                payload = {
                    "id": "chatcmpl-loopback",
                    "object": "chat.completion",
                    "created": 0,
                    "model": body.get("model", "loopback"),
                    "choices": [
                        {
                            "index": 0,
                            "message": {
                                "role": "assistant",
                                "content": reply.text,
                                **({"tool_calls": list(reply.tool_calls)} if reply.tool_calls else {}),
                            },
                            "finish_reason": reply.finish_reason,
                        }
                    ]
                    if reply.choices
                    else [],
                    "usage": {
                        "prompt_tokens": prompt,
                        "completion_tokens": completion,
                        "total_tokens": prompt + completion,
                    },
                }
            data = json.dumps(payload).encode()
            if reply.truncate_body:
                data = data[: len(data) // 2]
            try:
                self.send_response(reply.status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for name, value in reply.headers.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (a timeout test): nothing to answer

    return Handler
