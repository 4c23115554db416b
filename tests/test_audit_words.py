"""Issue 22 item 9: the Auditoria names every changed field, every stored code and every municipality
in pt-BR — never ``payment_terms``, ``aguardando_orcamento`` or ``nova_lacerda``."""
from __future__ import annotations

import re
from datetime import date, datetime, timezone
from decimal import Decimal
from pathlib import Path

from streamlit.testing.v1 import AppTest

from services.shared import audit, audit_log
from services.store import decode
from tests.conftest import TI

ROOT = Path(__file__).resolve().parent.parent
CODE = re.compile(r"\b[a-z]+(?:_[a-z0-9]+)+\b|\b[A-Z]+(?:_[A-Z0-9]+)+\b")


def audit_page(db, municipality: str = "nova_lacerda") -> AppTest:
    at = AppTest.from_file(str(ROOT / "app_pages" / "audit.py"), default_timeout=60)
    at.session_state["actor"], at.session_state["municipality"] = TI, municipality
    return at.run()


def test_a_booking_request_reads_in_portuguese_on_the_audit_page(db):
    before = {"status": "aguardando_orcamento", "declarations": {"payment_terms": False, "liability": False},
              "services": [{"kind": "machine_hours", "item": "01", "hours": Decimal("6")}]}
    after = {"status": "aguardando_pagamento", "declarations": {"payment_terms": True, "liability": True},
             "services": [{"kind": "earth_loads", "loads": 5}],
             "requester": {"name": "Rosa Lima", "standing": "nada_deve"},
             "extension": {"ground": "NON_PROFIT_OR_VULNERABLE", "ground_label": "Entidade sem fins lucrativos",
                           "instalments": ["integral"]},
             "execution": {"operator_id": "6b0fc35702c144188dbbf6b4", "operator": "Fernando Gomes",
                           "meters": [{"start": Decimal("4203"), "end": Decimal("4210")}]}}
    audit.record(db, TI, "nova_lacerda", "quote", "booking_requests", "6b0fc35702c144188dbbf6a2", before, after)
    at = audit_page(db)
    assert not at.exception
    frame = at.dataframe[0].value
    row = frame[frame["Registro"] == "Pedido de serviço"].iloc[0]
    assert row["Município"] == "Nova Lacerda"
    changes = row["Alterações"]
    assert "Situação: Aguardando orçamento → Aguardando pagamento" in changes
    assert "Concorda com os critérios de pagamento: Não" in changes
    assert "Concorda com os critérios de pagamento: Sim" in changes
    assert "Tipo: Horas-máquina" in changes and "Tipo: Cargas de terra/cascalho" in changes
    assert "Situação fiscal: Nada deve" in changes
    assert "Hipótese: Entidade sem fins lucrativos; Parcelas: Pagamento integral" in changes
    assert "Operador: Fernando Gomes; Medidores: Início: 4.203; Fim: 4.210" in changes
    assert CODE.findall(changes) == [] and "6b0fc357" not in changes


def test_municipalities_parameters_and_dam_codes_by_their_names(db):
    entries = [
        {"at": datetime(2026, 12, 1, 15, 0, tzinfo=timezone.utc), "username": "ti", "municipality": "nova_lacerda",
         "action": "create", "collection": "parameters", "key": "upfm_value",
         "changes": {"name": {"before": None, "after": "upfm_value"},
                     "municipality": {"before": None, "after": "nova_lacerda"},
                     "effective": {"before": None, "after": date(2026, 1, 1)}}},
        {"at": datetime(2026, 12, 1, 15, 0, tzinfo=timezone.utc), "username": "ana", "municipality": "matupa",
         "action": "pay", "collection": "dams", "key": "0001/2026",
         "changes": {"status": {"before": "emitido", "after": "pago"},
                     "revenue_kind": {"before": None, "after": "taxa_autorizacao"},
                     "pays": {"before": None, "after": {"collection": "booking_requests"}},
                     "payment": {"before": None, "after": {"flags": ["valor_divergente", "debito_pago_a_menor"],
                                                           "origin": {"kind": "manual"}}}}},
        {"at": datetime(2026, 12, 1, 15, 0, tzinfo=timezone.utc), "username": "ti", "municipality": None,
         "action": "create", "collection": "users", "key": "maria",
         "changes": {"municipalities": {"before": None, "after": ["chapada", "nova_lacerda"]},
                     "role": {"before": None, "after": "secretaria"}}},
    ]
    parameter, dam, user = audit_log.rows_shown(entries, db)
    assert (parameter["Município"], parameter["Chave"]) == ("Nova Lacerda", "Valor da UPFM (R$)")
    assert "Nome: — → Valor da UPFM (R$); Município: — → Nova Lacerda" in parameter["Alterações"]
    assert dam["Município"] == "Matupá"
    assert dam["Alterações"] == (
        "Situação: Emitido → Pago; Receita: — → Taxa de autorização; "
        "Refere-se a: — → Registro: Pedido de serviço; "
        "Pagamento: — → Alertas: Valor divergente, Débito pago a menor; Origem: Tipo: Baixa manual")
    assert user["Alterações"] == ("Municípios: — → Chapada dos Guimarães, Nova Lacerda; "
                                  "Perfil: — → Secretaria (cadastros e emissões)")


