"""Implantação: the values the law leaves to each municipality that a store still lacks or still has
from the demo.

A real store starts with the municipalities and the values the law fixes (services/setup/defaults.py).
What each municipality must decide itself — its FEBRABAN code, holidays, ouvidoria phone, PIX key,
the fees and the UPFM its rule set has no default for, its CNPJ and coat of arms, the A1 certificate that
signs its documents (``services.setup.signature``) — is listed here until TI sets it. A value counts as a demo value when the act it cites says "demonstração" (every
value ``python -m seed --demo`` and the rule sets' DEMO_PARAMETERS write does).
"""
from __future__ import annotations

import io
from dataclasses import dataclass

from PIL import Image, UnidentifiedImageError
from pymongo.database import Database

from rules import params
from rules.dam.late import FINE_DAILY, FINE_MAX, INTEREST_MONTHLY
from rules.dam.parameters import (
    FEBRABAN_CODE,
    PIX_ENABLED,
    PIX_KEY,
    PIX_MERCHANT_NAME,
    revenue_code_parameter,
)
from rules.dam.pix import MAX_NAME, merchant_name_cut
from rules.params import ParameterBook, ParameterMissing
from rules.registry import MACHINERY, RIDE_HAILING, demo_parameters
from services import store
from services.dam import active_debt
from services.machinery.localities import LOCALITIES
from services.ridehailing.fees import FEE_PARAMETER
from services.setup import signature
from services.shared import audit, clock, config, fields, municipalities, parameters
from services.shared.auth import Actor, authorize
from services.shared.boundary import checked
from services.shared.errors import ValidationFailed
from services.shared.parameter_labels import label

NOT_SET = "não cadastrado"
DEMO_VALUE = "valor de demonstração"
DEMO_MARK = params.DEMO_MARK
PARAMETERS_PAGE = "Parâmetros"
DEPLOYMENT_PAGE = "Implantação"
LOCALITIES_PAGE = "Zonas e localidades"
SIGNATURE_SECTION = "Assinatura digital dos documentos"
WARNING = "aviso"

COMMON = (FEBRABAN_CODE, parameters.HOLIDAYS, "ouvidoria_phone", PIX_KEY, FINE_DAILY, FINE_MAX, INTEREST_MONTHLY,
          active_debt.TERM_PARAMETER)
REVENUE_KINDS_BY_MODULE = {  # the DAM revenue kinds each module issues (services/dams.REVENUE_KINDS)
    RIDE_HAILING: {"taxa_autorizacao": "taxa de autorização", "taxa_vistoria": "taxa de vistoria",
                   "multa": "multa (auto de infração)"},
    MACHINERY: {"preco_publico": "preço público por item", "parcela": "parcela de preço público"},
}
BY_MODULE = {
    RIDE_HAILING: (FEE_PARAMETER, "issqn_rate", *map(revenue_code_parameter, REVENUE_KINDS_BY_MODULE[RIDE_HAILING])),
    MACHINERY: (LOCALITIES, *map(revenue_code_parameter, REVENUE_KINDS_BY_MODULE[MACHINERY])),
}
PAGES = {LOCALITIES: LOCALITIES_PAGE}  # parameters kept on a page of their own rather than on Parâmetros
RECORDS = (  # data of the municipality itself, set on the Implantação page
    ("cnpj", "CNPJ da Prefeitura"),
    ("coat_of_arms", "Brasão do município (imagem PNG ou JPEG)"),
    ("signer", "Quem assina os certificados (nome e cargo)"),
)
DEMO_RECORDS = "demo_records"  # which of RECORDS the demo seed wrote (TI's own value removes its key)
ARMS_TYPES = {"PNG": "image/png", "JPEG": "image/jpeg"}
ARMS_MAX_BYTES = 1024 * 1024
ARMS_MAX_SIDE = 4000


