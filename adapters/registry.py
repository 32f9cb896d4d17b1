"""From the alias a user types (``--model=...``) to a ready adapter.

Built-ins are ``oracle``, ``replay:FILE`` and ``artifacts:DIR`` (answer files an external agent
wrote, see :mod:`adapters.artifacts`), never cached: their answers are per case (the suite's
reference, the file's line or file for that case), and a content cache would hand one case's answer
to another that asks the same thing. Every other alias is looked up in the models file and served by
the OpenAI-compatible adapter behind the response cache (``cache_mode``, see :mod:`adapters.cache`).
Test adapters (oracle variants that fail in planted ways) plug in with :func:`register_adapter`
instead of editing this module; the harness's own tests register ``planted:`` that way (the pytest
plugin ``tests/planted_adapter.py``), so it is no alias of a production run.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from adapters.artifacts import PREFIX as ARTIFACTS_PREFIX
from adapters.artifacts import ArtifactsSource
from adapters.base import ModelAdapter
from adapters.cache import CACHE_MODES, CachedAdapter
from adapters.models_file import DEFAULT_FILENAME, ENV_VAR, find_models_file, load_models_file
from adapters.oracle import OracleAdapter
from adapters.replay import ReplayAdapter

__all__ = [
    "AdapterFactory",
    "UnknownModelError",
    "known_aliases",
    "register_adapter",
    "resolve_adapter",
    "unregister_adapter",
]

AdapterFactory = Callable[[str], ModelAdapter]
"""Builds an adapter from the alias exactly as the user typed it (for a prefix like ``replay:``,
the factory parses its argument out of the alias itself)."""


class UnknownModelError(ValueError):
    """No built-in, registered or models-file alias matches; the message lists the known ones."""


@dataclass(frozen=True)
class _Registration:
    factory: AdapterFactory
    cached: bool


_lock = threading.Lock()
_names: dict[str, _Registration] = {}
_prefixes: dict[str, _Registration] = {}


def register_adapter(
    prefix_or_name: str, factory: AdapterFactory, *, cached: bool = False, replace: bool = False
) -> None:
    """Make ``factory`` answer an alias.

    A name ending in ``:`` is a prefix (``"replay:"`` answers ``replay:anything``), otherwise it is an
    exact name. ``cached=True`` puts the response cache in front, as for real models; the default is
    off because registered adapters are oracle variants whose answers come from the suite. Registering
    a taken name raises unless ``replace=True``, so two plugins cannot silently shadow each other.
    """
    if not prefix_or_name or prefix_or_name != prefix_or_name.strip():
        raise ValueError(f"adapter name must be non-empty without surrounding spaces: {prefix_or_name!r}")
    table = _prefixes if prefix_or_name.endswith(":") else _names
    with _lock:
        if prefix_or_name in table and not replace:
            raise ValueError(f"adapter {prefix_or_name!r} is already registered")
        table[prefix_or_name] = _Registration(factory=factory, cached=cached)


def unregister_adapter(prefix_or_name: str) -> None:
    """Remove a registration (tests use it to leave the registry as they found it)."""
    table = _prefixes if prefix_or_name.endswith(":") else _names
    with _lock:
        table.pop(prefix_or_name, None)


def _lookup(alias: str) -> _Registration | None:
    with _lock:
        if alias in _names:
            return _names[alias]
        matches = [p for p in _prefixes if alias.startswith(p) and len(alias) > len(p)]
        return _prefixes[max(matches, key=len)] if matches else None


def _registered_aliases() -> list[str]:
    with _lock:
        return sorted(_names) + sorted(f"{p}<arg>" for p in _prefixes)


def known_aliases(models_file: Path | None = None) -> list[str]:
    """Built-in and registered aliases followed by those of the models file (if one is found)."""
    found = find_models_file(models_file)
    from_file = sorted(load_models_file(found)) if found is not None else []
    return _registered_aliases() + from_file


def resolve_adapter(
    alias: str,
    *,
    models_file: Path | None,
    cache_dir: Path,
    offline: bool = False,
    session: str | None = None,
    behind_cache: Callable[[ModelAdapter], ModelAdapter] | None = None,
    cache_mode: str = "readwrite",
) -> ModelAdapter:
    """The adapter for ``alias``: registered names first, then prefixes, then the models file.

    The models file is only read when the alias is not a registered one, so a broken models file never
    stops an ``oracle`` or ``replay:`` run. Raises :class:`UnknownModelError` for an unknown alias and
    :class:`~adapters.models_file.ModelsFileError` for a missing or invalid models file.

    ``session`` is handed to the cache (see :class:`CachedAdapter`); ``behind_cache`` wraps the adapter
    that a cache miss reaches (the plugin puts the in-flight limit and the spend cap there, see
    :mod:`benchmark.limiter`), so that cache hits never wait for a slot.
    """

    if cache_mode not in CACHE_MODES:
        raise ValueError(f"cache mode {cache_mode!r} is not one of {', '.join(CACHE_MODES)}")

    def cached(adapter: ModelAdapter) -> ModelAdapter:
        inner = behind_cache(adapter) if behind_cache is not None else adapter
        if cache_mode == "off":
            if offline:
                raise ValueError("--offline answers from the cache, which --cache=off turns off")
            return inner
        return CachedAdapter(inner, cache_dir, offline=offline, session=session, mode=cache_mode)

    registration = _lookup(alias)
    if registration is not None:
        adapter = registration.factory(alias)
        return cached(adapter) if registration.cached else adapter

    found = find_models_file(models_file)
    specs = load_models_file(found) if found is not None else {}
    spec = specs.get(alias)
    if spec is not None:
        # Imported here so runs that never touch an endpoint do not pay for importing the client.
        from adapters.openai_chat import OpenAIChatAdapter

        return cached(OpenAIChatAdapter(spec))

    known = ", ".join(_registered_aliases() + sorted(specs))
    if found is None:
        source = (
            f"no models file was found (none given, ${ENV_VAR} unset, no {DEFAULT_FILENAME} in the "
            f"current directory); point at one with --models-file, ${ENV_VAR} or by placing "
            f"{DEFAULT_FILENAME} here (see models.example.toml)"
        )
    else:
        source = f"models file read: {found}"
    raise UnknownModelError(f"unknown model alias {alias!r}; known aliases: {known}; {source}")


def _replay_factory(alias: str) -> ModelAdapter:
    return ReplayAdapter(Path(alias.removeprefix("replay:")), name=alias)


register_adapter("oracle", OracleAdapter, cached=False)
register_adapter("replay:", _replay_factory, cached=False)
register_adapter(ARTIFACTS_PREFIX, ArtifactsSource, cached=False)
