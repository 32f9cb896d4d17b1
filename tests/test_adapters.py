"""Adapters against a real HTTP endpoint on loopback: what goes over the wire, what comes back, what
the cache and the registry do. No mocks of the ``openai`` client: the server below is the endpoint."""

from __future__ import annotations

import base64
import json
import socket
import struct
import threading
import time
import tomllib
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from adapters import (
    AdapterError,
    Completion,
    CompletionRequest,
    Decoding,
    OracleUnavailable,
    UnknownModelError,
    register_adapter,
    resolve_adapter,
    unregister_adapter,
)
from adapters.cache import CachedAdapter, cache_key
from adapters.models_file import ModelsFileError, load_models_file
from adapters.openai_chat import OpenAIChatAdapter
from adapters.oracle import OracleAdapter
from adapters.replay import ReplayAdapter, ReplayFileError
from benchmark.messages import ImagePart, Message, TextPart
from benchmark.schema import ModelsFile, ValidationError

KEY_ENV = "OPTBENCH_TEST_API_KEY"
KEY = "sk-test-loopback-123"


# ---------------------------------------------------------------------------------------------------
# A loopback chat-completions endpoint


@dataclass
class Endpoint:
    """What the server answers next and what it has seen. ``status`` != 200 answers with an error."""

    port: int = 0
    requests: list[dict[str, Any]] = field(default_factory=list)
    headers: list[dict[str, str]] = field(default_factory=list)
    status: int = 200
    content: str | None = "the answer"
    choices: bool = True
    finish_reason: str = "stop"
    delay_s: float = 0.0
    usage: dict[str, int] | None = field(
        default_factory=lambda: {"prompt_tokens": 1000, "completion_tokens": 200}
    )

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"


def _handler(state: Endpoint) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:  # quiet test output
            pass

        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            if self.path != "/v1/chat/completions":
                self._send(404, {"error": {"message": f"no route {self.path}"}})
                return
            state.requests.append(json.loads(body))
            state.headers.append({k.lower(): v for k, v in self.headers.items()})
            if state.delay_s:
                time.sleep(state.delay_s)
            if state.status != 200:
                self._send(state.status, {"error": {"message": "planted server failure", "type": "server"}})
                return
            payload: dict[str, Any] = {
                "id": "chatcmpl-test",
                "object": "chat.completion",
                "created": 0,
                "model": "served-model-v1",
                "choices": [],
            }
            if state.choices:
                payload["choices"] = [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": state.content},
                        "finish_reason": state.finish_reason,
                    }
                ]
            if state.usage is not None:
                payload["usage"] = {**state.usage, "total_tokens": sum(state.usage.values())}
            self._send(200, payload)

        def _send(self, status: int, payload: dict[str, Any]) -> None:
            data = json.dumps(payload).encode()
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                # Tell the client's retry loop to wait 1 ms rather than its exponential backoff.
                self.send_header("retry-after-ms", "1")
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (the timeout test): nothing to answer

    return Handler


@pytest.fixture
def endpoint(monkeypatch: pytest.MonkeyPatch) -> Iterator[Endpoint]:
    for var in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv(KEY_ENV, KEY)
    state = Endpoint()
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(state))
    state.port = server.server_address[1]
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


# ---------------------------------------------------------------------------------------------------
# Helpers


def _png(width: int = 2, height: int = 2) -> bytes:
    """A valid RGB PNG built from raw chunks (no imaging library needed)."""

    def chunk(tag: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data))

    rows = b"".join(b"\x00" + bytes([255, 0, 0]) * width for _ in range(height))
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", ihdr)
        + chunk(b"IDAT", zlib.compress(rows))
        + chunk(b"IEND", b"")
    )


def _models_file(tmp_path: Path, endpoint: Endpoint, extra: str = "") -> Path:
    path = tmp_path / "models.toml"
    path.write_text(
        f"""
[models.vision]
base_url = "{endpoint.base_url}"
model = "vision-model"
api_key_env = "{KEY_ENV}"
input_price_per_mtok = 3.0
output_price_per_mtok = 15.0
max_output_tokens = 4096
max_retries = 2

[models.textonly]
base_url = "{endpoint.base_url}"
model = "text-model"
supports_images = false
max_retries = 2
{extra}
""",
        encoding="utf-8",
    )
    return path


