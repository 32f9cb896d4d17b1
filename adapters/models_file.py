"""The models file: named aliases (``--model=claude``) for OpenAI-compatible endpoints.

Aliases live in a TOML file rather than in code so that a user can point the benchmark at a gateway,
a hosted API or a local llama.cpp / vLLM server without touching the harness, and so that API keys
never sit in a file: the file names the *environment variable* that holds the key. Every field is
checked when the file is read against the run log's schema (:class:`benchmark.schema.ModelsFile`),
and errors name the file, the alias and the field, because a typo here otherwise surfaces as a
confusing HTTP error deep inside a run.
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from adapters.retry import RetryPolicy
from benchmark.schema import ModelEntry, ModelsFile, ValidationError

ENV_VAR = "OPTBENCH_MODELS_FILE"
"""Environment variable naming the models file when none is passed explicitly."""

DEFAULT_FILENAME = "models.toml"
"""Looked for in the current directory when neither an argument nor :data:`ENV_VAR` names a file."""

TokenLimitParam = Literal["max_tokens", "max_completion_tokens"]

RESERVED_BODY_KEYS = (
    "model", "messages", "n", "stream", "stream_options", "tools",
    "temperature", "seed", "max_tokens", "max_completion_tokens",
)  # fmt: skip
"""Request fields the adapter sets itself and the run records (model id, prompt, decoding, tools),
or that change the reply's shape (``n`` choices, a stream). ``extra_body`` is merged over the body
the client builds, so one of these there would silently replace what the manifest and every record
say was sent; the models file refuses them instead."""


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


#: Every field a ``[models.<alias>]`` table may have (the schema's), for error messages.
_KNOWN_FIELDS = tuple(ModelEntry.model_fields)


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
    for alias, table in models.items():
        if isinstance(table, dict) and "api_key" in table:  # said before validation: no value is shown
            raise ModelsFileError(
                f"models file {path}, [models.{alias}]: field 'api_key' is not allowed; keys never go in "
                "the file, name the environment variable that holds it with api_key_env"
            )
    try:
        parsed = ModelsFile.model_validate(data)
    except ValidationError as exc:
        raise ModelsFileError(_first_problem(path, exc)) from None
    return {alias: _spec(path, alias, entry) for alias, entry in parsed.models.items()}


def _first_problem(path: Path, error: ValidationError) -> str:
    """The first fault as ``models file PATH, [models.ALIAS]: field 'NAME' PROBLEM, got VALUE``."""
    item = error.errors()[0]
    location = [str(part) for part in item["loc"]]
    alias = location[1] if len(location) > 1 else "?"
    where = f"models file {path}, [models.{alias}]"
    if len(location) == 2:
        return f"{where}: must be a table, got {type(item['input']).__name__}"
    name = location[2]
    if item["type"] == "extra_forbidden":
        return f"{where}: unknown field '{name}'; known fields: {', '.join(_KNOWN_FIELDS)}"
    field_name = ".".join(location[2:])
    if item["type"] == "missing":
        return f"{where}: field '{field_name}' is required"
    message = str(item["msg"]).removeprefix("Value error, ")
    value: Any = item.get("input")
    # a value is echoed unless it is a table or could be a key put where its variable's name goes
    shown = not isinstance(value, dict | list) and field_name != "api_key_env"
    got = f", got {value!r}" if shown else ""
    return f"{where}: field '{field_name}' {message[0].lower()}{message[1:]}{got}"


def _spec(path: Path, alias: str, entry: ModelEntry) -> ModelSpec:
    reserved = [key for key in entry.extra_body or {} if key in RESERVED_BODY_KEYS]
    if reserved:
        raise ModelsFileError(
            f"models file {path}, [models.{alias}]: field 'extra_body.{reserved[0]}' is not allowed: "
            f"the harness sets {', '.join(RESERVED_BODY_KEYS)} itself and records them (use the fields "
            "model, max_output_tokens, max_tokens_param and supports_temperature instead)"
        )
    defaults = RetryPolicy()

    def either(value: Any, default: Any) -> Any:
        return default if value is None else value

    retry = RetryPolicy(
        max_retries=either(entry.max_retries, defaults.max_retries),
        base_delay_s=either(entry.retry_base_delay_s, defaults.base_delay_s),
        max_delay_s=either(entry.retry_max_delay_s, defaults.max_delay_s),
        max_total_s=either(entry.retry_max_total_s, defaults.max_total_s),
    )
    return ModelSpec(
        alias=alias,
        base_url=entry.base_url,
        model=entry.model,
        source=path,
        api_key_env=entry.api_key_env,
        supports_images=entry.supports_images,
        max_output_tokens=entry.max_output_tokens,
        context_window=entry.context_window,
        input_price_per_mtok=entry.input_price_per_mtok,
        output_price_per_mtok=entry.output_price_per_mtok,
        request_timeout_s=entry.request_timeout_s,
        extra_body=entry.extra_body,
        max_tokens_param=entry.max_tokens_param,
        supports_temperature=entry.supports_temperature,
        retry=retry,
    )
