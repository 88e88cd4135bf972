"""The foundations every layer uses: errors, limits, numbers, polynomials.

Errors, resource limits, numbers (exact, float, certified reals), and exact polynomials with their real roots and
envelopes."""