def _image_request(
    tmp_path: Path, *, sample_index: int = 0, case_key: str = "mmopt/x/tsp_h_003/stage1/s0"
) -> CompletionRequest:
    png = tmp_path / "visual_0.png"
    png.write_bytes(_png())
    png2 = tmp_path / "visual_1.png"
    png2.write_bytes(_png(3, 1))
    messages = (
        Message.text("system", "You are an optimization modeler."),
        Message(
            role="user",
            parts=(
                TextPart("Solve this. First figure:"),
                ImagePart.from_file(png),
                TextPart("Second figure:"),
                ImagePart.from_file(png2),
                TextPart("Answer in the contract."),
            ),
        ),
    )
    decoding = Decoding(temperature=0.7, max_tokens=9000, seed=42, sample_index=sample_index)
    return CompletionRequest(case_key=case_key, messages=messages, decoding=decoding)


def _text_request(
    case_key: str = "nldata/lp_001/base/s0", *, reference: Callable[[], str] | None = None
) -> CompletionRequest:
    return CompletionRequest(
        case_key=case_key,
        messages=(Message.text("user", "Write the model."),),
        decoding=Decoding(),
        reference=reference,
    )


# ---------------------------------------------------------------------------------------------------
# OpenAI-compatible adapter


def test_openai_sends_parts_in_order_with_png_data_urls(tmp_path: Path, endpoint: Endpoint) -> None:
    spec = load_models_file(_models_file(tmp_path, endpoint))["vision"]
    adapter = OpenAIChatAdapter(spec)
    completion = adapter.complete(_image_request(tmp_path))

    assert len(endpoint.requests) == 1
    body = endpoint.requests[0]
    assert endpoint.headers[0]["authorization"] == f"Bearer {KEY}"
    assert body["model"] == "vision-model"
    assert body["messages"][0] == {"role": "system", "content": "You are an optimization modeler."}
    parts = body["messages"][1]["content"]
    assert [p["type"] for p in parts] == ["text", "image_url", "text", "image_url", "text"]
    assert [p["text"] for p in parts if p["type"] == "text"] == [
        "Solve this. First figure:",
        "Second figure:",
        "Answer in the contract.",
    ]
    urls = [p["image_url"]["url"] for p in parts if p["type"] == "image_url"]
    prefix = "data:image/png;base64,"
    assert all(u.startswith(prefix) for u in urls)
    assert base64.b64decode(urls[0][len(prefix) :]) == _png()
    assert base64.b64decode(urls[1][len(prefix) :]) == _png(3, 1)

    # decoding: temperature and seed passed, max_tokens capped by max_output_tokens
    assert body["temperature"] == 0.7
    assert body["seed"] == 42
    assert body["max_tokens"] == 4096

    assert completion.text == "the answer"
    assert completion.model_id == "served-model-v1"
    assert completion.finish_reason == "stop"
    assert completion.usage.input_tokens == 1000
    assert completion.usage.output_tokens == 200
    assert completion.cost_usd == pytest.approx(1000 * 3.0 / 1e6 + 200 * 15.0 / 1e6)
    assert completion.latency_s > 0
    assert completion.cache_hit is False


def test_openai_no_seed_no_prices_none_content(tmp_path: Path, endpoint: Endpoint) -> None:
    endpoint.content = None
    endpoint.finish_reason = "length"
    spec = load_models_file(_models_file(tmp_path, endpoint))["textonly"]
    completion = OpenAIChatAdapter(spec).complete(_text_request())
    body = endpoint.requests[0]
    assert "seed" not in body
    assert body["max_tokens"] == Decoding().max_tokens
    assert body["messages"] == [{"role": "user", "content": "Write the model."}]
    # no api_key_env: a placeholder, never $OPENAI_API_KEY or another configured key
    assert KEY not in endpoint.headers[0]["authorization"]
    assert completion.text == ""
    assert completion.truncated
    assert completion.cost_usd is None


def test_openai_reasoning_model_options(tmp_path: Path, endpoint: Endpoint) -> None:
    extra = f"""
[models.reasoner]
base_url = "{endpoint.base_url}"
model = "r-model"
max_tokens_param = "max_completion_tokens"
supports_temperature = false
[models.reasoner.extra_body]
reasoning_effort = "high"
"""
    spec = load_models_file(_models_file(tmp_path, endpoint, extra))["reasoner"]
    OpenAIChatAdapter(spec).complete(_text_request())
    body = endpoint.requests[0]
    assert body["max_completion_tokens"] == Decoding().max_tokens
    assert "max_tokens" not in body
    assert "temperature" not in body
    assert body["reasoning_effort"] == "high"


