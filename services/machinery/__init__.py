"""Bookings of municipal machinery and vehicles, Nova Lacerda Decreto 017/2026 (rules.machinery)."""
