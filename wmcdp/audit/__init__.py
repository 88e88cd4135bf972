"""Audits of real DP libraries: the privacy their code claims against the tight privacy of their samplers.

:mod:`wmcdp.audit.opendp` audits OpenDP (optional extra ``[audit]``), :mod:`wmcdp.audit.diffprivlib` IBM's
diffprivlib (``[diffprivlib]``) and :mod:`wmcdp.audit.pydp` Google's partition selection through python-dp
(``[pydp]``); :mod:`wmcdp.audit.core` holds what they share.
"""
