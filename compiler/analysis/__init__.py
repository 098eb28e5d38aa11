"""Pure facts over a valid plan: its graph, progress, approvals, estimates, forecast, revisions, proofs."""
