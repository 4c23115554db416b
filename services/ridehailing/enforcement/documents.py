"""PDFs of an auto de infração from its stored stages: the auto (two copies), the notifications to the
offender and to the platform, and the case file with every date, deadline and article."""
from __future__ import annotations

from datetime import date, timedelta
from decimal import Decimal

from pymongo.database import Database

from rules.dam import charges as charge_rules
from rules.fmt import brl, day
from rules.notice import DTE
from services import store
from services.ridehailing import charge_links, registry
from services.ridehailing.enforcement import autos, notices, process
from services.ridehailing.enforcement.auto_pdf import (
    AutoPrint,
    NoticePrint,
    Section,
    render_auto,
    render_case_file,
    render_notification,
)
from services.shared import authenticity, clock, domicile, entities, fields, municipalities, parameters
from services.shared.auth import Actor, authorize
from services.shared.boundary import checked
from services.shared.errors import ServiceError


def _d(value: date | None) -> str:
    return day(value) if value else "—"


def _finding_line(ok: bool, message: str, reference: str) -> str:
    return f"{'•' if ok else '• NÃO ATENDIDO:'} {message} ({reference})"


def _person(doc: dict) -> tuple[str, str]:
    document = doc.get("offender_document") or ""
    shown = fields.show("cnpj", document) if len(document) == 14 else fields.show("cpf", document) if document else ""
    return doc.get("offender_name") or "", shown


def _address(doc: dict) -> str:
    """The offender's address, or that it is unknown and the notification goes by edital, with the article."""
    address = autos.offender_address(doc)
    return f"{address} ({autos.edital_reference(doc['municipality'])})" if address == autos.UNKNOWN_ADDRESS else address


def _auto_sections(doc: dict) -> list[Section]:
    name, document = _person(doc)
    target = [("Autuado", f"{autos.TARGETS[doc['target_kind']]}: {name}"), ("CPF/CNPJ", document)]
    if doc.get("plate"):
        target.append(("Veículo (placa)", fields.show("plate", doc["plate"])))
    if doc.get("platform_name"):
        target.append(("Plataforma", doc["platform_name"]))
    if doc["target_kind"] == "unregistered":  # typed on the auto: where they are notified and billed
        target.append(("Endereço", _address(doc)))
        target += [(label, fields.show(kind, doc[key])) for key, kind, label in
                   (("driver_phone", "phone", "Telefone"), ("driver_email", "email", "E-mail")) if doc.get(key)]
    recurrence = doc.get("recurrence_of") or {}
    sections = [
        Section("Identificação", (
            ("Auto nº", doc["number"]), ("Data e hora", f"{_d(doc.get('committed_on'))} às {doc.get('time', '')}"),
            ("Local", doc.get("place", "")), ("Lavrado em", _d(doc.get("auto_on"))),
            ("Agente (matrícula)", f"{doc.get('agent_name') or ''} — {doc.get('agent_registration', '')}"),
            *target)),
        Section("Infração", (
            ("Código", doc["infraction_code"]), ("Descrição", doc.get("infraction_text", "")),
            ("Fundamento", doc.get("infraction_reference", "")),
            ("Gravidade", doc.get("severity", "") + (f" (base: {doc['base_severity']})"
                                                     if doc.get("base_severity") != doc.get("severity") else "")),
            ("Multa", brl(Decimal(str(doc.get("fine_amount") or 0)))),
            ("Penalidades", "; ".join(doc.get("penalties", []))),
            ("Medidas", "; ".join(doc.get("measures", [])) or "—"),
            ("Reincidência", f"Auto nº {recurrence['number']} de {_d(recurrence.get('committed_on'))}"
             if recurrence else "Não"),
        ), (f"Fatos: {doc.get('facts', '')}",)),
        Section("Fundamentação do cálculo", paragraphs=tuple(
            _finding_line(f["ok"], f["message"], f["reference"]) for f in doc.get("findings", []))),
    ]
    if doc.get("evidence"):
        sections.append(Section("Provas", paragraphs=tuple(
            f"• {e['description']}"
            + (f" — arquivo {e['name']} (SHA-256 {e['sha256'][:16]}…)" if e.get("sha256") else "")
            for e in doc["evidence"])))
    return sections


def _print(db: Database, municipality: str, doc: dict, sections: list[Section]) -> AutoPrint:
    town = municipalities.get(db, municipality)
    return AutoPrint(town.name, town.secretariat, town.address, doc["number"],
                     registry.rules_of(municipality).act, tuple(sections),
                     head=municipalities.letterhead(db, municipality))


def _doc(db: Database, actor: Actor, municipality: str, auto_id: str) -> dict:
    doc = autos.get(db, actor, municipality, auto_id)
    if not doc.get("number"):
        raise ServiceError("O auto ainda é rascunho: lavre-o para imprimir.")
    return doc


