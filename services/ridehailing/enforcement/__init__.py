"""Autos de infração of the ride-hailing acts and their documents (rules.ridehailing.sanctions)."""
