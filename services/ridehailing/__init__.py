"""Ride-hailing (Chapada Decreto 06/2026, Matupá Lei 1.552/2025): registry to autos (rules.ridehailing)."""
