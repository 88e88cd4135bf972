"""Counting: weighted model counts of a compiled diagram, the joint tables and their ratio scans.

The counts are in a number system (floats, extended floats, exact rationals, functions of a symbolic parameter);
the joint tables ``P(y | x)`` and their ratio scans; counts spread over Dask workers."""
