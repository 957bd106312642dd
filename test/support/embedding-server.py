"""An OpenAI-compatible embeddings endpoint in front of a real sentence-embedding model running on the CPU.

all-MiniLM-L6-v2 (int8 ONNX, installed by scripts/install-embedding-model.mjs) is run by onnxruntime with
sentence-transformers' pooling: mean over the tokens the attention mask keeps, then L2 normalization. Inputs are
truncated to the model's 256 tokens, as sentence-transformers does.

  POST /v1/embeddings  {"model": str, "input": str | [str], "encoding_format"?: "float" | "base64"}
  GET  /v1/models      the one model
  GET  /stats          {"requests": n, "inputs": n}: embedding requests served, so tests can count calls

Started by test/support/embedding-server.ts on a free port (it prints `listening <port>` once ready). Requests
are bounded (body size, number of inputs, input length) and errors use OpenAI's error shape.

Usage: PYTHONPATH=<dir>/site python3 embedding-server.py --model <model.onnx> --tokenizer <tokenizer.json>
"""

import argparse
import base64
import json
import socket
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import numpy as np
import onnxruntime as ort
from tokenizers import Tokenizer

MODEL_NAME = "all-MiniLM-L6-v2"
MAX_TOKENS = 256
# OpenAI's own limit of inputs per request; the AI SDK's OpenAI provider batches to it.
MAX_INPUTS = 2048
MAX_BODY_BYTES = 16 * 1024 * 1024
MAX_INPUT_CHARS = 100_000
# Rows per forward pass: bounds the padded tensor (rows x 256 tokens x 384 floats per layer).
FORWARD_ROWS = 64


class Embedder:
    def __init__(self, model_path: str, tokenizer_path: str, threads: int):
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        self.session = ort.InferenceSession(model_path, options, providers=["CPUExecutionProvider"])
        self.tokenizer = Tokenizer.from_file(tokenizer_path)
        self.tokenizer.enable_truncation(MAX_TOKENS)
        self.tokenizer.enable_padding()
        # One forward pass at a time: onnxruntime already uses the cores, and the tokenizer's padding state is shared.
        self.lock = threading.Lock()

    def embed(self, texts):
        vectors = []
        tokens = 0
        with self.lock:
            for start in range(0, len(texts), FORWARD_ROWS):
                batch, used = self._forward(texts[start : start + FORWARD_ROWS])
                vectors.append(batch)
                tokens += used
        return np.concatenate(vectors, axis=0), tokens

    def _forward(self, texts):
        encodings = self.tokenizer.encode_batch(texts)
        ids = np.array([e.ids for e in encodings], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
        types = np.array([e.type_ids for e in encodings], dtype=np.int64)
        hidden = self.session.run(None, {"input_ids": ids, "attention_mask": mask, "token_type_ids": types})[0]
        summed = (hidden * mask[..., None]).sum(axis=1)
        pooled = summed / np.clip(mask.sum(axis=1, keepdims=True), 1e-9, None)
        norms = np.clip(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12, None)
        return (pooled / norms).astype(np.float32), int(mask.sum())


class Stats:
    def __init__(self):
        self.lock = threading.Lock()
        self.requests = 0
        self.inputs = 0

    def record(self, inputs: int):
        with self.lock:
            self.requests += 1
            self.inputs += inputs

    def snapshot(self):
        with self.lock:
            return {"requests": self.requests, "inputs": self.inputs}


def make_handler(embedder: Embedder, stats: Stats):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def setup(self):
            super().setup()
            # Headers and body go out as two writes; without TCP_NODELAY, Nagle's algorithm meets the client's
            # delayed ACK and every response waits ~40 ms.
            self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

        def log_message(self, format, *args):  # noqa: A002 - the base class's signature
            pass  # quiet: tests read stdout for the port only

        def _send(self, status: int, body: dict):
            data = json.dumps(body).encode("utf-8")
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _error(self, status: int, message: str, code: str = "invalid_request_error"):
            self._send(status, {"error": {"message": message, "type": code, "param": None, "code": None}})

        def do_GET(self):
            if self.path == "/stats":
                self._send(200, stats.snapshot())
            elif self.path in ("/v1/models", "/models"):
                self._send(200, {"object": "list", "data": [{"id": MODEL_NAME, "object": "model", "owned_by": "local"}]})
            elif self.path == "/health":
                self._send(200, {"ok": True})
            else:
                self._error(404, f"Unknown path {self.path}")

        def do_POST(self):
            if self.path not in ("/v1/embeddings", "/embeddings"):
                self._error(404, f"Unknown path {self.path}; this server only answers POST /v1/embeddings")
                return
            length = int(self.headers.get("Content-Length") or 0)
            if length <= 0 or length > MAX_BODY_BYTES:
                self._error(413 if length > 0 else 400, f"Request body must be 1..{MAX_BODY_BYTES} bytes")
                return
            try:
                body = json.loads(self.rfile.read(length))
            except ValueError as error:
                self._error(400, f"Request body is not JSON: {error}")
                return
            values = body.get("input") if isinstance(body, dict) else None
            if isinstance(values, str):
                values = [values]
            if not isinstance(values, list) or not values or not all(isinstance(v, str) for v in values):
                self._error(400, "'input' must be a non-empty string or a non-empty array of strings")
                return
            if len(values) > MAX_INPUTS:
                self._error(400, f"'input' has {len(values)} items; at most {MAX_INPUTS} per request")
                return
            if any(len(v) > MAX_INPUT_CHARS for v in values):
                self._error(400, f"Each input must be at most {MAX_INPUT_CHARS} characters")
                return
            vectors, tokens = embedder.embed(values)
            stats.record(len(values))
            as_base64 = body.get("encoding_format") == "base64"
            data = [
                {
                    "object": "embedding",
                    "index": i,
                    "embedding": base64.b64encode(v.tobytes()).decode("ascii") if as_base64 else v.tolist(),
                }
                for i, v in enumerate(vectors)
            ]
            self._send(
                200,
                {
                    "object": "list",
                    "data": data,
                    "model": body.get("model") or MODEL_NAME,
                    "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
                },
            )

    return Handler


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", required=True)
    parser.add_argument("--tokenizer", required=True)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    embedder = Embedder(args.model, args.tokenizer, args.threads)
    server = ThreadingHTTPServer((args.host, args.port), make_handler(embedder, Stats()))
    server.daemon_threads = True
    print(f"listening {server.server_address[1]}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