@checked
def auto_pdf(db: Database, actor: Actor, municipality: str, auto_id: str) -> bytes:
    """The auto with the copy for the offender (CG art. 22; MP art. 18)."""
    authorize(actor, "read", municipality)
    doc = _doc(db, actor, municipality, auto_id)
    data = _print(db, municipality, doc, _auto_sections(doc))
    return authenticity.issue(db, actor, municipality,
                              authenticity.Item("auto", doc["number"], (autos.COLLECTION, auto_id), data),
                              lambda stamp: render_auto(data, stamp))


@checked
def notification_pdf(db: Database, actor: Actor, municipality: str, auto_id: str, recipient: str = "condutor",
                     tacit_days: int = 0) -> bytes:
    """The notification to the offender (``condutor``) or to the platform (``plataforma``), with the
    defence period counted from the juntada (CG art. 25 §1–§2; MP art. 21); ``tacit_days`` > 0: the
    one delivered to the electronic domicile, which says when it counts as received (rules/notice.py)."""
    authorize(actor, "read", municipality)
    doc = _doc(db, actor, municipality, auto_id)
    rules = registry.rules_of(municipality)
    days = parameters.value(db, municipality, "defence_period_days", doc["auto_on"])
    name, document = _person(doc)
    address = _address(doc)
    if recipient == "plataforma":
        platform = _platform_of(db, municipality, doc)
        name, document, address = platform.get("name", "Plataforma"), fields.show("cnpj", platform.get("cnpj", "")), ""
    limit = ""
    if rules.notification_limit_days:
        limit = (f" A notificação deve ser entregue em até {rules.notification_limit_days} dias da lavratura "
                 f"({rules.ref('notification')}).")
    edital = ((f"Endereço do autuado desconhecido: esta notificação é feita por edital "
               f"({autos.edital_reference(municipality)})."),) if address.startswith(autos.UNKNOWN_ADDRESS) else ()
    body = (
        f"Fica o destinatário NOTIFICADO da lavratura do Auto de Infração nº {doc['number']}, em {_d(doc['auto_on'])}, "
        f"pela infração acima descrita ({doc.get('infraction_reference', '')}), sujeita às penalidades indicadas.",
        f"O prazo de {days} dias para apresentar defesa conta-se da juntada desta notificação ao processo "
        f"administrativo ({rules.ref('defence')}).{limit} A defesa deve ser protocolada na "
        f"{municipalities.get(db, municipality).secretariat}.",
        "Nenhuma penalidade será aplicada antes da decisão no processo, assegurados o contraditório e a ampla "
        f"defesa ({rules.ref('due_process')}).",
        *edital,
        *((f"Entregue no domicílio eletrônico: considera-se recebida, e juntada ao processo, no dia em que for "
           f"aberta pela primeira vez ou, se não for aberta antes, {tacit_days} dias após a entrega "
           f"({notification_reference(municipality)}; {DTE}).",) if tacit_days > 0 else ()),
    )
    data = NoticePrint(_print(db, municipality, doc, _auto_sections(doc)), recipient, name, document, address, body)
    # the one printed and the one delivered to the electronic domicile (which names its tacit days) are two
    item = authenticity.Item("notificacao", f"{doc['number']} ({recipient})", (autos.COLLECTION, auto_id), data,
                             variant=f"{recipient}-domicilio" if tacit_days > 0 else recipient)
    return authenticity.issue(db, actor, municipality, item, lambda stamp: render_notification(data, stamp))


def notification_reference(municipality: str) -> str:
    """The article of the electronic channel in the municipality's act (CG art. 25 §1 IV; MP art. 21 §1)."""
    return next(m.reference for m in registry.rules_of(municipality).notification_methods if m.code == "domicile")


def _platform_of(db: Database, municipality: str, doc: dict) -> dict:
    if doc.get("platform_id"):
        found = db["platforms"].find_one({"municipality": municipality,
                                          "_id": entities._object_id(doc["platform_id"])})
        if found:
            return found
    cpf = doc.get("driver_cpf") or doc.get("vehicle_driver_cpf")
    driver = db["drivers"].find_one({"municipality": municipality, "cpf": cpf}, {"platform_cnpj": 1}) if cpf else None
    if driver and driver.get("platform_cnpj"):
        return db["platforms"].find_one({"municipality": municipality, "cnpj": driver["platform_cnpj"]}) or {}
    return {}


