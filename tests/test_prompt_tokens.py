"""A server that counts implausibly few prompt tokens for what was sent did not see the prompt: the
run warns, and the ledger line and the record's turn say so. The loopback server here behaves as
llama.cpp's gemma chat template does: a message whose content is a list of parts (text with
images) is dropped, so only the plain-string messages are counted."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from benchmark.ledger import LEDGER_FILE
from benchmark.messages import Message
from benchmark.prompt_size import implausible_prompt_tokens
from tests.chat_server import ChatServer, Reply
from tests.conftest import BenchRun, run_bench

CASE = "mf_e_001"
TEMPLATE_TOKENS = 7


def _counted(body: dict[str, Any], *, drop_parts: bool) -> int:
    """About four characters a token, over the messages the template keeps."""
    chars = 0
    for message in body["messages"]:
        content = message.get("content")
        if isinstance(content, str):
            chars += len(content)
        elif not drop_parts:
            chars += sum(len(part.get("text", "")) for part in content or ())
    return TEMPLATE_TOKENS + chars // 4


def _run(tmp_path: Path, *, drop_parts: bool) -> BenchRun:
    server = ChatServer(
        lambda body, seen: Reply(text="no sections", usage=(_counted(body, drop_parts=drop_parts), 5))
    )
    with server.running():
        models = tmp_path / "models.toml"
        models.write_text(
            f'[models.local]\nbase_url = "{server.base_url}"\nmodel = "gemma"\nsupports_images = true\n'
            "max_retries = 0\n",
            encoding="utf-8",
        )
        run = run_bench(tmp_path / "run", "--model=local", f"--models-file={models}", "-k", CASE, "-n", "0")
    assert len(server.requests) == 1, run.output[-3000:]
    return run


def _ledger(run: BenchRun) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (run.run_dir / LEDGER_FILE).read_text().splitlines()]


@pytest.mark.slow
def test_a_template_that_drops_image_messages_is_warned_about_and_recorded(tmp_path: Path) -> None:
    run = _run(tmp_path, drop_parts=True)
    (record,) = run.records
    (turn,) = record["turns"]
    assert "did not see the whole prompt" in turn["prompt_warning"], turn
    assert f"the server counted {turn['usage']['input_tokens']} prompt tokens" in turn["prompt_warning"]
    (line,) = _ledger(run)
    assert line["prompt_warning"] == turn["prompt_warning"]
    assert "1 request(s) with implausibly few prompt tokens; the first, mmopt/" in run.output


@pytest.mark.slow
def test_a_server_that_counts_the_whole_prompt_is_not_warned_about(tmp_path: Path) -> None:
    run = _run(tmp_path, drop_parts=False)
    (record,) = run.records
    assert "prompt_warning" not in record["turns"][0]
    assert "prompt_warning" not in _ledger(run)[0]
    assert "implausibly few prompt tokens" not in run.output


def test_the_bound_counts_every_text_part_and_skips_short_or_uncounted_prompts() -> None:
    long = (Message.text("system", "x" * 800), Message.text("user", "y" * 800))
    assert implausible_prompt_tokens(199, long) is not None  # 1,600 characters: at least 200 tokens
    assert implausible_prompt_tokens(200, long) is None
    assert implausible_prompt_tokens(None, long) is None  # the server said nothing
    assert implausible_prompt_tokens(1, (Message.text("user", "z" * 399),)) is None  # too short to tell
