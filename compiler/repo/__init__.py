"""The repository, read-only and bounded: files, lines, symbols, sections, discovery of plans."""