def _fine_payment(db: Database, fine: dict) -> str:
    """The fine's payment as its stored charge (débito) has it: paid (on, how much), or open with the
    DAM to pay (a 2ª via, the DAM of a difference), what a short payment left, or a cancelled DAM."""
    charge = charge_links.of_link(db, fine, "id")
    if charge is None:
        return f"pago em {_d(fine.get('paid_on'))}" if fine.get("paid") else "em aberto"
    if charge_rules.settled(charge["status"]):
        return f"pago em {_d(charge['paid_on'])}, {brl(charge['paid'])}"
    return f"em aberto — {charge_links.standing_text(charge)}"


def joined_text(filing: dict) -> str:
    """When and through which channel a defence or appeal was joined to the case (pt-BR, Cuiabá time):
    "06/12/2026 às 07:15, pelo portal (pelo próprio autuado)"; a filing recorded before the time was kept
    shows its date only."""
    at = filing.get("filed_at")
    when = f"{clock.to_local(at):%d/%m/%Y} às {clock.to_local(at):%H:%M}" if hasattr(at, "hour") \
        else _d(filing.get("filed_on"))
    return when + {"portal": ", pelo portal (pelo próprio autuado)",
                   "balcao": ", registrada pela secretaria"}.get(filing.get("via", ""), "")


@checked
def filing_file(db: Database, actor: Actor, municipality: str, auto_id: str, digest: str) -> bytes:
    """An attachment of the auto's defence or appeal, for the clerk's case screen."""
    authorize(actor, "read", municipality)
    doc = autos._load(db, municipality, auto_id)
    kept = [a["sha256"] for key in ("defence", "appeal") for a in (doc.get(key) or {}).get("attachments", [])]
    if digest not in kept:
        raise ServiceError("Anexo não encontrado neste auto.")
    return store.get_file(db, digest)


def _filing_rows(filing: dict) -> tuple[tuple[str, str], ...]:
    rows = [("Apresentado em", _d(filing.get("filed_on"))), ("Juntada", joined_text(filing)),
            ("Por", filing.get("by", "")),
            ("Tempestividade", "Fora do prazo" if filing.get("late") else "No prazo"),
            ("Resumo", filing.get("summary", ""))]
    for item in filing.get("attachments", []):
        rows.append(("Anexo", f"{item['name']} (SHA-256 {item['sha256'][:16]}…)"))
    return tuple(rows)


def _ruling_rows(ruling: dict) -> tuple[tuple[str, str], ...]:
    return (("Resultado", autos.OUTCOMES.get(ruling.get("outcome"), "")), ("Decidido em", _d(ruling.get("decided_on"))),
            ("Autoridade", ruling.get("authority", "")), ("Fundamentação", ruling.get("reasons", "")),
            ("Multa mantida", brl(Decimal(str(ruling.get("fine_amount") or 0)))),
            ("Penalidades mantidas", "; ".join(ruling.get("penalties", [])) or "—"))


