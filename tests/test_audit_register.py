"""The audit log reads like a register: pt-BR actions, the record's own key, fields by label with
formatted values; logins, refused logins, lockouts and logouts are in it."""
from __future__ import annotations

from datetime import date, datetime, timezone
from decimal import Decimal
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from services.shared import accounts, audit_log, entities, sessions
from tests.conftest import SECRETARIA_CG, TI

PASSWORD = "senha-forte-1"
TAXPAYER = {"name": "João Teste", "document": "52998224725", "kind": "pf", "address": "Rua B, 2"}


def newest(db, **query):
    entries, _ = audit_log.search(db, TI, None, None, None, None, None, None, 50)
    return [e for e in entries if all(e.get(k) == v for k, v in query.items())]


def test_login_refused_login_lockout_and_logout_are_recorded_in_portuguese(db):
    accounts.create_user(db, TI, "maria.silva", "Maria Silva", "secretaria", ["chapada"], PASSWORD)
    actor, session = sessions.login(db, "maria.silva", PASSWORD)
    sessions.logout(db, actor, session)
    for _ in range(sessions.MAX_FAILED_LOGINS):
        with pytest.raises(sessions.InvalidCredentials if _ < sessions.MAX_FAILED_LOGINS - 1 else sessions.AccountLocked):
            sessions.login(db, "maria.silva", "errada-errada")
    shown = [row["Ação"] for row in audit_log.rows_shown(newest(db, username="maria.silva"))]
    assert set(shown[:2]) == {"Bloqueio da conta por tentativas", "Tentativa de entrada recusada"}
    assert shown.count("Tentativa de entrada recusada") == sessions.MAX_FAILED_LOGINS
    assert {"Entrada no painel", "Saída do painel"} <= set(shown)


def test_a_logout_ends_the_stored_session_so_its_cookie_no_longer_opens_it(db):
    accounts.create_user(db, TI, "maria.silva", "Maria Silva", "secretaria", ["chapada"], PASSWORD)
    actor, session = sessions.login(db, "maria.silva", PASSWORD)
    now = datetime.now(timezone.utc)
    assert sessions.resume_cookie(db, session.token, now)[0].username == "maria.silva"
    sessions.logout(db, actor, session)
    assert sessions.resume_cookie(db, session.token, now) is None


@pytest.mark.parametrize("cookie", ["", "lixo", "a.1.b", "x" * 43 + ".9999999999.assinatura"],
                         ids=["empty", "garbage", "short", "forged"])
def test_a_forged_or_unknown_cookie_is_no_session(db, cookie):
    assert sessions.resume_cookie(db, cookie, datetime.now(timezone.utc)) is None


def test_a_tampered_expiry_breaks_the_signature(db):
    accounts.create_user(db, TI, "maria.silva", "Maria Silva", "secretaria", ["chapada"], PASSWORD)
    token, expiry, signature = sessions.login(db, "maria.silva", PASSWORD)[1].token.split(".")
    later = f"{token}.{int(expiry) + 86400}.{signature}"
    assert sessions.resume_cookie(db, later, datetime.now(timezone.utc)) is None


def test_a_change_shows_the_action_entity_key_and_labelled_fields(db):
    doc_id = entities.create(db, SECRETARIA_CG, "taxpayers", "chapada", TAXPAYER)
    entities.update(db, SECRETARIA_CG, "taxpayers", "chapada", doc_id, {"name": "João Alterado", "kind": "pj"},
            expected_version=entities.get(db, SECRETARIA_CG, "taxpayers", "chapada", doc_id)["version"])
    row = audit_log.rows_shown(newest(db, doc_id=doc_id, action="update"))[0]
    assert (row["Ação"], row["Registro"], row["Chave"]) == ("Alteração de contribuinte", "Contribuinte", "52998224725")
    assert "Nome / Razão social: João Teste → João Alterado" in row["Alterações"]
    assert "Tipo: Pessoa física → Pessoa jurídica" in row["Alterações"]


@pytest.mark.parametrize("value,shown", [
    (Decimal("1234.5"), "R$\xa01.234,50"),
    (date(2026, 12, 1), "01/12/2026"),
    ("2026-12-01", "01/12/2026"),
    (datetime(2026, 12, 1, 15, 0, tzinfo=timezone.utc), "01/12/2026 11:00"),
    (True, "Sim"),
    (None, "—"),
], ids=["money", "date", "iso date", "instant in Cuiabá", "yes", "empty"])
def test_values_are_formatted_as_people_read_them(value, shown):
    assert audit_log.shown_value(value) == shown


def test_the_parts_of_a_changed_value_read_by_their_labels():
    # a DAM payment showed "Pagamento: — → paid_on: 2026-12-01; amount: ...; bank: ..." (item 10)
    entry = {"collection": "dams", "changes": {"payment": {"before": None, "after": {
        "paid_on": "2026-12-01", "amount": Decimal("95.50"), "bank": "Banco do Brasil", "flags": [],
        "recorded_by": "ana.souza"}}}}
    assert audit_log.changes_shown(entry) == ("Pagamento: — → Pago em: 01/12/2026; Valor: R$\xa095,50; "
                                              "Banco: Banco do Brasil; Alertas: —; Registrado por: ana.souza")


def test_another_record_named_in_a_change_is_shown_by_its_key(db, today):
    # the ISSQN of a platform showed "DAM: — → 6b0eda1ad64f38ea51d1e652" (its id) in the log
    from services.dam import dams

    dam = dams.issue(db, SECRETARIA_CG, "chapada", taxpayer_name="João Pereira Lima",
                     taxpayer_document="529.982.247-25", taxpayer_address="Rua A, 1", revenue_kind="outras",
                     description="ISSQN", legal_basis="LC 116/2003", amount=Decimal("10.00"), due=date(2026, 3, 20))
    entry = {"at": datetime(2026, 12, 1, 15, 0, tzinfo=timezone.utc), "username": "carga.chapada",
             "municipality": "chapada", "action": "update", "collection": "platform_issqn", "key": "WFB4A55",
             "changes": {"dam_id": {"before": None, "after": dam["id"]}}}
    (row,) = audit_log.rows_shown([entry], db)
    assert row["Alterações"] == f"DAM: — → {dam['number']}"


@pytest.mark.parametrize("action,collection,label", [
    ("pay", "dams", "Pagamento de DAM"),
    ("create", "drivers", "Cadastro de condutor"),
    ("update", "vehicles", "Alteração de veículo"),
    ("login", "users", "Entrada no painel"),
], ids=["dam payment", "driver", "vehicle", "login"])
def test_actions_are_named_in_portuguese(action, collection, label):
    assert audit_log.action_label(action, collection) == label


def test_the_audit_page_lists_the_register_with_a_link_to_the_record(db):
    doc_id = entities.create(db, SECRETARIA_CG, "taxpayers", "chapada", TAXPAYER)
    at = AppTest.from_file(str(Path(__file__).resolve().parent.parent / "app_pages" / "audit.py"), default_timeout=60)
    at.session_state["actor"], at.session_state["municipality"] = TI, "chapada"
    at.run()
    assert not at.exception
    frame = at.dataframe[0].value
    row = frame[frame["Chave"] == "52998224725"].iloc[0]
    assert row["Ação"] == "Cadastro de contribuinte" and row["Registro"] == "Contribuinte"
    assert row["Abrir"] == f"/taxpayers?id={doc_id}"
    assert "create" not in frame["Ação"].tolist()
