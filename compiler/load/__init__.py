"""Stage 1: bytes to a document (plain data and a source map of every node's position), bounded."""
