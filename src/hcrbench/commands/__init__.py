"""CLI sub-commands: one module per command, each with ``register(app: typer.Typer)``."""
