"""The public entry point of drivers and platforms (issue 36): a small server-rendered site, apart
from the staff panel, on its own port (``python -m portal --port 8502``).

It imports ``services`` and ``rules`` only, never the staff UI (``ui``, ``app_pages``); the staff panel
is never served by it. Pages: ``portal.app``; what they share (CSRF, headers, limits, errors):
``portal.web``; the electronic domicile's place on the home page: ``portal.inbox``.
"""
