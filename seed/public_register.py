"""A register municipal TI defined without code and opened to the public (issue 38 item 4), in the demo store:
Chapada's spaces at the farmers' market ("Bancas da feira do produtor"), with its flow, requested on the
portal by any of its accounts."""
from __future__ import annotations

from pymongo.database import Database

from services.shared import definition_spec, definitions
from services.shared.auth import Actor

NAME = "bancas_feira_produtor"
TI = Actor("carga.ti", "Carga de demonstração (TI)", "ti", ("chapada",))
MARKET = {
    "name": NAME, "label": "Banca da feira do produtor", "label_plural": "Bancas da feira do produtor",
    "feminine": True, "read_roles": ["secretaria", "ti"], "write_roles": ["secretaria"], "municipalities": ["chapada"],
    "fields": [
        {"name": "titular", "label": "Nome do titular da banca", "kind": "text", "required": True},
        {"name": "produto", "label": "O que vai vender", "kind": "choice", "required": True,
         "choices": ["Hortaliças e frutas", "Queijos e derivados", "Artesanato", "Comida pronta"]},
        {"name": "inicio", "label": "A partir de quando", "kind": "date"},
        {"name": "energia", "label": "Precisa de energia elétrica", "kind": "bool"},
        {"name": "foto", "label": "Foto dos produtos ou da banca", "kind": "file"},
        {"name": "numero", "label": "Número da banca concedida", "kind": "int"},
    ],
    "flow": {"states": [{"label": "Protocolado"}, {"label": "Em análise"}, {"label": "Concedida"},
                        {"label": "Negada"}],
             "transitions": [
                 {"source": "protocolado", "target": "em_analise", "label": "Analisar", "roles": ["secretaria"]},
                 {"source": "em_analise", "target": "concedida", "label": "Conceder", "roles": ["secretaria"]},
                 {"source": "em_analise", "target": "negada", "label": "Negar", "roles": ["secretaria"]}]},
    "public": {"open": True, "fields": ["titular", "produto", "inicio", "energia", "foto"]},
}


def seed_public_register(db: Database) -> None:
    """The market's register, opened to the public, once (the clerk fills the stall's number)."""
    if db[definition_spec.COLLECTION].find_one({"name": NAME}) is None:
        definitions.define_register(db, TI, "chapada", MARKET)
