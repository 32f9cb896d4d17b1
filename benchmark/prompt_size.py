"""How big a prompt is, measured on what the harness sends (text characters, images), and what
follows from it without a tokenizer: a generous upper bound on its tokens for the spend cap, and a
check that the prompt tokens a server counted are not implausibly few for it.

No model's tokenizer is at hand (and each differs), so both use bounds on characters per token
that hold for every tokenizer in use on this kind of text (prose, numbers, code, JSON): about 3 to 5
characters per token on average, never above :data:`MAX_CHARS_PER_TOKEN`. A server that counts
fewer tokens than that did not see the whole prompt: llama.cpp's chat templates, for one, drop a
message whose content is a list of parts, which is how messages with images travel, and the model
answers a prompt it never got.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from benchmark.messages import Message, TextPart

MAX_CHARS_PER_TOKEN = 8
"""Fewer tokens than characters / 8 cannot be the whole text (twice the longest average of any
tokenizer on this kind of text)."""
MIN_CHARS_PER_TOKEN = 3
"""The spend cap's estimate: at most one token per 3 characters (an overestimate for prose)."""
IMAGE_TOKENS = 1600
"""The spend cap's estimate per image (a large image at a hosted API's high detail)."""
CHECKED_FROM_CHARS = 400
"""Shorter prompts are not checked: a template's own tokens weigh too much in them."""


@dataclass(frozen=True)
class PromptSize:
    text_chars: int
    images: int

    @classmethod
    def of(cls, messages: Sequence[Message]) -> PromptSize:
        chars = sum(len(p.text) for m in messages for p in m.parts if isinstance(p, TextPart))
        return cls(text_chars=chars, images=sum(len(m.images()) for m in messages))

    def most_tokens(self) -> int:
        """An upper estimate of the prompt's tokens, for reserving its cost before sending."""
        return math.ceil(self.text_chars / MIN_CHARS_PER_TOKEN) + IMAGE_TOKENS * self.images

    def fewest_tokens(self) -> int:
        """Fewer counted prompt tokens than this mean the server did not see all of the text."""
        return self.text_chars // MAX_CHARS_PER_TOKEN


def implausible_prompt_tokens(counted: int | None, messages: Sequence[Message]) -> str | None:
    """Why ``counted`` prompt tokens (the server's usage) cannot be what ``messages`` sent, or None
    when they can (or nothing was counted, or the prompt is too short to tell)."""
    size = PromptSize.of(messages)
    if counted is None or size.text_chars < CHECKED_FROM_CHARS or counted >= size.fewest_tokens():
        return None
    images = f" and {size.images} image(s)" if size.images else ""
    return (
        f"the server counted {counted} prompt tokens for {size.text_chars:,} characters of text{images} "
        f"(at least {size.fewest_tokens():,} expected): it did not see the whole prompt; a chat template "
        "that drops messages made of parts (text with images) does this, e.g. llama.cpp's gemma "
        "format: set supports_images = false for such a server, or give it a multimodal template"
    )
