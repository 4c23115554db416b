"""Ride-hailing (transporte por aplicativo) rules: shared concepts and one rule set per municipality.

``rules.ridehailing.chapada`` (Decreto 06/2026) and ``rules.ridehailing.matupa`` (Lei 1.552/2025)
each expose ``RULESET`` and ``DEFAULT_PARAMETERS``; see :mod:`rules.ridehailing.ruleset` for the
methods every rule set offers.
"""
