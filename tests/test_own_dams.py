"""Issue 38 items 2 and 5, the services: a taxpayer's own DAMs on the portal (only their own, in their own
municipality: another's and another municipality's read as a missing one), the 2ª via of an overdue one
at the clerk's own amount of the day, and the status asked without an account (a wrong CPF answers as an
unknown number, nothing personal answered)."""
from __future__ import annotations

from datetime import date
from decimal import Decimal

import pytest

from rules.dam.late import FINE_DAILY, FINE_MAX, INTEREST_MONTHLY
from rules.params import ParameterVersion
from services.dam import dams, own_dams, payments, reissue
from services.setup import bootstrap
from services.shared.errors import NotFound, PermissionDenied
from services.shared.regulated_accounts import Person
from tests.conftest import SECRETARIA_CG, SECRETARIA_MP

ANA, BRUNO = "52998224725", "11144477735"  # valid check digits, invented
PLATFORM = "11444777000161"
DUE = date(2026, 3, 10)  # a Tuesday; the DAMs are issued on Monday 02/03/2026 (the ``today`` fixture)
LATER = date(2026, 4, 15)  # a Wednesday: the day the 2ª via is asked for
CTM = "Código Tributário Municipal (demonstração de teste)"


@pytest.fixture
def rates(db):
    for code in ("chapada", "matupa"):
        for name, value in ((FINE_DAILY, Decimal("0.33")), (FINE_MAX, Decimal("20")),
                            (INTEREST_MONTHLY, Decimal("1"))):
            bootstrap.ensure_parameter(db, code, ParameterVersion(name, date(2025, 1, 1), value, CTM))


def person(document: str, municipality: str = "chapada", agent: str = ""):
    kind = "plataforma" if len(document) == 14 else "condutor"
    return Person(municipality, kind, document, agent, "Pessoa de teste").actor


def issue(db, document: str, municipality: str = "chapada", due: date = DUE, amount: str = "100.00") -> dict:
    actor = SECRETARIA_CG if municipality == "chapada" else SECRETARIA_MP
    return dams.issue(db, actor, municipality, taxpayer_name="Ana Souza Lima", taxpayer_document=document,
                      taxpayer_address="Rua das Flores, 10", revenue_kind="taxa_vistoria",
                      description="Taxa de vistoria do veículo", legal_basis="Decreto 06/2026, art. 14",
                      amount=Decimal(amount), due=due)


def test_the_driver_reads_only_own_dams_a_page_at_a_time_with_their_status(db, today, rates):
    mine = [issue(db, ANA) for _ in range(11)]
    issue(db, BRUNO)
    issue(db, ANA, "matupa")
    payments.record_payment(db, SECRETARIA_CG, "chapada", mine[0]["id"], today.value, Decimal("100.00"), "Banco")
    dams.cancel(db, SECRETARIA_CG, "chapada", mine[1]["id"], "Emitido em duplicidade")
    today.set(LATER)
    reissue.reissue(db, SECRETARIA_CG, "chapada", mine[2]["id"], LATER)  # the 12th DAM of Ana, open
    issue(db, ANA, due=date(2026, 5, 4))  # the 13th, open

    first = own_dams.my_dams(db, person(ANA))
    assert len(first["items"]) == own_dams.PAGE and first["next"]
    second = own_dams.my_dams(db, person(ANA), first["next"])
    assert second["next"] == ""
    numbers = [d["number"] for d in first["items"] + second["items"]]
    expected = [d["number"] for d in mine] + ["0013/2026", "0014/2026"]
    assert numbers == sorted(expected, reverse=True)  # none of Bruno's (0012) nor Matupá's
    status = {d["number"]: d["status_label"] for d in first["items"] + second["items"]}
    assert [status[d["number"]] for d in mine[:4]] == ["Pago", "Cancelado", "Substituído", "Vencido"]
    assert status["0014/2026"] == status["0013/2026"] == "Em aberto"
    shown = first["items"][0]
    assert (shown["due"], shown["amount"]) == ("04/05/2026", "R$ 100,00")


