"""Issue 38 item 4: a register TI defines without code receives requests of the public on the portal.

TI marks the register and chooses the fields the public fills (versioned and audited as every change of
the definition); a person of the municipality sees the open forms, fills them with the clerk's own
validation, and the request is a record of the register in the first state of its flow with the person
as requester and a protocol number; "Meus pedidos" follows it, and another's protocol reads as a
missing one."""
from __future__ import annotations

import pytest

from services.shared import clock, definitions, entities, flows, public_forms
from services.shared.auth import Actor, PermissionDenied
from services.shared.errors import NotFound, ValidationFailed
from services.shared.record_files import Sent
from services.shared.regulated_accounts import DRIVER, PLATFORM, REQUESTER, Person
from tests.conftest import SECRETARIA_CG

TI_CG = Actor("ti.cg", "TI de Chapada", "ti", ("chapada", "matupa"))
NAME = "bancas_feira"
ANA = Person("chapada", DRIVER, "52998224725", "52998224725", "Ana Souza")
BRUNO = Person("chapada", DRIVER, "11144477735", "11144477735", "Bruno Lima")
PLATFORM_PERSON = Person("chapada", PLATFORM, "11222333000181", "52998224725", "Rita Agente")
CARLA_MP = Person("matupa", DRIVER, "39053344705", "39053344705", "Carla de Matupá")
PDF = b"%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n"
PUBLIC = ["titular", "produto", "inicio", "foto", "quantidade", "energia"]


def stalls(**extra) -> dict:
    return {"name": NAME, "label": "Banca da feira", "label_plural": "Bancas da feira", "feminine": True,
            "read_roles": ["secretaria", "ti"], "write_roles": ["secretaria"], "municipalities": ["chapada"],
            "fields": [{"name": "titular", "label": "Nome do titular", "kind": "text", "required": True},
                       {"name": "produto", "label": "Produto", "kind": "choice", "required": True,
                        "choices": ["Hortaliças", "Artesanato"]},
                       {"name": "inicio", "label": "Início desejado", "kind": "date"},
                       {"name": "foto", "label": "Foto da banca", "kind": "file"},
                       {"name": "quantidade", "label": "Número de bancas", "kind": "int"},
                       {"name": "energia", "label": "Precisa de energia elétrica", "kind": "bool"},
                       {"name": "area", "label": "Área concedida (m²)", "kind": "int"}],
            "flow": {"states": [{"label": "Protocolado"}, {"label": "Em análise"}, {"label": "Deferido"}],
                     "transitions": [
                         {"source": "protocolado", "target": "em_analise", "label": "Analisar",
                          "roles": ["secretaria"]},
                         {"source": "em_analise", "target": "deferido", "label": "Deferir", "roles": ["secretaria"]}]},
            **extra}


def opened(db, fields=PUBLIC, **extra) -> None:
    definitions.define_register(db, TI_CG, "chapada", stalls(public={"open": True, "fields": list(fields)}, **extra))


def good(**changes) -> dict:
    return {"titular": "Ana Souza", "produto": "Hortaliças", "inicio": "10/01/2027", **changes}


def test_ti_opens_a_register_to_the_public_in_a_new_version_of_its_definition_with_an_audit_entry(db):
    definitions.define_register(db, TI_CG, "chapada", stalls())
    assert public_forms.open_forms(db, ANA.actor) == []
    loaded = definitions.definition(db, TI_CG, "chapada", NAME)
    changed = {**loaded, "public": {"open": True, "fields": ["titular", "produto"]}}
    definitions.change_register(db, TI_CG, "chapada", NAME, changed, expected_version=loaded["version"])
    after = definitions.definition(db, TI_CG, "chapada", NAME)
    assert (after["version"], after["public"]) == (2, {"open": True, "fields": ["titular", "produto"]})
    entry = db["audit"].find_one({"collection": "register_definitions", "action": "update"})
    assert entry["changes"]["public"] == {"before": None, "after": {"open": True, "fields": ["titular", "produto"]}}
    [form] = public_forms.open_forms(db, ANA.actor)
    assert [f.name for f in form.fields] == ["titular", "produto"]


@pytest.mark.parametrize("public, flow, message", [
    ({"open": True, "fields": []}, True, "escolha ao menos um campo"),
    ({"open": True, "fields": ["titular"]}, True, "“Produto” é obrigatório"),
    ({"open": True, "fields": ["titular", "produto", "nada"]}, True, "“nada” não é um campo"),
    ({"open": True, "fields": ["titular", "produto"]}, False, "precisa de um fluxo de situações"),
])
def test_ti_is_told_what_keeps_a_register_from_the_public(db, public, flow, message):
    definition = stalls(public=public) if flow else {**stalls(public=public), "flow": None}
    with pytest.raises(ValidationFailed) as refused:
        definitions.define_register(db, TI_CG, "chapada", definition)
    assert message in refused.value.errors["public"]