def test_openai_http_500_is_adapter_error_after_retries(tmp_path: Path, endpoint: Endpoint) -> None:
    endpoint.status = 500
    spec = load_models_file(_models_file(tmp_path, endpoint))["vision"]
    with pytest.raises(AdapterError) as err:
        OpenAIChatAdapter(spec).complete(_text_request())
    assert err.value.status == 500
    assert err.value.kind == "api_error"
    assert "nldata/lp_001/base/s0" in str(err.value)
    assert len(endpoint.requests) == 3  # the first try and max_retries=2
    assert KEY not in str(err.value)


def test_openai_rate_limit_and_client_errors(tmp_path: Path, endpoint: Endpoint) -> None:
    spec = load_models_file(_models_file(tmp_path, endpoint))["vision"]
    endpoint.status = 429
    with pytest.raises(AdapterError) as err:
        OpenAIChatAdapter(spec).complete(_text_request())
    assert err.value.status == 429
    assert "rate limited" in str(err.value)
    endpoint.status = 400
    with pytest.raises(AdapterError) as err:
        OpenAIChatAdapter(spec).complete(_text_request())
    assert err.value.status == 400


def test_openai_empty_choices_is_adapter_error(tmp_path: Path, endpoint: Endpoint) -> None:
    endpoint.choices = False
    spec = load_models_file(_models_file(tmp_path, endpoint))["vision"]
    with pytest.raises(AdapterError, match="no choices"):
        OpenAIChatAdapter(spec).complete(_text_request())


def test_openai_connection_refused_is_adapter_error(tmp_path: Path, endpoint: Endpoint) -> None:
    with socket.socket() as sock:  # a loopback port that nothing listens on once closed
        sock.bind(("127.0.0.1", 0))
        free_port = sock.getsockname()[1]
    extra = f"""
[models.down]
base_url = "http://127.0.0.1:{free_port}/v1"
model = "m"
request_timeout_s = 2
max_retries = 1
retry_base_delay_s = 0.01
"""
    spec = load_models_file(_models_file(tmp_path, endpoint, extra))["down"]
    with pytest.raises(AdapterError, match="could not connect") as err:
        OpenAIChatAdapter(spec).complete(_text_request())
    assert err.value.status is None


def test_openai_timeout_is_adapter_error(tmp_path: Path, endpoint: Endpoint) -> None:
    endpoint.delay_s = 1.0
    extra = f"""
[models.slow]
base_url = "{endpoint.base_url}"
model = "m"
request_timeout_s = 0.2
max_retries = 1
retry_base_delay_s = 0.01
"""
    spec = load_models_file(_models_file(tmp_path, endpoint, extra))["slow"]
    with pytest.raises(AdapterError, match="timed out") as err:
        OpenAIChatAdapter(spec).complete(_text_request())
    assert err.value.status is None


