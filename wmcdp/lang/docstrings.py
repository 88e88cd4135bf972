"""A program factory's docstring as plain text: its summary (first line) and description (first paragraph)."""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable
from typing import Any


def description(factory: Callable[..., Any]) -> str:
    """The first paragraph of a factory's docstring on one line, as plain text: ````code```` as ``code``, a role
    such as ``:func:`name``` as ``name`` (``~a.b`` as ``b``)."""
    return _plain(inspect.cleandoc(factory.__doc__ or "").split("\n\n")[0])


def summary(factory: Callable[..., Any]) -> str:
    """The first line of a factory's docstring as plain text (as :func:`description` writes it): its summary."""
    return _plain(inspect.cleandoc(factory.__doc__ or "").split("\n")[0])


def _plain(text: str) -> str:
    """``text`` on one line, ````code```` as ``code`` and a role such as ``:func:`name``` as ``name``."""
    text = _ROLE.sub(lambda m: m[2].rsplit(".", 1)[-1] if m[1] else m[2], " ".join(text.split()))
    return _LITERAL.sub(r"\1", text)


#: a reStructuredText role (``:func:`~target```) and a literal (````text```` or ```text```)
_ROLE = re.compile(r":[a-z]+:`(~?)([^`]+)`")
_LITERAL = re.compile(r"``?([^`]+)``?")


__all__ = ["description", "summary"]
