"""The notions: the bounds wmcdp computes, and what runs them.

Pure ε (Algorithm 2), accuracy (Algorithm 3), (ε, δ), Rényi DP, privacy loss distributions
and their composition, certified enclosures, bounds as functions of a parameter, and sweeps over
parameters; each runs the plan it is given or asks the planner for one."""
