"""The models file: named aliases (``--model=claude``) for OpenAI-compatible endpoints.

Aliases live in a TOML file rather than in code so that a user can point the benchmark at a gateway,
a hosted API or a local llama.cpp / vLLM server without touching the harness, and so that API keys
never sit in a file: the file names the *environment variable* that holds the key. Every field is
type-checked when the file is read and errors name the file, the alias and the field, because a typo
here otherwise surfaces as a confusing HTTP error deep inside a run.
"""

from __future__ import annotations

import math
import os
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from adapters.retry import RetryPolicy

ENV_VAR = "OPTBENCH_MODELS_FILE"
"""Environment variable naming the models file when none is passed explicitly."""

DEFAULT_FILENAME = "models.toml"
"""Looked for in the current directory when neither an argument nor :data:`ENV_VAR` names a file."""

TokenLimitParam = Literal["max_tokens", "max_completion_tokens"]


class ModelsFileError(ValueError):
    """The models file is missing, is not valid TOML, or has a field of the wrong type or value."""


@dataclass(frozen=True)
class ModelSpec:
    """One ``[models.<alias>]`` table, validated.

    ``max_tokens_param`` and ``supports_temperature`` exist because OpenAI's reasoning models reject
    ``max_tokens`` (they want ``max_completion_tokens``) and any temperature other than the default;
    without them such models could not be reached through this adapter at all.
    """

    alias: str
    base_url: str
    model: str
    source: Path
    api_key_env: str | None = None
    supports_images: bool = True
    max_output_tokens: int | None = None
    context_window: int | None = None
    input_price_per_mtok: float | None = None
    output_price_per_mtok: float | None = None
    request_timeout_s: float = 600.0
    extra_body: dict[str, object] | None = field(default=None, hash=False)
    max_tokens_param: TokenLimitParam = "max_tokens"
    supports_temperature: bool = True
    retry: RetryPolicy = field(default_factory=RetryPolicy)

    @property
    def priced(self) -> bool:
        """Both prices are known, so every call's cost is (what ``--max-cost`` needs)."""
        return self.input_price_per_mtok is not None and self.output_price_per_mtok is not None

    def cost_usd(self, input_tokens: int | None, output_tokens: int | None) -> float | None:
        """Cost of one call, or None unless both prices and both token counts are known: a partial
        figure would read as a real (too low) cost in the reports."""
        if (
            self.input_price_per_mtok is None
            or self.output_price_per_mtok is None
            or input_tokens is None
            or output_tokens is None
        ):
            return None
        return (input_tokens * self.input_price_per_mtok + output_tokens * self.output_price_per_mtok) / 1e6


_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_KNOWN_FIELDS = (
    "base_url",
    "model",
    "api_key_env",
    "supports_images",
    "max_output_tokens",
    "context_window",
    "input_price_per_mtok",
    "output_price_per_mtok",
    "request_timeout_s",
    "extra_body",
    "max_tokens_param",
    "supports_temperature",
    "max_retries",
    "retry_base_delay_s",
    "retry_max_delay_s",
    "retry_max_total_s",
)


def find_models_file(explicit: Path | None = None) -> Path | None:
    """Where the models file is: the argument, else ``$OPTBENCH_MODELS_FILE``, else ``./models.toml``.

    A file named explicitly (argument or environment) must exist: silently falling back to another
    file would run a different model than the user asked for. ``None`` means no file was found.
    """
    if explicit is not None:
        if not explicit.is_file():
            raise ModelsFileError(f"models file {explicit} does not exist")
        return explicit
    from_env = os.environ.get(ENV_VAR)
    if from_env:
        path = Path(from_env)
        if not path.is_file():
            raise ModelsFileError(f"models file {path} (from ${ENV_VAR}) does not exist")
        return path
    local = Path(DEFAULT_FILENAME)
    return local if local.is_file() else None


def load_models_file(path: Path) -> dict[str, ModelSpec]:
    """Read and validate every alias in ``path``; raises :class:`ModelsFileError` on the first fault."""
    try:
        with path.open("rb") as fh:
            data = tomllib.load(fh)
    except OSError as exc:
        raise ModelsFileError(f"cannot read models file {path}: {exc}") from exc
    except tomllib.TOMLDecodeError as exc:
        raise ModelsFileError(f"models file {path} is not valid TOML: {exc}") from exc

    extra_top = sorted(set(data) - {"models"})
    if extra_top:
        raise ModelsFileError(
            f"models file {path}: unknown top-level key(s) {', '.join(extra_top)}; "
            "aliases go in tables named [models.<alias>]"
        )
    models = data.get("models", {})
    if not isinstance(models, dict):
        raise ModelsFileError(f"models file {path}: 'models' must be a table of [models.<alias>] tables")
    specs: dict[str, ModelSpec] = {}
    for alias, table in models.items():
        specs[alias] = _parse_alias(path, alias, table)
    return specs


