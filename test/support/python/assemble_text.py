"""Assembles a durable-agent run's answer from its stream in Python, by the format docs/durable-runs.md documents.

Usage: python assemble_text.py <address> <namespace> <workflow_id>

Reads the run's stream live with Temporal's Python SDK (its workflow_streams contrib) from offset 0 until the run's
terminal event, and applies the rules of docs/durable-runs.md ("The stream's format"), as the TypeScript client's
FullStreamAssembler does: pieces (AI SDK stream parts) with the same id in one step and attempt concatenate in offset
order (a piece of another kind than its part's first adds nothing); a `reset-step`, or a newer attempt's piece, voids every piece of
its step from earlier attempts; an older attempt's pieces are dropped; after the step's `text` event (or its
`step-finished`) its pieces are stale. Prints one JSON object: {"steps": {step: text assembled from the deltas
alone}, "final": {step: the step's final text event}, "shown": {step: the text a reader shows once the recorded text
completes or replaces the deltas}, "resets": count}.
"""

import asyncio
import base64
import json
import os
import re
import sys

from temporalio.api.common.v1 import Payload
from temporalio.client import Client, WorkflowQueryFailedError
from temporalio.contrib.workflow_streams import WorkflowStreamClient
from temporalio.service import RPCError

TERMINAL = {"finished", "cancelled", "failed"}
# What a piece adds to, from its AI SDK part type (`text-delta` adds to a text part).
KINDS = {"text", "reasoning", "tool-input"}
# A recorded text longer than this is a preview ending in "… (N chars)" (EVENT_OUTPUT_PREVIEW_CHARS).
PREVIEW_CHARS = 2_000


class Assembler:
    def __init__(self) -> None:
        # step -> (attempt, {part id: [kind, text]}, [part ids in first-seen order])
        self.steps = {}
        self.final = {}
        # steps whose recorded message arrived: their later pieces are stale
        self.recorded = set()
        self.resets = 0

    def add(self, topic, data) -> bool:
        """Applies one item; True after the run's terminal event."""
        if topic == "events":
            if data.get("type") == "text":
                self.final[str(data["step"])] = data["text"]
                self.recorded.add(data["step"])
            elif data.get("type") == "step-finished":
                self.recorded.add(data["step"])
            return data.get("type") in TERMINAL
        if topic != "deltas" or data["step"] in self.recorded:
            return False
        step, attempt = data["step"], data["attempt"]
        current = self.steps.get(step)
        if current is not None and attempt < current[0]:
            return False
        if data["type"] == "reset-step":
            self.resets += 1
            self.steps[step] = (attempt, {}, [])
            return False
        if current is None or attempt > current[0]:
            current = self.steps[step] = (attempt, {}, [])
        for part in data["parts"]:
            # AI SDK stream parts: text-start/-delta, reasoning-start/-delta, tool-input-start/-delta (any *-end, or a
            # part type of a newer version, adds nothing: the step's recorded message ends its parts).
            kind, _, phase = part["type"].rpartition("-")
            if kind not in KINDS or phase not in ("start", "delta"):
                continue
            if part["id"] not in current[1]:
                current[1][part["id"]] = [kind, ""]
                current[2].append(part["id"])
            if phase == "delta" and current[1][part["id"]][0] == kind:
                current[1][part["id"]][1] += part["delta"] if kind == "tool-input" else part["text"]
        return False

    def result(self):
        assembled = {}
        for step, (_, parts, order) in self.steps.items():
            assembled[str(step)] = "".join(parts[i][1] for i in order if parts[i][0] == "text")
        shown = {}
        for step, final in self.final.items():
            streamed = assembled.get(step, "")
            known = final
            marker = re.search(r"… \((\d+) chars\)$", final)
            if marker and marker.start() == PREVIEW_CHARS and int(marker.group(1)) > PREVIEW_CHARS:
                known = final[: marker.start()]
                if streamed.startswith(known):
                    shown[step] = streamed
                    continue
            # The recorded text completes what streamed when it goes on from it, else it stands alone.
            shown[step] = streamed + known[len(streamed) :] if known.startswith(streamed) else final
        return {"steps": assembled, "final": self.final, "shown": shown, "resets": self.resets}


async def main() -> None:
    address, namespace, workflow_id = sys.argv[1:4]
    client = await Client.connect(address, namespace=namespace)
    stream = WorkflowStreamClient.create(client, workflow_id)
    assembler = Assembler()
    offset = 0
    done = False
    try:
        async for item in stream.subscribe(from_offset=0):
            offset = item.offset + 1
            if assembler.add(item.topic, item.data):
                done = True
                break
    except (RPCError, WorkflowQueryFailedError):
        # A closed run: the Python SDK asks it with a poll query, which a TypeScript workflow cannot register.
        pass
    # The rest of a closed run, from its tail query (see watch_run.py).
    converter = client.data_converter.payload_converter
    handle = client.get_workflow_handle(workflow_id)
    while not done:
        tail = await handle.query("durable-agent.stream-tail", offset)
        for item in tail["items"]:
            offset = item["offset"] + 1
            payload = Payload.FromString(base64.b64decode(item["data"]))
            if assembler.add(item["topic"], converter.from_payload(payload)):
                done = True
                break
        if offset >= tail["nextOffset"]:
            break
    print(json.dumps(assembler.result()), flush=True)


if __name__ == "__main__":
    asyncio.run(main())
    # See watch_run.py: leave before the SDK's core threads touch a finalizing interpreter.
    sys.stdout.flush()
    os._exit(0)
