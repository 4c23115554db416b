"""Ride-hailing platforms (plataformas tecnológicas)."""
from ui.entity import entity_page

entity_page("platforms")
