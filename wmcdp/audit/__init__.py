"""Audits of real DP libraries: the privacy their code claims against the tight privacy of their samplers.

:mod:`wmcdp.audit.opendp` audits OpenDP (optional extra ``[audit]``).
"""
