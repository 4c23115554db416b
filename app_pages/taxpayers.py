"""Taxpayers (contribuintes): the people and entities that DAMs are issued to."""
from ui.entity import entity_page

entity_page("taxpayers")