def _parse_alias(path: Path, alias: str, table: object) -> ModelSpec:
    where = f"models file {path}, [models.{alias}]"
    if not isinstance(table, dict):
        raise ModelsFileError(f"{where}: must be a table, got {type(table).__name__}")
    if "api_key" in table:
        raise ModelsFileError(
            f"{where}: field 'api_key' is not allowed; keys never go in the file, "
            "name the environment variable that holds it with api_key_env"
        )
    unknown = sorted(set(table) - set(_KNOWN_FIELDS))
    if unknown:
        raise ModelsFileError(
            f"{where}: unknown field(s) {', '.join(unknown)}; known fields: {', '.join(_KNOWN_FIELDS)}"
        )

    def fail(name: str, problem: str) -> ModelsFileError:
        return ModelsFileError(f"{where}: field '{name}' {problem}")

    def req_str(name: str) -> str:
        if name not in table:
            raise fail(name, "is required")
        value = table[name]
        if not isinstance(value, str) or not value.strip():
            raise fail(name, f"must be a non-empty string, got {value!r}")
        return value

    def opt_bool(name: str, default: bool) -> bool:
        value = table.get(name, default)
        if not isinstance(value, bool):
            raise fail(name, f"must be true or false, got {value!r}")
        return value

    def opt_pos_int(name: str) -> int | None:
        value = table.get(name)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
            raise fail(name, f"must be a positive integer, got {value!r}")
        return value

    def opt_count(name: str) -> int | None:
        value = table.get(name)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise fail(name, f"must be a non-negative integer, got {value!r}")
        return value

    def opt_float(name: str, *, positive: bool) -> float | None:
        value = table.get(name)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
            raise fail(name, f"must be a number, got {value!r}")
        if value < 0 or (positive and value == 0):
            raise fail(name, f"must be {'positive' if positive else 'non-negative'}, got {value!r}")
        return float(value)

    base_url = req_str("base_url")
    if not base_url.startswith(("http://", "https://")):
        raise fail("base_url", f"must start with http:// or https://, got {base_url!r}")
    model = req_str("model")

    api_key_env = table.get("api_key_env")
    if api_key_env is not None and (not isinstance(api_key_env, str) or not _ENV_NAME.match(api_key_env)):
        raise fail(
            "api_key_env",
            f"must be the name of an environment variable (like OPENAI_API_KEY), got {api_key_env!r}",
        )

    extra_body = table.get("extra_body")
    if extra_body is not None and not isinstance(extra_body, dict):
        raise fail("extra_body", f"must be a table, got {extra_body!r}")

    max_tokens_param = table.get("max_tokens_param", "max_tokens")
    if max_tokens_param not in ("max_tokens", "max_completion_tokens"):
        raise fail(
            "max_tokens_param", f"must be 'max_tokens' or 'max_completion_tokens', got {max_tokens_param!r}"
        )

    timeout = opt_float("request_timeout_s", positive=True)
    defaults = RetryPolicy()
    max_retries = opt_count("max_retries")
    base_delay = opt_float("retry_base_delay_s", positive=False)
    max_delay = opt_float("retry_max_delay_s", positive=False)
    max_total = opt_float("retry_max_total_s", positive=False)
    retry = RetryPolicy(
        max_retries=defaults.max_retries if max_retries is None else max_retries,
        base_delay_s=defaults.base_delay_s if base_delay is None else base_delay,
        max_delay_s=defaults.max_delay_s if max_delay is None else max_delay,
        max_total_s=defaults.max_total_s if max_total is None else max_total,
    )
    return ModelSpec(
        alias=alias,
        base_url=base_url,
        model=model,
        source=path,
        api_key_env=api_key_env,
        supports_images=opt_bool("supports_images", True),
        max_output_tokens=opt_pos_int("max_output_tokens"),
        context_window=opt_pos_int("context_window"),
        input_price_per_mtok=opt_float("input_price_per_mtok", positive=False),
        output_price_per_mtok=opt_float("output_price_per_mtok", positive=False),
        request_timeout_s=600.0 if timeout is None else timeout,
        extra_body=extra_body,
        max_tokens_param=max_tokens_param,
        supports_temperature=opt_bool("supports_temperature", True),
        retry=retry,
    )
