"""Reads a durable-agent run's live stream from Redis with redis-py and assembles its answer, as documented in
docs/durable-runs.md ("The stream on Redis"), for a reader in another language than TypeScript.

Usage: DURABLE_AGENT_STREAM_KEY=… python redis_assemble_text.py <redis url> <workflow id> <first run id>
           [--from OFFSET] [--prefix PREFIX] [--idle-ms MS]

The key comes from the environment, never the command line (a command line is visible to every user of the machine).
Reads the run's stream from OFFSET (default 0) and checks every entry as the TypeScript reader (src/live/
redis-live-stream.ts) does: an entry whose HMAC does not verify is dropped (forged: no code, a wrong one, another
key's, another run's), as is one at an offset already read (a genuine entry replayed); a jump past the next offset is
a trim gap, reported. Like liveRunItems (src/live/live-run-items.ts) it leaves out `deltas` of an attempt older than
the step's newest `reset-step` and ends after the run's terminal event, or when the stream stays quiet for MS
(default 5,000) milliseconds, or when Redis cannot be read. The items go through the Assembler of assemble_text.py.
Prints one JSON object: {"items": [{offset, topic, data}], "gaps": [{missedFrom, offset}], "rejected": count,
"next": offset, "end": "terminal" | "idle" | "unavailable", "error"?: text, "assembled": Assembler.result()}.
"""

import argparse
import base64
import hashlib
import hmac
import json
import os
import re
import sys

import redis
from temporalio.api.common.v1 import Payload
from temporalio.converter import DataConverter

from assemble_text import TERMINAL, Assembler

# Entries one read returns at most (the TypeScript reader's READ_COUNT).
READ_COUNT = 500
# An offset or attempt as the publisher writes it: a decimal integer with no sign, spaces or leading zeros.
CANONICAL_INTEGER = re.compile(r"(0|[1-9][0-9]*)\Z")
MAX_SAFE_INTEGER = 2**53 - 1


def stream_key(prefix, workflow_id, first_run_id):
    """The run's stream; the braces are a cluster hash tag (the stream and its offset counter share a slot)."""
    return f"{prefix}:{{{workflow_id}:{first_run_id}}}:stream"


def entry_mac(key, workflow_id, first_run_id, attempt, offset, topic, data):
    """HMAC-SHA256 over the JSON array [workflowId, firstRunId, attempt, offset, topic, data], base64url unpadded.

    The JSON is JavaScript's JSON.stringify of that array: no spaces, non-ASCII characters as themselves (UTF-8).
    """
    message = json.dumps(
        [workflow_id, first_run_id, attempt, offset, topic, data], separators=(",", ":"), ensure_ascii=False
    )
    digest = hmac.new(key, message.encode("utf-8"), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")


def integer(text):
    if text is None or not CANONICAL_INTEGER.match(text):
        return None
    value = int(text)
    return value if value <= MAX_SAFE_INTEGER else None


class Reader:
    """Reads one run's stream forward from an offset, verified, in offset order, none repeated."""

    def __init__(self, client, key, prefix, workflow_id, first_run_id, offset):
        self.client = client
        self.key = key
        self.workflow_id = workflow_id
        self.first_run_id = first_run_id
        self.stream = stream_key(prefix, workflow_id, first_run_id)
        self.next = offset
        self.last_id = "0-0"
        # Until the reader found its place (its first item, or the end of what the stream held when it started), an
        # entry before its offset is one it did not ask for; after that, one it read already: a replay.
        self.found = False
        self.rejected = 0

    def read(self, block_ms):
        """One read: None when nothing came within block_ms, else its results (none when every entry was dropped):
        ("item", (offset, topic, data)), or ("gap", (missed_from, offset)) before the first item after a gap."""
        reply = self.client.xread({self.stream: self.last_id}, count=READ_COUNT, block=block_ms)
        entries = reply[0][1] if reply else []
        if not entries:
            self.found = True
            return None
        out = []
        for entry_id, fields in entries:
            self.last_id = entry_id
            out.extend(self.accept(fields))
        if len(entries) < READ_COUNT:
            self.found = True
        return out

    def accept(self, fields):
        offset, attempt = integer(fields.get("o")), integer(fields.get("a"))
        topic, data, mac = fields.get("t"), fields.get("d"), fields.get("m")
        if offset is None or attempt is None or topic is None or data is None or mac is None:
            self.rejected += 1
            return []
        expected = entry_mac(self.key, self.workflow_id, self.first_run_id, attempt, offset, topic, data)
        if not hmac.compare_digest(expected.encode("ascii"), mac.encode("utf-8")):
            self.rejected += 1
            return []
        if offset < self.next:
            if self.found:
                self.rejected += 1
            return []
        out = []
        if offset > self.next:
            out.append(("gap", (self.next, offset)))
        out.append(("item", (offset, topic, data)))
        self.next = offset + 1
        self.found = True
        return out


def decode(data, converter):
    """An item's data: base64 of a Temporal Payload in protobuf binary form, of JSON."""
    return converter.from_payload(Payload.FromString(base64.b64decode(data, validate=True)))


def stale(value, newest):
    """Whether a `deltas` item is of an attempt older than its step's newest reset (and records resets)."""
    step, attempt = value.get("step"), value.get("attempt")
    if not isinstance(step, int) or not isinstance(attempt, int):
        return False
    seen = newest.get(step, 0)
    if value.get("type") == "reset-step" and attempt > seen:
        newest[step] = attempt
    return attempt < seen


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("url")
    parser.add_argument("workflow_id")
    parser.add_argument("first_run_id")
    parser.add_argument("--from", dest="offset", type=int, default=0)
    parser.add_argument("--prefix", default="durable-agent:live")
    parser.add_argument("--idle-ms", type=int, default=5_000)
    args = parser.parse_args()
    key = os.environ.get("DURABLE_AGENT_STREAM_KEY", "").encode("utf-8")
    if len(key) < 16:
        sys.exit("DURABLE_AGENT_STREAM_KEY must be set to the workers' stream key (at least 16 bytes).")
    if args.offset < 0:
        sys.exit(f"--from must be an offset >= 0, not {args.offset}.")

    client = redis.Redis.from_url(args.url, decode_responses=True, socket_timeout=args.idle_ms / 1000 + 5)
    reader = Reader(client, key, args.prefix, args.workflow_id, args.first_run_id, args.offset)
    converter = DataConverter.default.payload_converter
    assembler = Assembler()
    newest = {}
    items, gaps = [], []
    end, error = None, None
    while end is None:
        try:
            results = reader.read(args.idle_ms)
        except redis.RedisError as failure:
            end, error = "unavailable", str(failure)
            break
        if results is None:
            end = "idle"
            break
        for kind, value in results:
            if kind == "gap":
                gaps.append({"missedFrom": value[0], "offset": value[1]})
                continue
            offset, topic, data = value
            decoded = decode(data, converter)
            if topic == "deltas" and stale(decoded, newest):
                continue
            items.append({"offset": offset, "topic": topic, "data": decoded})
            assembler.add(topic, decoded)
            if topic == "events" and isinstance(decoded, dict) and decoded.get("type") in TERMINAL:
                end = "terminal"
                break
    client.close()
    result = {"items": items, "gaps": gaps, "rejected": reader.rejected, "next": reader.next, "end": end}
    if error is not None:
        result["error"] = error
    result["assembled"] = assembler.result()
    print(json.dumps(result, ensure_ascii=False), flush=True)


if __name__ == "__main__":
    main()
