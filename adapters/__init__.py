"""Model adapters: the protocol types and :func:`resolve_adapter`, which turns ``--model`` into one."""

from __future__ import annotations

from adapters.base import (
    AdapterError,
    Completion,
    CompletionRequest,
    Decoding,
    ModelAdapter,
    OracleUnavailable,
    Usage,
)
from adapters.registry import UnknownModelError, register_adapter, resolve_adapter, unregister_adapter

__all__ = [
    "AdapterError",
    "Completion",
    "CompletionRequest",
    "Decoding",
    "ModelAdapter",
    "OracleUnavailable",
    "UnknownModelError",
    "Usage",
    "register_adapter",
    "resolve_adapter",
    "unregister_adapter",
]