@dataclass(frozen=True)
class MissingValue:
    """A value the municipality must set: what it is, why it is listed, and where TI sets it."""

    what: str
    status: str  # NOT_SET or DEMO_VALUE
    where: str
    parameter: str = ""  # the parameter's identifier, when it is one
    act: str = ""  # the demo act the value cites


PORTAL_URL = ("Endereço público do portal (os QR dos PDFs, o selo e os e-mails levam a ele; sem ele, levam a "
              "localhost)")


@checked
def missing_values(db: Database, actor: Actor, municipality: str) -> list[MissingValue]:
    """Every value left to the municipality that is missing today or still a demo value (``admin``)."""
    authorize(actor, "admin", municipality)
    town = municipalities.get(db, municipality)
    book = parameters.book(db, municipality)
    names = [*COMMON, *(n for module in town.modules for n in BY_MODULE.get(module, ())),
             *(v.name for v in demo_parameters(municipality))]
    found = [item for name in dict.fromkeys(names) if (item := _parameter(book, name))]
    doc = db["municipalities"].find_one({"code": municipality}, {**{key: 1 for key, _ in RECORDS}, DEMO_RECORDS: 1})
    doc = doc or {}
    where = f"{DEPLOYMENT_PAGE} → Dados da Prefeitura"
    found += [MissingValue(what, NOT_SET if not doc.get(key) else DEMO_VALUE, where) for key, what in RECORDS
              if not doc.get(key) or key in doc.get(DEMO_RECORDS, [])]
    gap = signature.missing(db, municipality)
    if gap is not None:
        found.append(MissingValue(*gap, f"{DEPLOYMENT_PAGE} → {SIGNATURE_SECTION}"))
    found += _pix_name_warning(book)
    if not config.portal_url_configured():
        found.append(MissingValue(PORTAL_URL, NOT_SET, "Configuração do servidor → variável PAINEL_PORTAL_URL"))
    return found


def _pix_name_warning(book: ParameterBook) -> list[MissingValue]:
    """The PIX payee name prints cut to 25 characters (BR Code field 59): TI is told what the payer sees."""
    today = clock.today()
    try:
        if not book.get(PIX_ENABLED, today):
            return []
        cut = merchant_name_cut(book.get(PIX_MERCHANT_NAME, today))
    except ParameterMissing:
        return []
    if cut is None:
        return []
    return [MissingValue(f"Nome do recebedor PIX com mais de {MAX_NAME} caracteres: o pagador verá “{cut}”",
                         WARNING, f"{PARAMETERS_PAGE} → {label(PIX_MERCHANT_NAME)}",
                         PIX_MERCHANT_NAME)]


def _parameter(book: ParameterBook, name: str) -> MissingValue | None:
    what = label(name)
    where = f"{PAGES.get(name, PARAMETERS_PAGE)} → {what}"
    try:
        version = book.version(name, clock.today())
    except ParameterMissing:
        return MissingValue(what, NOT_SET, where, name)
    if params.is_demo_act(version.act):
        return MissingValue(what, DEMO_VALUE, where, name, version.act)
    return None


@dataclass(frozen=True)
class Identity:
    """The Prefeitura's own data printed on every document, as TI set it."""

    cnpj: str
    signer_name: str
    signer_role: str
    coat_of_arms: str  # sha256, "" when none was uploaded


@checked
def identity(db: Database, actor: Actor, municipality: str) -> Identity:
    """CNPJ, signer and coat of arms of the municipality (``admin``)."""
    authorize(actor, "admin", municipality)
    town = municipalities.get(db, municipality)
    return Identity(town.cnpj, town.signer_name, town.signer_role, town.coat_of_arms)


@checked
def coat_of_arms(db: Database, actor: Actor, municipality: str) -> bytes | None:
    """The uploaded coat of arms image (for the preview), or None."""
    authorize(actor, "admin", municipality)
    sha = municipalities.get(db, municipality).coat_of_arms
    return store.get_file(db, sha) if sha else None


