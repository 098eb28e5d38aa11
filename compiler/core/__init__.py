"""The foundation, standard library only: codes, diagnostics, display of plan text, paths, pins, globs,
suggestions, the writer and the CI-log guard. Imports nothing else of compiler."""
