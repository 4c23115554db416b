"""One item of the ride-hailing work queue (Pendências), as every module that adds to it builds it, and
the document the queue keeps of it (``queue_view`` for the authorizations, ``queue_autos`` for the
autos de infração)."""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta

HORIZON_DAYS = 30  # how far ahead the queue looks: a screen setting, not a legal term
ITEMS, SOURCES = "work_queue", "work_queue_sources"
# Days as numbers (``date.toordinal``): a range on a number is answered from the index alone, where a
# range on a text also asks the stored document whether the value is a text (counts 10× slower).
ALWAYS = 0  # shown from: any day
NEVER = date.max.toordinal()  # late from: never (an item with no legal term)


@dataclass(frozen=True)
class Pendencia:
    due: date
    kind: str
    protocol: str
    plate: str
    driver_cpf: str
    message: str
    reference: str
    late: bool
    authorization_id: str
    # the record the work is done on, (collection, id): the authorization, the auto, the driver or vehicle
    # whose data changed, the platform whose list is due, the trip data request (the screens open it)
    record: tuple[str, str] = ("", "")


def item_row(municipality: str, due: date, kind: str, message: str, reference: str, *, protocol: str, plate: str,
             driver_cpf: str, horizoned: bool, late_able: bool, authorization_id: str = "", auto_id: str = "") -> dict:
    """The stored item: shown from ``HORIZON_DAYS`` before ``due`` when ``horizoned`` (else always), late
    from the day after ``due`` when ``late_able`` (else never)."""
    return {"municipality": municipality, "authorization_id": authorization_id, "auto_id": auto_id,
            "due": due.isoformat(), "due_n": due.toordinal(), "kind": kind,
            "shown_n": (due - timedelta(days=HORIZON_DAYS)).toordinal() if horizoned else ALWAYS,
            "late_n": due.toordinal() + 1 if late_able else NEVER,
            "protocol": protocol, "plate": plate, "driver_cpf": driver_cpf, "message": message, "reference": reference}


def from_row(row: dict, on: date) -> Pendencia:
    """A stored item (decoded) as the queue shows it on ``on``."""
    record = ("autos", row["auto_id"]) if row.get("auto_id") else ("authorizations", row["authorization_id"])
    return Pendencia(date.fromordinal(row["due_n"]), row["kind"], row["protocol"], row["plate"], row["driver_cpf"],
                     row["message"], row["reference"], row["late_n"] <= on.toordinal(), row["authorization_id"],
                     record)


# Every kind of item the queue holds, as the lists offer them to filter (the queue kept as data holds
# all but the last three, which ``work_queue`` computes on each read: few, from small collections).
KINDS = ("Avaliar requerimento", "Vistoria", "Pendências da vistoria", "Taxa", "Suspensão", "Vistoria anual",
         "Vistoria extraordinária", "Renovação", "Notificar auto", "Aguardando ciência",
         "Juntar notificação", "Prazo de defesa", "Decidir auto", "Suspensão (auto)", "Multa", "Rever reincidência",
         "Alteração de dados", "Relação da plataforma", "Dados de viagem")
KEPT_KINDS = KINDS[:-3]
