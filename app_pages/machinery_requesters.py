"""Requesters of machinery services: a person (CPF) or a non-profit (CNPJ), with the standing checked (art. 2)."""
from ui import bookings as ui_bookings
from ui.entity import entity_page

ui_bookings.guard("write")
entity_page("machinery_requesters", "Solicitantes")