def test_openai_missing_key_env(tmp_path: Path, endpoint: Endpoint, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(KEY_ENV)
    spec = load_models_file(_models_file(tmp_path, endpoint))["vision"]
    with pytest.raises(AdapterError, match=KEY_ENV):
        OpenAIChatAdapter(spec).complete(_text_request())
    assert endpoint.requests == []


def test_text_only_model_refuses_images(tmp_path: Path, endpoint: Endpoint) -> None:
    spec = load_models_file(_models_file(tmp_path, endpoint))["textonly"]
    with pytest.raises(AdapterError) as err:
        OpenAIChatAdapter(spec).complete(_image_request(tmp_path))
    assert err.value.kind == "unsupported_input"
    assert "visual_0.png" in str(err.value)
    assert endpoint.requests == []
    # offline with a cold cache it is still a skip, not a cache miss
    cached = CachedAdapter(OpenAIChatAdapter(spec), tmp_path / "cache", offline=True)
    with pytest.raises(AdapterError) as err:
        cached.complete(_image_request(tmp_path))
    assert err.value.kind == "unsupported_input"


def test_describe_names_key_env_never_key(tmp_path: Path, endpoint: Endpoint) -> None:
    adapter = resolve_adapter(
        "vision", models_file=_models_file(tmp_path, endpoint), cache_dir=tmp_path / "c"
    )
    info = adapter.describe()
    assert info["alias"] == "vision"
    assert info["model_id"] == "vision-model"
    assert info["base_url"] == endpoint.base_url
    assert info["api_key_env"] == KEY_ENV
    assert KEY not in json.dumps(info, default=str)


# ---------------------------------------------------------------------------------------------------
# Cache


def test_cache_hit_sends_nothing(tmp_path: Path, endpoint: Endpoint) -> None:
    cache_dir = tmp_path / "cache"
    adapter = resolve_adapter("vision", models_file=_models_file(tmp_path, endpoint), cache_dir=cache_dir)
    assert isinstance(adapter, CachedAdapter)
    first = adapter.complete(_image_request(tmp_path))
    assert len(endpoint.requests) == 1 and first.cache_hit is False

    # same content under another case key: same request, served from disk
    second = adapter.complete(_image_request(tmp_path, case_key="other/case/s0"))
    assert len(endpoint.requests) == 1
    assert second.cache_hit is True
    assert (second.text, second.usage, second.cost_usd) == (first.text, first.usage, first.cost_usd)

    entries = list(cache_dir.glob("*/*.json"))
    assert len(entries) == 1
    entry = json.loads(entries[0].read_text())
    assert entries[0].parent.name == entry["key"][:2]
    assert entry["case_key"] == "mmopt/x/tsp_h_003/stage1/s0"
    # images are keyed by hash: no image bytes in the entry
    assert base64.b64encode(_png()).decode() not in entries[0].read_text()
    assert not list(cache_dir.glob("*/*.tmp"))

    # a fresh adapter over the same directory (another worker, a later run) hits too
    again = resolve_adapter("vision", models_file=_models_file(tmp_path, endpoint), cache_dir=cache_dir)
    assert again.complete(_image_request(tmp_path)).cache_hit is True
    assert len(endpoint.requests) == 1


def test_identical_requests_of_two_cases_say_whose_reply_they_share(
    tmp_path: Path, endpoint: Endpoint
) -> None:
    adapter = resolve_adapter(
        "vision", models_file=_models_file(tmp_path, endpoint), cache_dir=tmp_path / "c"
    )
    first = adapter.complete(_text_request("a/one/s0"))
    again = adapter.complete(_text_request("a/one/s0"))
    other = adapter.complete(_text_request("a/two/s0"))
    assert len(endpoint.requests) == 1
    assert (first.shared_from, again.shared_from, other.shared_from) == (None, None, "a/one/s0")


@pytest.mark.parametrize(
    ("mode", "sent", "stored"),
    [("readwrite", 1, 1), ("read", 2, 0), ("off", 2, 0)],
)
def test_cache_modes_decide_what_is_read_and_stored(
    tmp_path: Path, endpoint: Endpoint, mode: str, sent: int, stored: int
) -> None:
    cache_dir = tmp_path / "cache"
    adapter = resolve_adapter(
        "vision", models_file=_models_file(tmp_path, endpoint), cache_dir=cache_dir, cache_mode=mode
    )
    assert isinstance(adapter, CachedAdapter) is (mode != "off")
    adapter.complete(_text_request())
    adapter.complete(_text_request())
    assert len(endpoint.requests) == sent
    assert len(list(cache_dir.glob("*/*.json"))) == stored


def test_cache_read_uses_entries_and_write_refreshes_them(tmp_path: Path, endpoint: Endpoint) -> None:
    cache_dir, models = tmp_path / "cache", _models_file(tmp_path, endpoint)
    resolve_adapter("vision", models_file=models, cache_dir=cache_dir, session="s1").complete(_text_request())
    reader = resolve_adapter(
        "vision", models_file=models, cache_dir=cache_dir, session="s2", cache_mode="read"
    )
    assert reader.complete(_text_request()).cache_hit is True and len(endpoint.requests) == 1
    endpoint.content = "a fresher answer"
    writer = resolve_adapter(
        "vision", models_file=models, cache_dir=cache_dir, session="s3", cache_mode="write"
    )
    refreshed = writer.complete(_text_request())
    assert (refreshed.text, refreshed.cache_hit, len(endpoint.requests)) == ("a fresher answer", False, 2)
    assert (
        writer.complete(_text_request()).cache_hit is False and len(endpoint.requests) == 2
    )  # its own entry
    later = resolve_adapter("vision", models_file=models, cache_dir=cache_dir, session="s4")
    assert later.complete(_text_request()).text == "a fresher answer"


@pytest.mark.parametrize("mode", ["off", "write"])
def test_offline_needs_a_cache_that_is_read(tmp_path: Path, endpoint: Endpoint, mode: str) -> None:
    with pytest.raises(ValueError, match="--offline"):
        resolve_adapter(
            "vision",
            models_file=_models_file(tmp_path, endpoint),
            cache_dir=tmp_path,
            offline=True,
            cache_mode=mode,
        )


def test_cache_sample_index_is_part_of_key(tmp_path: Path, endpoint: Endpoint) -> None:
    adapter = resolve_adapter(
        "vision", models_file=_models_file(tmp_path, endpoint), cache_dir=tmp_path / "cache"
    )
    adapter.complete(_image_request(tmp_path, sample_index=0))
    second = adapter.complete(_image_request(tmp_path, sample_index=1))
    assert len(endpoint.requests) == 2
    assert second.cache_hit is False
    identity = adapter.describe()
    assert cache_key(identity, _image_request(tmp_path, sample_index=0)) != cache_key(
        identity, _image_request(tmp_path, sample_index=1)
    )


def test_cache_key_ignores_image_path_but_not_content(tmp_path: Path) -> None:
    identity = {"model_id": "m", "endpoint": "e"}
    a = tmp_path / "a.png"
    b = tmp_path / "b.png"
    c = tmp_path / "c.png"
    a.write_bytes(_png())
    b.write_bytes(_png())
    c.write_bytes(_png(1, 1))

    def req(p: Path) -> CompletionRequest:
        return CompletionRequest("k", (Message("user", (ImagePart.from_file(p),)),), Decoding())

    assert cache_key(identity, req(a)) == cache_key(identity, req(b))
    assert cache_key(identity, req(a)) != cache_key(identity, req(c))
    assert cache_key(identity, req(a)) != cache_key({"model_id": "m", "endpoint": "other"}, req(a))


def test_cache_offline_miss_names_case(tmp_path: Path, endpoint: Endpoint) -> None:
    adapter = resolve_adapter(
        "vision", models_file=_models_file(tmp_path, endpoint), cache_dir=tmp_path / "cache", offline=True
    )
    with pytest.raises(AdapterError) as err:
        adapter.complete(_image_request(tmp_path, case_key="mmopt/routing/tsp_h_003/stage1/s4"))
    assert err.value.kind == "cache_miss"
    assert "mmopt/routing/tsp_h_003/stage1/s4" in str(err.value)
    assert str(tmp_path / "cache") in str(err.value)
    assert endpoint.requests == []


def test_cache_does_not_store_errors_and_repairs_corrupt_entries(tmp_path: Path, endpoint: Endpoint) -> None:
    cache_dir = tmp_path / "cache"
    adapter = resolve_adapter("vision", models_file=_models_file(tmp_path, endpoint), cache_dir=cache_dir)
    assert isinstance(adapter, CachedAdapter)
    endpoint.status = 503
    with pytest.raises(AdapterError):
        adapter.complete(_text_request())
    assert not list(cache_dir.glob("*/*.json"))

    endpoint.status = 200
    path = adapter.path_for(_text_request())
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text('{"format": 1, "key": "trunc')  # a half entry from a killed writer
    before = len(endpoint.requests)
    result = adapter.complete(_text_request())
    assert result.cache_hit is False
    assert len(endpoint.requests) == before + 1
    assert json.loads(path.read_text())["completion"]["text"] == "the answer"
    assert adapter.complete(_text_request()).cache_hit is True


class _CountingAdapter:
    """An inner adapter that answers instantly and counts its calls (for concurrent-writer tests)."""

    name = "counting"

    def __init__(self) -> None:
        self.calls = 0
        self._lock = threading.Lock()

    def describe(self) -> dict[str, object]:
        return {"model_id": "counting", "endpoint": None}

    def complete(self, request: CompletionRequest) -> Completion:
        with self._lock:
            self.calls += 1
        return Completion(text="x" * 200_000, model_id="counting")


def test_cache_concurrent_writers_leave_whole_entries(tmp_path: Path) -> None:
    cache_dir = tmp_path / "cache"
    adapters = [CachedAdapter(_CountingAdapter(), cache_dir) for _ in range(8)]
    barrier = threading.Barrier(len(adapters))
    results: list[Completion] = []

    def run(adapter: CachedAdapter) -> None:
        barrier.wait()
        for _ in range(5):
            results.append(adapter.complete(_text_request()))

    threads = [threading.Thread(target=run, args=(a,)) for a in adapters]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(r.text == "x" * 200_000 for r in results)
    assert [p.name for p in cache_dir.rglob("*.json")] == [adapters[0].path_for(_text_request()).name]
    # The per-key lock makes the other seven wait for the first answer instead of asking again.
    assert sum(a.inner.calls for a in adapters) == 1  # type: ignore[attr-defined]


# ---------------------------------------------------------------------------------------------------
# Models file and registry


@pytest.mark.parametrize(
    ("body", "field_name"),
    [
        ('model = "m"', "base_url"),
        ('base_url = "ftp://x"\nmodel = "m"', "base_url"),
        ('base_url = "http://x/v1"\nmodel = 3', "model"),
        ('base_url = "http://x/v1"\nmodel = "m"\nsupports_images = "yes"', "supports_images"),
        ('base_url = "http://x/v1"\nmodel = "m"\nmax_output_tokens = -5', "max_output_tokens"),
        ('base_url = "http://x/v1"\nmodel = "m"\ninput_price_per_mtok = "cheap"', "input_price_per_mtok"),
        ('base_url = "http://x/v1"\nmodel = "m"\nrequest_timeout_s = 0', "request_timeout_s"),
        ('base_url = "http://x/v1"\nmodel = "m"\napi_key_env = "sk-abc def"', "api_key_env"),
        ('base_url = "http://x/v1"\nmodel = "m"\nmax_retries = -1', "max_retries"),
        ('base_url = "http://x/v1"\nmodel = "m"\nretry_max_total_s = "long"', "retry_max_total_s"),
        ('base_url = "http://x/v1"\nmodel = "m"\nextra_body = 5', "extra_body"),
        ('base_url = "http://x/v1"\nmodel = "m"\napi_key = "sk-secret"', "api_key"),
        ('base_url = "http://x/v1"\nmodel = "m"\nsuports_images = true', "suports_images"),
        ('base_url = "http://x/v1"\nmodel = "   "', "model"),
        ('base_url = "http://x/v1"\nmodel = "m"\nretry_max_delay_s = inf', "retry_max_delay_s"),
        ('base_url = "http://x/v1"\nmodel = "m"\nmax_tokens_param = "tokens"', "max_tokens_param"),
        ('base_url = "http://x/v1"\nmodel = "m"\napi_key_env = "sk-secret"', "api_key_env"),
    ],
)
def test_models_file_errors_name_file_alias_field(tmp_path: Path, body: str, field_name: str) -> None:
    path = tmp_path / "models.toml"
    path.write_text(f"[models.broken]\n{body}\n", encoding="utf-8")
    with pytest.raises(ModelsFileError) as err:
        load_models_file(path)
    message = str(err.value)
    assert str(path) in message
    assert "[models.broken]" in message
    assert field_name in message
    assert "sk-secret" not in message


_URL_MODEL = 'base_url = "http://h"\nmodel = "m"\n'


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ('model = "m"', "[models.x]: field 'base_url' is required"),
        (
            'base_url = "ftp://h"\nmodel = "m"',
            "field 'base_url' must start with http:// or https://, got 'ftp://h'",
        ),
        (
            _URL_MODEL + 'supports_images = "yes"',
            "field 'supports_images' input should be a valid boolean, got 'yes'",
        ),
        (_URL_MODEL + "max_retries = 2.5", "field 'max_retries' input should be a valid integer, got 2.5"),
        (
            _URL_MODEL + "suports_images = true",
            "unknown field 'suports_images'; known fields: base_url, model,",
        ),
    ],
)
def test_models_file_is_checked_by_the_schema_with_a_clear_message(
    tmp_path: Path, body: str, message: str
) -> None:
    path = tmp_path / "models.toml"
    path.write_text(f"[models.x]\n{body}\n", encoding="utf-8")
    with pytest.raises(ModelsFileError) as err:
        load_models_file(path)
    assert str(err.value).startswith(f"models file {path}, [models.x]: ") and message in str(err.value)
    data = tomllib.loads(path.read_text())
    with pytest.raises(ValidationError):  # the schema module's ModelsFile is what refused it
        ModelsFile.model_validate(data)


