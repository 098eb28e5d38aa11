"""Pure facts over a valid plan: its graph, progress, approvals, estimates, forecast, revisions, proofs
and what they may run before it exists."""
