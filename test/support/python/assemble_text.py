"""Assembles a durable-agent run's answer from its stream in Python, by the format docs/durable-runs.md documents.

Usage: python assemble_text.py <address> <namespace> <workflow_id>

Reads the run's stream live with Temporal's Python SDK (its workflow_streams contrib) from offset 0 until the run's
terminal event, and applies the `deltas` topic's rules: pieces with the same id in one step and attempt concatenate
in offset order; a `reset-step` voids every piece of its step from earlier attempts; a newer attempt's pieces replace
an older attempt's. Prints one JSON object: {"steps": {step: text assembled from the deltas alone}, "final":
{step: the step's final text event}, "resets": count}.
"""

import asyncio
import base64
import json
import os
import sys

from temporalio.api.common.v1 import Payload
from temporalio.client import Client, WorkflowQueryFailedError
from temporalio.contrib.workflow_streams import WorkflowStreamClient
from temporalio.service import RPCError

TERMINAL = {"finished", "cancelled", "failed"}


class Assembler:
    def __init__(self) -> None:
        # step -> (attempt, {part id: text}, [part ids in first-seen order]), text pieces only
        self.steps = {}
        self.final = {}
        self.resets = 0

    def add(self, topic, data) -> bool:
        """Applies one item; True after the run's terminal event."""
        if topic == "events":
            if data.get("type") == "text":
                self.final[str(data["step"])] = data["text"]
            return data.get("type") in TERMINAL
        if topic != "deltas":
            return False
        step, attempt = data["step"], data["attempt"]
        current = self.steps.get(step)
        if data["type"] == "reset-step":
            self.resets += 1
            self.steps[step] = (attempt, {}, [])
            return False
        if current is None or attempt > current[0]:
            current = self.steps[step] = (attempt, {}, [])
        elif attempt < current[0]:
            return False
        for part in data["parts"]:
            if part["kind"] != "text":
                continue
            if part["id"] not in current[1]:
                current[1][part["id"]] = ""
                current[2].append(part["id"])
            current[1][part["id"]] += part["text"]
        return False

    def result(self):
        assembled = {str(step): "".join(texts[i] for i in order) for step, (_, texts, order) in self.steps.items()}
        return {"steps": assembled, "final": self.final, "resets": self.resets}


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
