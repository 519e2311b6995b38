"""The exceptions tcplab raises for user errors.

Every user error (a bad scenario, a bad override, a missing file, an impossible topology)
surfaces as :class:`TcplabError` or a subclass, carrying one line that names the field and
what is wrong. The CLI prints that line and exits with code 2; it never shows a traceback
for these.
"""

from __future__ import annotations

from . import _core


class TcplabError(Exception):
    """Base class of every error tcplab raises for bad input."""


class ScenarioError(TcplabError, ValueError):
    """A scenario file, a ``--set`` override or a run request is invalid.

    ``str(err)`` is one line naming the field, e.g.
    ``links[0].delay: "30" has no unit; write a duration with its unit, like "30ms"``.
    """


def _translate(exc: BaseException) -> BaseException:
    """Map an exception raised by the compiled core to the public type."""
    if isinstance(exc, _core.ScenarioError):
        return ScenarioError(str(exc))
    return exc
