"""Watches a durable-agent run's stream from Python, with Temporal's Python SDK and its workflow_streams contrib.

Usage: python watch_run.py <address> <namespace> <workflow_id> [from_offset]

Prints one JSON line per stream item ({"offset", "topic", "data"}) and exits after the run's terminal event.
The run's items are JSON payloads, so the SDK's default converter decodes them to plain dicts.

A closed run: the Python SDK reads what it still holds with a `__temporal_workflow_stream_poll` query, which a
TypeScript workflow cannot register (the TypeScript SDK allows that reserved name for the update only). The run
answers the same read with its own query, `durable-agent.stream-tail`, which this script falls back to.
"""

import asyncio
import base64
import json
import os
import sys

from temporalio.api.common.v1 import Payload
from temporalio.client import Client, WorkflowQueryFailedError
from temporalio.contrib.workflow_streams import WorkflowStreamClient

TERMINAL = {"finished", "cancelled", "failed"}


def emit(offset, topic, data) -> bool:
    print(json.dumps({"offset": offset, "topic": topic, "data": data}), flush=True)
    return topic == "events" and isinstance(data, dict) and data.get("type") in TERMINAL


async def main() -> None:
    address, namespace, workflow_id = sys.argv[1:4]
    offset = int(sys.argv[4]) if len(sys.argv) > 4 else 0
    client = await Client.connect(address, namespace=namespace)
    stream = WorkflowStreamClient.create(client, workflow_id)
    try:
        async for item in stream.subscribe(from_offset=offset):
            offset = item.offset + 1
            if emit(item.offset, item.topic, item.data):
                return
    except WorkflowQueryFailedError:
        pass
    # The run closed between two polls: read the rest from its tail query.
    converter = client.data_converter.payload_converter
    handle = client.get_workflow_handle(workflow_id)
    while True:
        tail = await handle.query("durable-agent.stream-tail", offset)
        for item in tail["items"]:
            payload = Payload.FromString(base64.b64decode(item["data"]))
            offset = item["offset"] + 1
            if emit(item["offset"], item["topic"], converter.from_payload(payload)):
                return
        if offset >= tail["nextOffset"]:
            return


if __name__ == "__main__":
    asyncio.run(main())
    # The SDK's Rust core keeps threads that can touch the interpreter while it finalizes, which aborts a
    # short-lived client with "PyGILState_Release: thread state ... must be current" (temporalio/sdk-python#300).
    # Everything is printed and flushed by now: leave without interpreter teardown.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)