def test_a_non_table_alias_is_named(tmp_path: Path) -> None:
    path = tmp_path / "models.toml"
    path.write_text("[models]\nbroken = 4\n", encoding="utf-8")
    with pytest.raises(ModelsFileError, match=r"\[models.broken\]: must be a table, got int"):
        load_models_file(path)


def test_models_file_invalid_toml(tmp_path: Path) -> None:
    path = tmp_path / "models.toml"
    path.write_text("[models.x\n", encoding="utf-8")
    with pytest.raises(ModelsFileError, match="not valid TOML"):
        load_models_file(path)


def test_models_example_is_valid() -> None:
    example = Path(__file__).resolve().parent.parent / "models.example.toml"
    specs = load_models_file(example)
    assert {"claude", "gpt-5.4", "local"} <= set(specs)
    assert specs["local"].api_key_env is None
    assert specs["local"].supports_images is False


def test_unknown_alias_lists_known_ones(tmp_path: Path, endpoint: Endpoint) -> None:
    models = _models_file(tmp_path, endpoint)
    with pytest.raises(UnknownModelError) as err:
        resolve_adapter("gpt-9", models_file=models, cache_dir=tmp_path / "c")
    message = str(err.value)
    assert isinstance(err.value, ValueError)
    for alias in ("oracle", "replay:", "vision", "textonly"):
        assert alias in message
    assert str(models) in message


