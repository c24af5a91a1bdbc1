"""HCR: hierarchical coarse-to-fine retrieval (tree build, routing, entity cross-links), registered as ``hcr``.

Modules: ``tree`` (recursive k-means + summaries), ``route`` (cascade, beam, collapsed, dual), ``links`` (entity
cross-links), ``lexical`` (BM25 over any subset of texts), ``hashenc`` (a cheap test encoder), ``retriever``.
Importing this package imports no heavy library.
"""
