"""The library half of every command: typed arguments in, a value out; no click, no printing."""
