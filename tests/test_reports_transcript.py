"""What a user sees of a real run through a loopback OpenAI-compatible server: the HTML case view
shows the messages as sent with the images as thumbnails, the call timeline and why the case
ended; the header, ``summary.md`` and the terminal show tokens, cost, cache and time, and a fully
cached rerun shows its own cost of 0 beside the original's; ``requests.jsonl`` lines say when and
to which model each request went."""

from __future__ import annotations

import json
import re
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from tests.chat_server import ChatServer, Reply
from tests.conftest import FIXTURES, REPO

pytestmark = pytest.mark.slow

MF1 = "network_optimization/maximum_flow/easy/mf_e_001"
PRICES = "input_price_per_mtok = 3.0\noutput_price_per_mtok = 15.0\n"


def _models(path: Path, server: ChatServer) -> Path:
    path.write_text(
        f'[models.loop]\nbase_url = "{server.base_url}"\nmodel = "loopback-model"\n'
        f"max_retries = 0\nrequest_timeout_s = 30\n{PRICES}"
    )
    return path


def _answer(_body: dict[str, Any], _seen: int) -> Reply:
    code = (FIXTURES / MF1 / "ground_truth" / "solver_ref.py").read_text()
    return Reply(
        text=f"ASSUMPTIONS\nnone\n\nMATHEMATICAL_MODEL\nmax flow\n\nPYTHON_CODE\n```python\n{code}\n```"
    )


def test_a_real_run_shows_what_was_sent_and_what_it_cost_and_a_cached_rerun_costs_nothing(
    bench, tmp_path
) -> None:
    server = ChatServer(_answer)
    with server.running():
        models = _models(tmp_path / "models.toml", server)
        first = bench("--model=loop", f"--models-file={models}", "-k", "mf_e_001", run_dir=tmp_path / "first")
        again = bench("--model=loop", f"--models-file={models}", "-k", "mf_e_001", run_dir=tmp_path / "again")
    assert first.returncode == 0, first.output[-3000:]
    assert again.returncode == 0, again.output[-3000:]
    assert len(server.requests) == 1  # the rerun was answered from the cache

    (record,) = first.records
    (turn,) = record["turns"]
    roles = [m["role"] for m in turn["messages"]]
    assert roles == ["system", "user"]
    (image,) = turn["messages"][1]["images"]
    assert image["name"] == "visual_0.png" and len(image["sha256"]) == 64
    assert "Case ID: mf_e_001" in turn["messages"][1]["text"]
    assert turn["cost_usd"] == pytest.approx((1000 * 3.0 + 200 * 15.0) / 1e6)

    page = (first.run_dir / "report.html").read_text()
    assert "Case ID: mf_e_001" in page  # the prompt as sent
    assert f"alt='visual_0.png (sha256 {image['sha256'][:12]})' title=" in page
    assert "src='data:image/png;base64," in page.split("visual_0.png (sha256", 1)[1][:200]
    assert "ended: model finished (stop)" in page
    assert "model calls<b>1</b>0 from the cache" in page

    # the ledger line: when, to which model
    (line,) = [json.loads(x) for x in (first.run_dir / "requests.jsonl").read_text().splitlines()]
    assert line["model_id"] == "loopback-model"
    assert datetime.fromisoformat(line["at"]).tzinfo is not None

    first_cost = first.summary["accounting"]["cost_usd"]
    assert first.summary["accounting"]["cost_usd_sent"] == pytest.approx(first_cost)
    assert again.summary["accounting"]["cost_usd"] == pytest.approx(first_cost)
    assert again.summary["accounting"]["cost_usd_sent"] == 0
    said = f"cost $0.0000 sent by this run (${first_cost:.4f} as the replies first cost)"
    assert said in (again.run_dir / "summary.md").read_text()
    assert said in again.output  # the terminal summary
    assert "model calls 1, 1 answered from the cache" in again.output
    assert "tokens 1,000 in, 200 out; 0 cases truncated" in (first.run_dir / "summary.md").read_text()


def test_a_tbmath_episode_shows_its_tool_calls_in_order_and_why_it_ended(bench, tmp_path) -> None:
    script = (REPO / "fixtures/tbmath/delivery_route/solution/references/held_karp.py").read_text()
    code = "ARTIFACT = 'results/delivery_route_result.json'\n" + script

    def respond(body: dict[str, Any], _seen: int) -> Reply:
        if not any(m.get("role") == "tool" for m in body["messages"]):
            call = {
                "id": "call_1",
                "type": "function",
                "function": {"name": "python", "arguments": json.dumps({"code": code})},
            }
            return Reply(text="", finish_reason="tool_calls", tool_calls=(call,))
        return Reply(text="Done: the tour is written.")

    server = ChatServer(respond)
    with server.running():
        models = _models(tmp_path / "models.toml", server)
        run = bench("--suite=tbmath", "--model=loop", f"--models-file={models}", "-k", "delivery_route")
    (record,) = run.records
    assert record["passed"], record.get("detail")
    first, second = record["turns"]
    assert [c["name"] for c in first["tool_calls"]] == ["python"]
    assert second["context_messages"] == 2  # system and task, not stored again
    assert [m["role"] for m in second["messages"]] == ["assistant", "tool"]
    assert second["messages"][0]["tool_calls"][0]["id"] == "call_1"
    assert second["messages"][1]["tool_call_id"] == "call_1"
    assert record["end_reason"] == "done"
    page = (run.run_dir / "report.html").read_text()
    section = page.split("<section id='case-0'>", 1)[1]
    assert "ended: done" in section
    timeline = section.split("<table class='timeline'>", 1)[1].split("</table>", 1)[0]
    rows = timeline.split("<tr>")[2:]
    assert len(rows) == 2
    assert "<td>tool_calls</td><td>python</td>" in rows[0] and "<td>stop</td><td>—</td>" in rows[1]
    # between the two calls, the tool run the suite recorded (tbmath's case_steps): what ran, how it ended
    (step,) = re.findall(r"<tr class='step'><td></td><td colspan='6'>(.*?)</td></tr>", timeline)
    assert step.startswith("python: ARTIFACT = ") and step.endswith(" → exit 0")
    assert (
        timeline.index("tool_calls</td>") < timeline.index("class='step'") < timeline.index("<td>stop</td>")
    )
    assert "tool (answer to call_1)" in section
