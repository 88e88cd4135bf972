"""Counting: weighted model counts of a compiled diagram in a number system (floats, extended floats, exact
rationals, functions of a symbolic parameter), the joint tables ``P(y | x)`` and their ratio scans, and
counts spread over Dask workers."""