def test_no_stored_code_of_the_demo_log_reaches_the_audit_page(demo_db):
    """Over every entry the demo writes: no snake_case code in Município, Chave or Alterações (file
    names, usernames, and the codes TI types as the value of a text parameter, which its note explains,
    excepted)."""
    db = demo_db
    assert not audit_page(db).exception  # the page names the codes of the rooms above services/shared
    entries = [decode(e) for e in db["audit"].find({})]
    allowed = re.compile(r"\w+\.(csv|png)|carga\.\w+|same_severity|same_infraction|whole_distance"
                         r"|excess_over_200|property_(and|or)_requester")
    raw = {(e["collection"], token) for e, row in zip(entries, audit_log.rows_shown(entries, db))
           for column in ("Município", "Chave", "Alterações")
           for token in CODE.findall(allowed.sub("", str(row[column])))}
    assert raw == set()


def test_the_record_filter_offers_names_and_the_toggle_names_the_municipality(db):
    audit.record(db, TI, "nova_lacerda", "quote", "booking_requests", "6b0fc35702c144188dbbf6a2",
                 {"status": "aguardando_orcamento"}, {"status": "aguardando_pagamento"})
    audit.record(db, TI, "nova_lacerda", "create", "taxpayers", "6b0fc35702c144188dbbf6a3", {}, {"name": "Rosa"})
    at = audit_page(db)
    picker = at.selectbox(key="audit_collection")
    assert picker.label == "Registro" and "Pedido de serviço" in picker.options
    assert not any("_" in option for option in picker.options)
    assert at.toggle(key="audit_only_here").label == "Somente Nova Lacerda"
    at = picker.set_value("booking_requests").run()
    assert not at.exception
    assert set(at.dataframe[0].value["Registro"]) == {"Pedido de serviço"}


def test_the_action_filter_reads_in_portuguese_before_a_record_is_chosen(demo_db):
    at = audit_page(demo_db)
    options = at.selectbox(key="audit_action").options
    assert "Cadastro" in options and "Orçamento" in options and "Carga inicial" in options
    assert [o for o in options if o.endswith(" de ") or "_" in o or o[:1].islower()] == []


def test_a_charge_named_in_a_change_reads_by_its_description_never_its_id(db):
    """The ISSQN of a platform links its charge (field "Débito"): the Auditoria showed its id
    ("Débito: — → 6b12f72664c…"); it shows what the charge is for."""
    from services.store import encode, insert_one
    charge = str(insert_one(db["charges"], encode({"municipality": "chapada", "description": "ISSQN 11/2026 da MoveJá"})))
    audit.record(db, TI, "chapada", "update", "platform_issqn", "6b0fc35702c144188dbbf6a9",
                 {"charge_id": None}, {"charge_id": charge})
    frame = audit_page(db, "chapada").dataframe[0].value
    changes = frame[frame["Registro"] == "ISSQN da plataforma"].iloc[0]["Alterações"]
    assert "ISSQN 11/2026 da MoveJá" in changes and charge not in changes
