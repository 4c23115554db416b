"""Demo values of the documents and the DAM (``python -m seed --demo`` only): an invented coat of arms
drawn with PIL, an invented CNPJ with valid check digits, an invented signer, invented revenue codes
and invented late-payment rates. A real store gets none of these; TI sets them on the Implantação
and Parâmetros pages. Every act here says "demonstração"."""
from __future__ import annotations

import io
from datetime import date
from decimal import Decimal

from PIL import Image, ImageDraw
from pymongo.database import Database

from rules.dam.late import FINE_DAILY, FINE_MAX, INTEREST_MONTHLY
from rules.dam.parameters import revenue_code_parameter
from rules.params import ParameterVersion
from services.dam import active_debt
from services.setup import bootstrap, deployment
from services.shared import municipalities
from services.shared.auth import SYSTEM

DEMO_ACT = "Código Tributário Municipal de demonstração — confirmar o ato municipal"
COLOURS = {"chapada": ((31, 95, 139), (214, 170, 40)), "matupa": ((27, 122, 62), (240, 200, 60)),
           "nova_lacerda": ((140, 40, 40), (230, 190, 80))}
CNPJ_BASES = {"chapada": "03507506", "matupa": "24772246", "nova_lacerda": "37465309"}
SIGNERS = {
    "chapada": ("Marina Castro Leite (demonstração)", "Secretária Municipal de Finanças"),
    "matupa": ("Otávio Nunes Prado (demonstração)", "Secretário Municipal de Administração"),
    "nova_lacerda": ("Helena Brito Sales (demonstração)", "Secretária Municipal de Obras e Infraestrutura"),
}
REVENUE_CODES = {"taxa_autorizacao": "1121.01.10", "taxa_vistoria": "1121.01.20", "multa": "1919.01.00",
                 "preco_publico": "1610.01.00", "parcela": "1610.01.10", "outras": "1990.99.00"}


def demo_cnpj(base: str) -> str:
    """``base`` (8 digits) + branch 0001 + the two check digits of the Receita Federal."""
    digits = [int(d) for d in base + "0001"]
    for weights in ([5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2], [6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2]):
        remainder = sum(d * w for d, w in zip(digits, weights)) % 11
        digits.append(0 if remainder < 2 else 11 - remainder)
    return "".join(map(str, digits))


def demo_coat_of_arms(code: str) -> bytes:
    """An invented shield (a PNG): two colours, a star and the word DEMO, no real heraldry."""
    field, metal = COLOURS[code]
    image = Image.new("RGBA", (240, 280), (255, 255, 255, 0))
    draw = ImageDraw.Draw(image)
    shield = [(20, 20), (220, 20), (220, 150), (120, 262), (20, 150)]
    draw.polygon(shield, fill=field, outline=(40, 40, 40))
    draw.line([(20, 20), (220, 20), (220, 150), (120, 262), (20, 150), (20, 20)], fill=metal, width=8)
    star = [(120, 50), (134, 92), (178, 92), (142, 118), (156, 160), (120, 134), (84, 160), (98, 118), (62, 92),
            (106, 92)]
    draw.polygon(star, fill=metal)
    draw.rectangle([(60, 182), (180, 212)], fill=(255, 255, 255))
    draw.text((98, 190), "DEMO", fill=field)
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return buffer.getvalue()


def demo_dam_parameters(code: str) -> list[ParameterVersion]:
    """Invented revenue codes, late-payment rates (0,33 % a day up to 20 %, 1 % a month) and the term before
    an overdue charge may be inscribed in dívida ativa (90 days)."""
    start = date(2025, 1, 1)
    return [
        *(ParameterVersion(revenue_code_parameter(kind), start, value, DEMO_ACT) for kind, value in REVENUE_CODES.items()),
        ParameterVersion(FINE_DAILY, start, Decimal("0.33"), DEMO_ACT),
        ParameterVersion(FINE_MAX, start, Decimal("20"), DEMO_ACT),
        ParameterVersion(INTEREST_MONTHLY, start, Decimal("1"), DEMO_ACT),
        ParameterVersion(active_debt.TERM_PARAMETER, start, 90, DEMO_ACT),
    ]


def seed_documents(db: Database) -> None:
    """The demo municipalities' document data and DAM parameters; idempotent (only what is missing)."""
    for town in municipalities.all_municipalities(db):
        code = town.code
        for version in demo_dam_parameters(code):
            bootstrap.ensure_parameter(db, code, version)
        demo = []
        if not town.cnpj and not town.signer_name:
            deployment.set_identity(db, SYSTEM, code, demo_cnpj(CNPJ_BASES[code]), *SIGNERS[code])
            demo += ["cnpj", "signer"]
        if not town.coat_of_arms:
            deployment.set_coat_of_arms(db, SYSTEM, code, demo_coat_of_arms(code), f"brasao_demonstracao_{code}.png")
            demo.append("coat_of_arms")
        if demo:
            db["municipalities"].update_one({"code": code}, {"$addToSet": {deployment.DEMO_RECORDS: {"$each": demo}}})
