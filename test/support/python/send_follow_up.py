"""Sends a message to a durable-agent conversation from Python: the conversation workflow's send update, with
start (update-with-start, USE_EXISTING), as `conversation.send()` does in TypeScript. Creates the conversation when
it does not exist yet, and joins it when it does.

Usage: python send_follow_up.py <address> <namespace> <task_queue> <conversation_id> <agent> <user_id> <text>

Prints the send result ({"turn", "workflowId", "position"}) as one JSON line, then the turn's answer text once its
run (a child workflow with that id) has finished.
"""

import asyncio
import json
import os
import sys

from temporalio.client import Client, WithStartWorkflowOperation
from temporalio.common import WorkflowIDConflictPolicy
from temporalio.service import RPCError, RPCStatusCode


async def main() -> None:
    address, namespace, task_queue, conversation_id, agent, user_id, text = sys.argv[1:8]
    client = await Client.connect(address, namespace=namespace)
    start = WithStartWorkflowOperation(
        "durableAgentConversation",
        {"conversationId": conversation_id, "agentName": agent, "userId": user_id},
        id=conversation_id,
        task_queue=task_queue,
        id_conflict_policy=WorkflowIDConflictPolicy.USE_EXISTING,
    )
    sent = await client.execute_update_with_start_workflow(
        "durable-agent.conversation.send",
        {"content": text, "userId": user_id},
        start_workflow_operation=start,
    )
    print(json.dumps(sent), flush=True)
    # The turn's run starts when its turn comes (the update answers once the message is queued): wait for it.
    handle = client.get_workflow_handle(sent["workflowId"])
    for _ in range(600):
        try:
            await handle.describe()
            break
        except RPCError as err:
            if err.status != RPCStatusCode.NOT_FOUND:
                raise
            await asyncio.sleep(0.1)
    result = await handle.result()
    print(json.dumps({"text": result["text"]}), flush=True)


if __name__ == "__main__":
    asyncio.run(main())
    # The SDK's Rust core keeps threads that can touch the interpreter while it finalizes, which aborts a
    # short-lived client with "PyGILState_Release: thread state ... must be current" (temporalio/sdk-python#300).
    # Everything is printed and flushed by now: leave without interpreter teardown.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)
