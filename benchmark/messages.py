"""Chat messages as the harness hands them to model adapters.

Content parts are text or PNG images. Images are referenced by path and content hash rather than
held in memory: adapters that talk to an API read the bytes when they build the request, and the
response cache keys on the hash, so a renamed copy of the same picture is the same request.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Literal


@dataclass(frozen=True)
class TextPart:
    text: str
    kind: Literal["text"] = "text"


@dataclass(frozen=True)
class ImagePart:
    """A PNG attached to a message. ``name`` is what the prompt calls it (e.g. ``visual_0.png``)."""

    path: Path
    name: str
    sha256: str
    kind: Literal["image"] = "image"

    @classmethod
    def from_file(cls, path: Path) -> ImagePart:
        return cls(path=path, name=path.name, sha256=hashlib.sha256(path.read_bytes()).hexdigest())

    def read_bytes(self) -> bytes:
        return self.path.read_bytes()


ContentPart = TextPart | ImagePart

Role = Literal["system", "user", "assistant", "tool"]


@dataclass(frozen=True)
class ToolCall:
    """A tool invocation a model asked for (OpenAI ``tools``): ``arguments`` is the raw JSON text."""

    call_id: str
    name: str
    arguments: str


@dataclass(frozen=True)
class Message:
    """``tool_calls`` rides on an assistant message that invoked tools; a ``tool`` message answers
    the call named by ``tool_call_id``. Plain chat messages leave both empty."""

    role: Role
    parts: tuple[ContentPart, ...]
    tool_calls: tuple[ToolCall, ...] = ()
    tool_call_id: str | None = None

    @classmethod
    def text(cls, role: Role, text: str) -> Message:
        return cls(role=role, parts=(TextPart(text),))

    def plain_text(self) -> str:
        """The text parts joined, with a ``[image: name]`` marker where an image sits."""
        return "".join(p.text if isinstance(p, TextPart) else f"[image: {p.name}]" for p in self.parts)

    def images(self) -> tuple[ImagePart, ...]:
        return tuple(p for p in self.parts if isinstance(p, ImagePart))