def test_another_drivers_and_another_municipalitys_dam_read_as_a_missing_one(db, today, rates):
    issue(db, ANA)  # 0001/2026 in Chapada
    brunos = issue(db, BRUNO)  # 0002/2026 in Chapada
    for _ in range(3):
        issue(db, BRUNO, "matupa")
    in_matupa = issue(db, ANA, "matupa")  # 0004/2026: Ana's CPF, but in Matupá
    today.set(LATER)
    before = db["dams"].count_documents({}), db["audit"].count_documents({})
    answers = set()
    for number in (brunos["number"], in_matupa["number"], "9999/2026", "lixo"):
        for service in (own_dams.own_dam, own_dams.own_pdf, own_dams.reissue_own):
            with pytest.raises(NotFound) as refused:
                service(db, person(ANA), number)
            answers.add(refused.value.message)
    assert answers == {own_dams.NOT_FOUND}
    assert (db["dams"].count_documents({}), db["audit"].count_documents({})) == before
    assert own_dams.own_dam(db, person(ANA), "0001/2026")["status_label"] == "Vencido"


def test_a_staff_actor_is_refused_the_portals_dams(db):
    for service, args in ((own_dams.my_dams, ()), (own_dams.own_dam, ("0001/2026",))):
        with pytest.raises(PermissionDenied):
            service(db, SECRETARIA_CG, *args)


def test_the_2a_via_charges_what_the_clerks_2a_via_charges_on_the_same_day(db, today, rates):
    clerks, own = issue(db, BRUNO), issue(db, ANA)
    today.set(LATER)
    by_clerk = reissue.reissue(db, SECRETARIA_CG, "chapada", clerks["id"], LATER)
    via = own_dams.reissue_own(db, person(ANA), own["number"])
    stored = dams._load(db, "chapada", db["dams"].find_one({"number": via["number"]})["_id"])
    assert (stored["amount"], stored["fine"], stored["interest"]) == (
        by_clerk["amount"], by_clerk["fine"], by_clerk["interest"])
    assert stored["fine"] > 0 and stored["due_on"] == LATER and via["due"] == "15/04/2026"
    assert stored["charge_id"] == own["charge_id"] and stored["replaces"]["number"] == own["number"]
    assert own_dams.own_dam(db, person(ANA), own["number"])["status_label"] == "Substituído"
    audit = db["audit"].find_one({"collection": "dams", "doc_id": stored["id"], "action": "create"})
    assert (audit["username"], audit["role"]) == (f"condutor:{ANA}", "regulado")
    assert own_dams.own_pdf(db, person(ANA), via["number"]).startswith(b"%PDF")


def test_a_platforms_agent_reaches_the_platforms_dams(db, today, rates):
    dam = issue(db, PLATFORM)
    assert own_dams.own_dam(db, person(PLATFORM, agent=ANA), dam["number"])["number"] == dam["number"]
    with pytest.raises(NotFound):
        own_dams.own_dam(db, person(ANA), dam["number"])  # the agent's own CPF is not the platform


def test_a_dam_not_yet_overdue_has_no_2a_via(db, today, rates):
    dam = issue(db, ANA)
    with pytest.raises(reissue.DamNotReissuable):
        own_dams.reissue_own(db, person(ANA), dam["number"])


def test_the_status_without_an_account_answers_a_wrong_cpf_as_an_unknown_number(db, today, rates):
    dam = issue(db, ANA)
    today.set(LATER)
    assert own_dams.lookup(db, "chapada", dam["number"], BRUNO) is None
    assert own_dams.lookup(db, "chapada", "0099/2026", ANA) is None
    assert own_dams.lookup(db, "matupa", dam["number"], ANA) is None
    assert own_dams.lookup(db, "atlantida", dam["number"], ANA) is None
    found = own_dams.lookup(db, "chapada", dam["number"], "529.982.247-25")
    assert (found["status_label"], found["due"], found["amount"]) == ("Vencido", "10/03/2026", "R$ 100,00")
    assert not {"description", "issued", "principal"} & set(found)  # nothing beyond what the status page says
    assert "Ana" not in repr(found) and "Flores" not in repr(found)
    assert own_dams.reissue_typed(db, "chapada", dam["number"], BRUNO) is None
    via = own_dams.reissue_typed(db, "chapada", dam["number"], ANA)
    assert via["status_label"] == "Em aberto" and via["line"] and via["due"] == "15/04/2026"
    entry = db["audit"].find_one({"collection": "dams", "action": "create", "username": f"condutor:{ANA}"})
    assert entry is not None and entry["user_name"] == own_dams.TYPED_NAME