def test_a_unique_field_or_a_reference_stays_with_the_clerk(db):
    definitions.define_register(db, TI_CG, "chapada", {
        "name": "pontos", "label": "Ponto", "label_plural": "Pontos", "read_roles": ["secretaria"],
        "write_roles": ["secretaria"], "municipalities": ["chapada"],
        "fields": [{"name": "codigo", "label": "Código", "kind": "text", "required": True, "unique": True}]})
    unique = stalls(public={"open": True, "fields": ["titular", "produto", "codigo"]})
    unique["fields"] = [*unique["fields"], {"name": "codigo", "label": "Código", "kind": "text",
                                            "required": True, "unique": True}]
    with pytest.raises(ValidationFailed) as refused:
        definitions.define_register(db, TI_CG, "chapada", unique)
    assert "“Código” é único" in refused.value.errors["public"]
    reference = stalls(public={"open": True, "fields": ["titular", "produto", "ponto"]})
    reference["fields"] = [*reference["fields"], {"name": "ponto", "label": "Ponto", "kind": "reference",
                                                  "target": "pontos"}]
    with pytest.raises(ValidationFailed) as refused:
        definitions.define_register(db, TI_CG, "chapada", reference)
    assert "“Ponto” refere outro cadastro" in refused.value.errors["public"]


def test_a_request_is_a_record_in_the_flows_first_state_with_its_requester_and_a_protocol(db):
    opened(db)
    protocol = public_forms.submit(db, ANA.actor, NAME, good(foto=Sent("banca.pdf", PDF)))
    assert protocol == f"0001/{clock.today().year}"
    [row] = list(db[NAME].find({}))
    assert (row["state"], row["titular"], row["protocol"], row["created_by"]) == (
        "protocolado", "Ana Souza", protocol, "condutor:52998224725")
    assert row["requester"] == {"kind": DRIVER, "document": "52998224725", "username": "condutor:52998224725",
                                "name": "Ana Souza", "channel": "portal"}
    assert row.get("area") is None  # the clerk's field
    audit = db["audit"].find_one({"collection": NAME, "action": "create"})
    assert audit["username"] == "condutor:52998224725" and audit["changes"]["protocol"]["after"] == protocol
    doc = entities.get(db, SECRETARIA_CG, NAME, "chapada", str(row["_id"]))
    assert public_forms.requested_by(doc) == (f"Pedido feito pelo portal · protocolo {protocol} · requerente "
                                              "Ana Souza (CPF 529.982.247-25)")
    assert public_forms.submit(db, BRUNO.actor, NAME, good(titular="Bruno")).startswith("0002/")


def test_the_person_gets_the_clerks_own_messages_and_a_refusal_spends_no_number(db):
    opened(db)
    values = good(produto="Carros", inicio="31/02/2027")
    with pytest.raises(ValidationFailed) as clerk:
        entities.create(db, SECRETARIA_CG, NAME, "chapada", values)
    with pytest.raises(ValidationFailed) as person:
        public_forms.submit(db, ANA.actor, NAME, values)
    assert person.value.errors == clerk.value.errors
    assert set(person.value.errors) == {"produto", "inicio"}
    with pytest.raises(ValidationFailed) as missing:
        public_forms.submit(db, ANA.actor, NAME, {"produto": "Artesanato"})
    assert missing.value.errors == {"titular": "Nome do titular: campo obrigatório."}
    with pytest.raises(ValidationFailed) as bad_file:
        public_forms.submit(db, ANA.actor, NAME, good(foto=Sent("banca.docx", b"PK\x03\x04")))
    assert bad_file.value.errors["foto"].startswith("Foto da banca: O arquivo 'banca.docx' não é PDF, JPEG ou PNG")
    assert db[NAME].count_documents({}) == 0
    assert public_forms.submit(db, ANA.actor, NAME, good()).startswith("0001/")


@pytest.mark.parametrize("field", ["area", "state", "protocol", "requester", "municipality"])
def test_a_field_the_public_does_not_fill_is_refused_when_posted(db, field):
    opened(db)
    with pytest.raises(ValidationFailed) as refused:
        public_forms.submit(db, ANA.actor, NAME, good(**{field: "12"}))
    assert refused.value.errors == {field: public_forms.NOT_PUBLIC}
    assert db[NAME].count_documents({}) == 0


def test_only_the_active_open_forms_of_the_persons_municipality_are_shown_and_reached(db):
    opened(db)
    assert [f.name for f in public_forms.open_forms(db, ANA.actor)] == [NAME]
    assert [f.name for f in public_forms.open_forms(db, PLATFORM_PERSON.actor)] == [NAME]
    assert public_forms.open_forms(db, CARLA_MP.actor) == []  # a register of Chapada only
    for call in (lambda: public_forms.public_form(db, CARLA_MP.actor, NAME),
                 lambda: public_forms.submit(db, CARLA_MP.actor, NAME, good())):
        with pytest.raises(NotFound, match=public_forms.NO_FORM):
            call()
    loaded = definitions.definition(db, TI_CG, "chapada", NAME)
    definitions.set_active(db, TI_CG, "chapada", NAME, False, expected_version=loaded["version"])
    assert public_forms.open_forms(db, ANA.actor) == []
    with pytest.raises(NotFound, match=public_forms.NO_FORM):
        public_forms.submit(db, ANA.actor, NAME, good())
    with pytest.raises(NotFound, match=public_forms.NO_FORM):
        public_forms.public_form(db, ANA.actor, "register_definitions")


