"""A real HTTP server on 127.0.0.1 (http.server in a thread) that speaks the chat-completions protocol.

Its behaviour is scripted per test: ``server.replies`` is a function from the request body to
``(status, answer_text)``; ``server.requests`` records every request received.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest


class FakeOpenAI:
    def __init__(self) -> None:
        self.requests: list[dict] = []
        self.replies: Callable[[dict], tuple[int, str]] = lambda body: (200, "ok")
        self.models: list[dict] | None = None  # what GET /v1/models lists (None: the endpoint is missing)
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:  # keep test output quiet
                pass

            def do_GET(self) -> None:
                if outer.models is None or not self.path.endswith("/models"):
                    self.send_response(404)
                    self.end_headers()
                    return
                payload = json.dumps({"object": "list", "data": outer.models}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                body["_path"] = self.path
                body["_auth"] = self.headers.get("Authorization")
                outer.requests.append(body)
                status, text = outer.replies(body)
                payload = json.dumps({"model": "fake-model-v1", "choices": [
                    {"index": 0, "message": {"role": "assistant", "content": text}}]} if status == 200
                    else {"error": {"message": text}}).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def server():
    s = FakeOpenAI()
    yield s
    s.stop()