def test_unknown_alias_without_models_file_says_how(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("OPTBENCH_MODELS_FILE", raising=False)
    with pytest.raises(UnknownModelError) as err:
        resolve_adapter("claude", models_file=None, cache_dir=tmp_path / "c")
    message = str(err.value)
    assert "no models file was found" in message
    assert "OPTBENCH_MODELS_FILE" in message
    assert "oracle" in message


def test_models_file_from_env_and_cwd(
    tmp_path: Path, endpoint: Endpoint, monkeypatch: pytest.MonkeyPatch
) -> None:
    models = _models_file(tmp_path, endpoint)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    monkeypatch.setenv("OPTBENCH_MODELS_FILE", str(models))
    assert resolve_adapter("vision", models_file=None, cache_dir=tmp_path / "c").name == "vision"
    monkeypatch.delenv("OPTBENCH_MODELS_FILE")
    monkeypatch.chdir(tmp_path)  # models.toml in the current directory
    assert resolve_adapter("textonly", models_file=None, cache_dir=tmp_path / "c").name == "textonly"


def test_builtins_do_not_read_a_broken_models_file(tmp_path: Path) -> None:
    broken = tmp_path / "models.toml"
    broken.write_text("not toml at all [[[", encoding="utf-8")
    adapter = resolve_adapter("oracle", models_file=broken, cache_dir=tmp_path / "c")
    assert isinstance(adapter, OracleAdapter)  # not cached


def test_register_adapter_hook(tmp_path: Path) -> None:
    class Planted(OracleAdapter):
        def complete(self, request: CompletionRequest) -> Completion:
            done = super().complete(request)
            return type(done)(text=done.text.upper(), model_id="planted")

    register_adapter("oracle-shout", lambda alias: Planted(alias))
    register_adapter("shout:", lambda alias: Planted(alias), cached=True)
    try:
        with pytest.raises(ValueError, match="already registered"):
            register_adapter("oracle-shout", lambda alias: Planted(alias))
        plain = resolve_adapter("oracle-shout", models_file=None, cache_dir=tmp_path / "c")
        assert plain.name == "oracle-shout"
        assert plain.complete(_text_request(reference=lambda: "ref")).text == "REF"
        cached = resolve_adapter("shout:typo", models_file=None, cache_dir=tmp_path / "c")
        assert isinstance(cached, CachedAdapter) and cached.name == "shout:typo"
    finally:
        unregister_adapter("oracle-shout")
        unregister_adapter("shout:")
    with pytest.raises(UnknownModelError):
        resolve_adapter("oracle-shout", models_file=None, cache_dir=tmp_path / "c")


# ---------------------------------------------------------------------------------------------------
# Replay and oracle


def _replay_file(tmp_path: Path, lines: list[str]) -> Path:
    path = tmp_path / "recorded.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_replay_exact_and_sampleless_fallback(tmp_path: Path) -> None:
    path = _replay_file(
        tmp_path,
        [
            json.dumps({"case": "mmopt/tsp/stage1", "response": "shared answer"}),
            json.dumps(
                {
                    "case": "mmopt/tsp/stage1/s2",
                    "response": "sample two",
                    "finish_reason": "length",
                    "usage": {"input_tokens": 10, "output_tokens": 5},
                    "recorded_at": "ignored",
                }
            ),
        ],
    )
    adapter = ReplayAdapter(path)
    assert adapter.complete(_text_request("mmopt/tsp/stage1/s0")).text == "shared answer"
    exact = adapter.complete(_text_request("mmopt/tsp/stage1/s2"))
    assert exact.text == "sample two"
    assert exact.truncated
    assert (exact.usage.input_tokens, exact.usage.output_tokens) == (10, 5)
    with pytest.raises(AdapterError, match=r"no recorded response for case mmopt/lp/stage1/s0 in"):
        adapter.complete(_text_request("mmopt/lp/stage1/s0"))


def test_replay_answers_per_case_and_never_through_the_cache(tmp_path: Path) -> None:
    """Three cases asking the very same thing (like three public Mamo questions with one text and
    different answers) each get their own recorded answer."""
    keys = ("mamo/ode/q1/fewshot", "mamo/ode/q2/fewshot", "mamo/ode/q3/fewshot")
    path = _replay_file(
        tmp_path, [json.dumps({"case": k, "response": f"answer {i}"}) for i, k in enumerate(keys)]
    )
    adapter = resolve_adapter(f"replay:{path}", models_file=None, cache_dir=tmp_path / "cache")
    assert not isinstance(adapter, CachedAdapter)
    assert adapter.name == f"replay:{path}"
    answers = [adapter.complete(_text_request(f"{k}/s0")) for k in keys]
    assert [a.text for a in answers] == ["answer 0", "answer 1", "answer 2"]
    assert not any(a.cache_hit for a in answers)
    assert not (tmp_path / "cache").exists()
    with pytest.raises(AdapterError, match="mamo/ode/q4/fewshot/s0"):  # names the right case
        adapter.complete(_text_request("mamo/ode/q4/fewshot/s0"))


@pytest.mark.parametrize(
    ("bad_line", "problem"),
    [
        ("{not json", "not valid JSON"),
        ('["a list"]', "expected a JSON object"),
        ('{"response": "x"}', "'case'"),
        ('{"case": "a/b", "response": 7}', "'response'"),
        ('{"case": "a/b", "response": "x", "usage": {"input_tokens": -1}}', "usage.input_tokens"),
        ('{"case": "c/d", "response": "dup"}', "already recorded on line 1"),
    ],
)
def test_replay_malformed_line_names_file_and_line(tmp_path: Path, bad_line: str, problem: str) -> None:
    path = _replay_file(tmp_path, [json.dumps({"case": "c/d", "response": "ok"}), "", bad_line])
    with pytest.raises(ReplayFileError) as err:
        ReplayAdapter(path)
    assert f"{path}:3" in str(err.value)
    assert problem in str(err.value)


def test_replay_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ReplayFileError, match="cannot read"):
        resolve_adapter(f"replay:{tmp_path / 'nope.jsonl'}", models_file=None, cache_dir=tmp_path / "c")


def test_oracle_returns_reference() -> None:
    completion = OracleAdapter().complete(_text_request(reference=lambda: "REFERENCE ANSWER"))
    assert completion.text == "REFERENCE ANSWER"
    assert completion.model_id == "oracle"
    assert completion.usage.input_tokens is None and completion.usage.output_tokens is None
    assert completion.latency_s >= 0


def test_oracle_propagates_unavailable_and_needs_reference() -> None:
    def unavailable() -> str:
        raise OracleUnavailable("no runnable reference for this case")

    with pytest.raises(OracleUnavailable):
        OracleAdapter().complete(_text_request(reference=unavailable))
    with pytest.raises(AdapterError, match="no reference"):
        OracleAdapter().complete(_text_request())