def test_the_demo_driver_has_an_open_and_an_overdue_dam(demo_db):
    """README's demo driver (CPF 730.215.736-73) finds a DAM to pay and one to ask the 2ª via of."""
    items = own_dams.my_dams(demo_db, person("73021573673"), limit=50)["items"]
    assert {own_dams.OPEN, dams.OVERDUE} <= {d["status"] for d in items}
    overdue = next(d for d in items if d["status"] == dams.OVERDUE)
    assert own_dams.reissue_own(demo_db, person("73021573673"), overdue["number"])["status"] == own_dams.OPEN


def test_an_authorization_requests_status_by_its_protocol_and_the_drivers_cpf(db, today):
    from services.ridehailing import authorizations, protocol_status
    from tests.ridehailing_data import requested

    auth_id = requested(db, "chapada", date(2026, 2, 25))
    doc = authorizations.get_authorization(db, SECRETARIA_CG, "chapada", auth_id)
    protocol, cpf = doc["protocol"], doc["driver_cpf"]
    asked = protocol_status.request_status(db, "chapada", protocol.lstrip("0"), cpf)
    assert asked == {"protocol": protocol, "protocol_date": "25/02/2026", "status_label": "Requerida",
                     "deadline": ""}
    wrong_cpf = protocol_status.request_status(db, "chapada", protocol, ANA)
    unknown = protocol_status.request_status(db, "chapada", "0099/2026", cpf)
    elsewhere = protocol_status.request_status(db, "matupa", protocol, cpf)
    assert wrong_cpf is unknown is elsewhere is None


def test_a_page_of_own_dams_and_a_lookup_read_their_index_in_order(db):
    from services.ridehailing import protocol_status

    dams.prepare(db)
    newest_first = [("year", -1), ("sequence", -1)]
    for query in ({"municipality": "chapada", "taxpayer_document": ANA},
                  {"municipality": "chapada", "taxpayer_document": ANA,
                   "$or": [{"year": {"$lt": 2026}}, {"year": 2026, "sequence": {"$lt": 7}}]}):
        plan = " | ".join(db[dams.COLLECTION].explain_sql(query, newest_first, own_dams.PAGE + 1))
        assert "i_dam_taxpayer_number" in plan and "TEMP B-TREE" not in plan, plan
    protocol_status.prepare(db)
    plan = " | ".join(db["authorizations"].explain_sql({"municipality": "chapada", "protocol": "0001/2026",
                                                        "driver_cpf": ANA}))
    assert "i_authorizations_protocol" in plan, plan


def test_a_2a_via_asked_again_answers_the_one_already_issued(db, today, rates):
    """A submit repeated after its answer was lost (a weak network) makes no second DAM."""
    dam = issue(db, ANA)
    today.set(LATER)
    first = own_dams.reissue_own(db, person(ANA), dam["number"])
    count = db["dams"].count_documents({})
    assert own_dams.reissue_own(db, person(ANA), dam["number"])["number"] == first["number"]
    assert own_dams.reissue_typed(db, "chapada", dam["number"], ANA)["number"] == first["number"]
    assert db["dams"].count_documents({}) == count
    today.set(date(2026, 5, 20))  # the 2ª via is overdue in turn: asked from the first number, a 3ª via
    third = own_dams.reissue_own(db, person(ANA), dam["number"])
    assert third["number"] not in (dam["number"], first["number"])
    assert own_dams.own_dam(db, person(ANA), first["number"])["replaced_by"] == third["number"]