@checked
def case_file_pdf(db: Database, actor: Actor, municipality: str, auto_id: str, on: date | None = None) -> bytes:
    """The whole process of the auto in one PDF with a page index: every piece with its dates,
    the deadlines the rules compute and the article behind each."""
    authorize(actor, "read", municipality)
    doc = _doc(db, actor, municipality, auto_id)
    rules = registry.rules_of(municipality)
    state = process.process_status(db, actor, municipality, auto_id, on or clock.today())
    first, *rest = _auto_sections(doc)
    sections = [Section(f"Auto de infração nº {doc['number']}", first.rows),
                *(Section(s.title, s.rows, s.paragraphs, piece=False) for s in rest)]
    notice = autos.as_of(doc, on or clock.today()).get("notification") or {}
    electronic = (("Domicílio eletrônico", autos.receipt_line(notice, on or clock.today())),
                  ("Alerta", domicile.alert_line(db, actor, municipality, notice["message_id"]))) if notice.get(
        "message_id") else ()
    deadlines = [("Prazo de defesa", f"{_d(state['defence_deadline'])} ({rules.ref('defence')})")]
    if state["notification_deadline"]:
        deadlines.insert(0, ("Limite da notificação", f"{_d(state['notification_deadline'])} ({rules.ref('notification')})"))
    decision_notice = doc.get("decision_notification") or {}
    if state["appeal_deadline"]:
        start = ("contado da ciência da decisão no domicílio eletrônico" if decision_notice.get("message_id")
                 else "contado da decisão")
        deadlines.append(("Prazo de recurso", f"{_d(state['appeal_deadline'])} (os atos não fixam prazo de recurso; "
                                              f"adotado o mesmo prazo da defesa, {start})"))
    elif state.get("awaiting_decision_notice"):
        deadlines.append(("Prazo de recurso", "começa na ciência da decisão entregue no domicílio eletrônico"))
    sections.append(Section("Notificação, recebimento e juntada", (
        ("Forma", f"{notice.get('method_label', '—')} ({notice.get('method_reference', rules.ref('notification'))})"),
        ("Enviada em", _d(notice.get("sent_on"))), ("Recebida em", _d(notice.get("received_on"))),
        ("Juntada em", _d(notice.get("juntada_on"))), *electronic,
        *notices.notice_rows(doc, on or clock.today()), *deadlines)))
    if doc.get("platform_notification"):
        pn = doc["platform_notification"]
        sections.append(Section("Notificação à plataforma", (("Forma", pn.get("method_label", "")),
                                                             ("Enviada em", _d(pn.get("sent_on"))),
                                                             ("Recebida em", _d(pn.get("received_on")))), piece=False))
    if doc.get("status") == "nulo":
        sections.append(Section("Nulidade", (("Motivo", doc.get("void_reason", "")),
                                             ("Fundamento", doc.get("void_reference", "")))))
    if doc.get("defence"):
        sections.append(Section("Defesa", _filing_rows(doc["defence"])))
    if doc.get("decision"):
        decided = _ruling_rows(doc["decision"])
        if decision_notice.get("message_id"):
            decided += (("Notificação da decisão", autos.receipt_line(decision_notice, on or clock.today())),
                        ("Alerta", domicile.alert_line(db, actor, municipality, decision_notice["message_id"])),
                        ("Juntada em", _d(autos.decision_receipt(doc, on or clock.today())[1])))
        sections.append(Section("Decisão", decided))
    appeal = doc.get("appeal") or {}
    if appeal:
        sections.append(Section("Recurso", _filing_rows(appeal)))
        if appeal.get("decision"):
            sections.append(Section("Decisão do recurso", _ruling_rows(appeal["decision"])))
    applied = [(s["penalty"].capitalize(), f"de {_d(s['start'])}" + (f" até {_d(s['until'])} (volta a valer em "
                                                                     f"{_d(s['until'] + timedelta(days=1))}; "
                                                                     f"{rules.ref('suspension')})" if s.get("until") else "")
                + (f"; afastada em {_d(s['lifted_on'])}: {s.get('lifted_reason', '')}" if s.get("lifted_on") else ""))
               for s in doc.get("sanctions_applied", [])]
    applied += [(m["measure"].capitalize(), f"em {_d(m['on'])} por {m['by']}"
                 + (f"; liberada em {_d(m['released']['on'])} por {m['released']['by']}" if m["released"] else ""))
                for m in autos.measures_of(doc)]
    fine = doc.get("fine_dam") or {}
    if fine:
        applied.append(("DAM da multa", f"nº {fine['number']}, {brl(Decimal(str(fine['amount'])))}, emitido em "
                                        f"{_d(fine.get('issued_on'))}, vence em {_d(fine.get('due_on'))}"))
        applied.append(("Pagamento", _fine_payment(db, fine)))
    sections.append(Section("Penalidades, medidas, DAM e pagamento", tuple(applied) or (("Situação", "Nenhuma aplicada"),),
                            tuple(_finding_line(f.ok, f.message, f.reference) for f in state["findings"])))
    sections.append(Section("Histórico do processo", piece=False, paragraphs=tuple(
        f"{clock.to_local(e['at']):%d/%m/%Y %H:%M} — {e['by']}: {e['note']}"
        for e in doc.get("events", []) if hasattr(e.get("at"), "year"))))
    sections.append(_issued_section(db, municipality, auto_id, doc))
    data = _print(db, municipality, doc, sections)
    return authenticity.issue(db, actor, municipality,
                              authenticity.Item("processo", doc["number"], (autos.COLLECTION, auto_id), data),
                              lambda stamp: render_case_file(data, stamp))


def _issued_section(db: Database, municipality: str, auto_id: str, doc: dict) -> Section:
    """Every document issued in the process (the auto, its notifications, earlier case files, the fine's
    DAM) with its authentication code, date and status (issue 37: what is printed stays true)."""
    refs = [(autos.COLLECTION, auto_id)] + ([("dams", doc["fine_dam"]["id"])] if doc.get("fine_dam") else [])
    rows = tuple(
        (f"{authenticity.KINDS[d['kind']][0]} {d['number']}",
         f"código {d['code']}, emitido em {clock.to_local(d['issued_at']):%d/%m/%Y %H:%M}"
         + ("" if d["status"] == authenticity.VALID else f" — {authenticity.STATUSES[d['status']].lower()}"
            + (f" pelo código {d['replaced_by']}" if d.get("replaced_by") else "")))
        for d in authenticity.documents_of(db, municipality, refs))
    return Section("Documentos emitidos no processo", rows or (("Documentos", "Nenhum emitido antes deste"),),
                   piece=False)