@checked
def set_identity(db: Database, actor: Actor, municipality: str, cnpj: str, signer_name: str,
                 signer_role: str) -> Identity:
    """Set the Prefeitura's CNPJ (check digits verified) and who signs its certificates (name and role,
    both or neither); audited."""
    authorize(actor, "admin", municipality)
    errors: dict[str, str] = {}
    try:
        number = fields.parse("cnpj", cnpj or "")
    except ValueError as exc:
        errors["cnpj"] = f"CNPJ: {exc}."
    name, role = (signer_name or "").strip(), (signer_role or "").strip()
    if bool(name) != bool(role):
        errors["signer_role" if name else "signer_name"] = "Informe o nome e o cargo de quem assina, ou nenhum dos dois."
    if errors:
        raise ValidationFailed(errors)
    before = identity(db, actor, municipality)
    signer = {"name": name, "role": role} if name else None
    with store.transaction(db):
        db["municipalities"].update_one({"code": municipality}, {"$set": {"cnpj": number, "signer": signer},
                                                                 "$pull": {DEMO_RECORDS: {"$in": ["cnpj", "signer"]}}})
        audit.record(db, actor, municipality, "update", "municipalities", municipality,
                     {"cnpj": before.cnpj, "signer": {"name": before.signer_name, "role": before.signer_role}},
                     {"cnpj": number, "signer": signer}, note="Dados da Prefeitura nos documentos")
    return identity(db, actor, municipality)


@checked
def set_coat_of_arms(db: Database, actor: Actor, municipality: str, data: bytes, name: str) -> Identity:
    """Keep the uploaded coat of arms (PNG or JPEG up to 1 MB) in the store's files and point the
    municipality to it; audited. Anything else is refused with the reason."""
    authorize(actor, "admin", municipality)
    kind = _image_kind(data)
    sha = store.put_file(db, data, name or f"brasao_{municipality}")
    before = municipalities.get(db, municipality).coat_of_arms
    arms = {"sha256": sha, "name": name, "content_type": ARMS_TYPES[kind], "uploaded_at": clock.now_utc(),
            "by": actor.username}
    with store.transaction(db):
        db["municipalities"].update_one({"code": municipality}, {"$set": {"coat_of_arms": store.encode(arms)},
                                                                 "$pull": {DEMO_RECORDS: "coat_of_arms"}})
        audit.record(db, actor, municipality, "update", "municipalities", municipality,
                     {"coat_of_arms": before}, {"coat_of_arms": sha}, note=f"Brasão do município enviado ({name})")
    return identity(db, actor, municipality)


def _image_kind(data: bytes) -> str:
    """'PNG' or 'JPEG' for a readable image of those formats within the limits, else ValidationFailed."""
    if not data:
        raise ValidationFailed({"coat_of_arms": "Brasão: o arquivo está vazio."})
    if len(data) > ARMS_MAX_BYTES:
        size = f"{len(data) / 1024 / 1024:.1f}".replace(".", ",")
        raise ValidationFailed({"coat_of_arms": f"Brasão: o arquivo tem {size} MB; o limite é 1 MB."})
    try:
        with Image.open(io.BytesIO(data)) as image:
            kind, size = image.format, image.size
            image.verify()
    except (UnidentifiedImageError, OSError, SyntaxError, ValueError):
        raise ValidationFailed({"coat_of_arms": "Brasão: o arquivo não é uma imagem PNG ou JPEG legível."}) from None
    if kind not in ARMS_TYPES:
        raise ValidationFailed({"coat_of_arms": f"Brasão: envie PNG ou JPEG (o arquivo é {kind})."})
    if max(size) > ARMS_MAX_SIDE:
        raise ValidationFailed({"coat_of_arms": f"Brasão: imagem de {size[0]}×{size[1]} pixels; "
                                                f"o limite é {ARMS_MAX_SIDE} pixels por lado."})
    return kind