def test_a_form_closed_by_ti_keeps_the_requests_in_meus_pedidos(db):
    opened(db)
    protocol = public_forms.submit(db, ANA.actor, NAME, good())
    loaded = definitions.definition(db, TI_CG, "chapada", NAME)
    definitions.change_register(db, TI_CG, "chapada", NAME, {**loaded, "public": {"open": False, "fields": PUBLIC}},
                                expected_version=loaded["version"])
    assert public_forms.open_forms(db, ANA.actor) == []
    assert [r.protocol for r in public_forms.my_requests(db, ANA.actor)] == [protocol]


def test_meus_pedidos_follows_the_flow_with_the_day_of_each_move_and_no_clerks_note(db):
    opened(db)
    first = public_forms.submit(db, ANA.actor, NAME, good())
    second = public_forms.submit(db, ANA.actor, NAME, good(titular="Ana (artesanato)", produto="Artesanato"))
    public_forms.submit(db, BRUNO.actor, NAME, good(titular="Bruno"))
    record = db[NAME].find_one({"protocol": first})
    flows.move(db, SECRETARIA_CG, "chapada", NAME, str(record["_id"]), "em_analise", "nota interna da servidora",
               expected_version=1)
    mine = public_forms.my_requests(db, ANA.actor)
    assert {r.protocol for r in mine} == {first, second}
    one = public_forms.my_request(db, ANA.actor, first)
    assert (one.state, one.register) == ("Em análise", "Banca da feira")
    assert [(s.what, s.state) for s in one.steps] == [("Pedido recebido", "Protocolado"), ("Analisar", "Em análise")]
    assert ("Produto", "Hortaliças") in one.values and all(label != "Área concedida (m²)" for label, _ in one.values)
    assert "nota interna" not in repr(one) and "sec.cg" not in repr(one)


def test_another_persons_protocol_reads_as_a_missing_one(db):
    opened(db)
    protocol = public_forms.submit(db, ANA.actor, NAME, good())
    for actor, number in ((BRUNO.actor, protocol), (PLATFORM_PERSON.actor, protocol), (CARLA_MP.actor, protocol),
                          (BRUNO.actor, "9999/2026"), (BRUNO.actor, "../x")):
        with pytest.raises(NotFound) as refused:
            public_forms.my_request(db, actor, number)
        assert refused.value.message == public_forms.NOT_FOUND
    assert public_forms.my_requests(db, BRUNO.actor) == []


def test_staff_reach_the_requests_on_the_registers_screen_not_through_the_portals_services(db):
    opened(db)
    for call in (lambda: public_forms.open_forms(db, SECRETARIA_CG),
                 lambda: public_forms.submit(db, TI_CG, NAME, good()),
                 lambda: public_forms.my_requests(db, SECRETARIA_CG)):
        with pytest.raises(PermissionDenied):
            call()


def test_a_file_sent_under_a_field_that_is_no_file_is_refused_not_kept(db):
    opened(db)
    with pytest.raises(ValidationFailed) as refused:
        public_forms.submit(db, ANA.actor, NAME, good(titular=Sent("banca.pdf", PDF)))
    assert refused.value.errors == {"titular": "Nome do titular: este campo não recebe arquivo."}
    with pytest.raises(ValidationFailed) as clerk:  # the clerk's own validation, which the portal's is
        entities.create(db, SECRETARIA_CG, NAME, "chapada", good(titular=Sent("banca.pdf", PDF)))
    assert clerk.value.errors == refused.value.errors
    assert db[NAME].count_documents({}) == 0


def test_a_requerente_and_an_entity_ask_as_themselves_and_each_owns_only_their_requests(db):
    opened(db)
    dora = Person("chapada", REQUESTER, "39053344705", "39053344705", "Dora Requerente")
    entity = Person("chapada", REQUESTER, "11222333000181", "52998224725", "Ana pela Associação dos Feirantes")
    other_agent = Person("chapada", REQUESTER, "11222333000181", "11144477735", "Bruno pela Associação")
    mine = public_forms.submit(db, dora.actor, NAME, good(titular="Dora"))
    theirs = public_forms.submit(db, entity.actor, NAME, good(titular="Associação dos Feirantes"))
    record = entities.get(db, SECRETARIA_CG, NAME, "chapada", str(db[NAME].find_one({"protocol": theirs})["_id"]))
    assert public_forms.requested_by(record) == (
        f"Pedido feito pelo portal · protocolo {theirs} · requerente Ana pela Associação dos Feirantes "
        "(CNPJ 11.222.333/0001-81)")
    assert [r.protocol for r in public_forms.my_requests(db, dora.actor)] == [mine]
    assert [r.protocol for r in public_forms.my_requests(db, other_agent.actor)] == [theirs]  # the entity's
    assert public_forms.my_requests(db, ANA.actor) == []  # Ana as a driver is not the entity she speaks for
    with pytest.raises(NotFound, match=public_forms.NOT_FOUND):
        public_forms.my_request(db, ANA.actor, theirs)
