"""A code-retrieval set built at run time from installed Python source (``hcrbench generate code``)."""

from hcrbench.synth.codeset.build import (
    CODESET_VERSION,
    build_codeset,
    code_tokens,
    generate_codeset,
    package_root,
    read_line_ranges,
    snippet_jaccard,
)

__all__ = ["CODESET_VERSION", "build_codeset", "code_tokens", "generate_codeset", "package_root",
           "read_line_ranges", "snippet_jaccard"]
