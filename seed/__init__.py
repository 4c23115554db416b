"""Seed data: the three municipalities, their parameters, and the demo store."""
