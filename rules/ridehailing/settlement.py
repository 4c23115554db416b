"""What a payment of a ride-hailing charge (débito) means for the record it charges.

The authorization's fee, the auto's fine and the ISSQN of a vehicle-month are each one charge
(``rules.dam.charges``); a record acts only on its charge paid in full (``settled``), whichever of
its DAMs was paid (the original, a 2ª via, the DAM of a difference). A short payment leaves the
charge "pago a menor" with the difference open, and the record waits; a payment beyond it is a
credit owed back and changes nothing more.
"""
from __future__ import annotations

from rules.dam.charges import settled


def fee_settled(status: str) -> bool:
    """The authorization is issued, or renewed, only once its fee's charge is paid in full.

    CG Decreto 06/2026 art. 9 §1 (valid from the payment of the taxas) and art. 16 §ú (only the
    driver who paid the taxas serves); MP Lei 1.552/2025 art. 3 §ú (validity conditioned on the
    payment of the taxas) and art. 9 (the service only after the payment of the taxas)."""
    return settled(status)


def fine_settled(status: str) -> bool:
    """The fine of an auto de infração is closed only once its charge is paid in full.

    CG Decreto 06/2026 art. 18 XXII (the driver pays the fines imposed, in the term set);
    MP Lei 1.552/2025 art. 12 XXIII (the driver pays the municipal taxas and fines)."""
    return settled(status)


def issqn_settled(status: str) -> bool:
    """The ISSQN of a vehicle-month is paid only once its charge is paid in full; short, it is
    still not collected (CG Decreto 06/2026 art. 19 and §ú; MP Lei 1.552/2025 art. 10 and §2º)."""
    return settled(status)
