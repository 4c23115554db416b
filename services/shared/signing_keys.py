"""The municipality's ICP-Brasil A1 certificate (PKCS#12) for the PAdES signature of its documents (issue 37
item 3): what it says, where its password is kept, and which kinds of document TI chose to sign.

The certificate file is kept by ``store.put_file``; the municipality's document holds what it says
(``signing_certificate``: holder, CNPJ, issuer, validity, the file's sha256) and the kinds chosen
(``signed_kinds``). The password is never in the store (nor in its backups or the audit):

1. ``PAINEL_A1_SENHA_<CÓDIGO>`` (e.g. ``PAINEL_A1_SENHA_CHAPADA``), set by whoever runs the server, wins;
2. else the key file ``.a1-<código>.senha`` in the data folder (``PAINEL_DATA_DIR``), mode 0600, written whole
   when TI uploads the certificate with its password — beside ``.secret``, protected the same way
   (``config.public_check_secret``), and, like it, left out of ``python -m seed --backup``: a copy of the
   store never carries the key that opens the certificate it carries.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path

from typing import TYPE_CHECKING

from pymongo.database import Database

from rules import fmt
from services.shared import clock, config, icp_brasil
from services.shared.errors import ValidationFailed

if TYPE_CHECKING:  # cryptography is read on the first certificate, not by every page that names the kinds
    from cryptography import x509

FIELD = "certificate"
PASSWORD_FIELD = "password"
CERTIFICATE = "signing_certificate"  # fields of the municipality's document
SIGNED_KINDS = "signed_kinds"
WARNING_DAYS = 30
WARNING, EXPIRED = "warning", "error"
# The kinds of PDF the panel issues, by the names the documents' code uses (the authentication stamp
# of the same issue keeps them too); TI chooses which of them the municipality signs.
KINDS = {  # the same names as services.shared.authenticity.KINDS (tests/test_pdf_signing.py holds them equal)
    "dam": "DAM (e a sua 2ª via)", "selo": "Selo do veículo", "certificado": "Certificado de autorização",
    "convocacao": "Convocação para vistoria", "laudo": "Laudo de vistoria", "auto": "Auto de infração",
    "notificacao": "Notificação do auto", "decisao": "Notificação da decisão", "processo": "Processo (autos)",
    "edital": "Edital de notificação", "pedido_dados": "Pedido de dados à plataforma",
    "lembrete_renovacao": "Lembrete de renovação", "orcamento": "Orçamento", "ordem_servico": "Ordem de serviço",
    "recibo": "Recibo", "extrato": "Extrato", "quadro_semana": "Quadro da semana",
    "relatorio_gestao": "Relatório gerencial",
}


@dataclass(frozen=True)
class A1:
    """What the certificate says, as the Implantação page shows it."""

    holder: str
    cnpj: str  # 14 digits, "" when the certificate names none
    issuer: str
    valid_from: datetime  # UTC
    valid_until: datetime  # UTC
    serial: str


def password_variable(code: str) -> str:
    """``chapada`` → ``PAINEL_A1_SENHA_CHAPADA``."""
    return f"PAINEL_A1_SENHA_{code.upper()}"


def key_file(code: str) -> Path:
    return config.data_dir() / f".a1-{code}.senha"


def password_from_environment(code: str) -> str | None:
    return os.environ.get(password_variable(code)) or None


def password(code: str) -> str | None:
    """The certificate's password: the environment variable, else the key file; None when neither."""
    found = password_from_environment(code)
    if found is not None:
        return found
    path = key_file(code)
    try:
        if path.stat().st_mode & 0o077:
            path.chmod(0o600)
        return path.read_text("utf-8")
    except (FileNotFoundError, UnicodeDecodeError):
        return None


def keep_password(code: str, secret: str) -> None:
    """Write the key file whole (temporary file 0600, fsync, rename) — only when the variable is unset."""
    path = key_file(code)
    path.parent.mkdir(parents=True, exist_ok=True)
    draft = path.with_name(f".a1-{code}.{os.getpid()}.{os.urandom(4).hex()}.tmp")
    descriptor = os.open(draft, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(descriptor, "wb") as file:
            file.write(secret.encode("utf-8"))
            file.flush()
            os.fsync(file.fileno())
        os.replace(draft, path)
    finally:
        draft.unlink(missing_ok=True)


def _refuse(field: str, message: str) -> ValidationFailed:
    return ValidationFailed({field: message})


def open_a1(data: bytes, secret: str):
    """(key, certificate, chain) of a PKCS#12 file; refused in pt-BR under the field at fault."""
    from cryptography.hazmat.primitives.serialization import pkcs12

    try:
        key, cert, chain = pkcs12.load_key_and_certificates(data, secret.encode("utf-8") if secret else None)
    except (ValueError, TypeError):
        if not _is_pkcs12(data):
            raise _refuse(FIELD, "O arquivo não é um certificado A1 (PKCS#12, .pfx ou .p12); exporte-o de novo com "
                                 "a chave privada.") from None
        raise _refuse(PASSWORD_FIELD, "A senha não abre o certificado; confira a senha (maiúsculas e minúsculas "
                                      "contam).") from None
    if key is None or cert is None:
        raise _refuse(FIELD, "O arquivo não traz a chave privada e o certificado juntos; exporte o A1 com a chave "
                             "privada (.pfx ou .p12).")
    return key, cert, tuple(chain or ())


def _is_pkcs12(data: bytes) -> bool:
    from asn1crypto import pkcs12 as asn1_pkcs12

    try:
        asn1_pkcs12.Pfx.load(bytes(data))["auth_safe"]["content_type"].native  # noqa: B018 — parses it
    except (ValueError, TypeError, KeyError):
        return False
    return True


def _cnpj(cert: x509.Certificate, common: str) -> str:
    """The CNPJ of the otherName 2.16.76.1.3.3 (DOC-ICP-04), else the "RAZÃO SOCIAL:CNPJ" suffix of the CN."""
    digits = "".join(c for c in icp_brasil.other_name(cert, icp_brasil.CNPJ_OID) if c.isdigit())
    if len(digits) == 14:
        return digits
    suffix = common.rpartition(":")[2]
    return suffix if suffix.isdigit() and len(suffix) == 14 else ""


def describe(cert: x509.Certificate) -> A1:
    common = icp_brasil.common_name(cert.subject) or cert.subject.rfc4514_string()
    holder = common.rpartition(":")[0] if ":" in common else common
    return A1(holder, _cnpj(cert, common), icp_brasil.common_name(cert.issuer) or cert.issuer.rfc4514_string(), cert.not_valid_before_utc,
              cert.not_valid_after_utc, format(cert.serial_number, "x"))


def check_valid(a1: A1, now: datetime) -> None:
    """An expired certificate (or one not valid yet) is refused: a signature made with it is not valid."""
    if a1.valid_until <= now:
        raise _refuse(FIELD, f"O certificado venceu em {fmt.day(_local_day(a1.valid_until))}; envie o certificado "
                             "renovado.")
    if a1.valid_from > now:
        raise _refuse(FIELD, f"O certificado só vale a partir de {fmt.day(_local_day(a1.valid_from))}; envie-o a "
                             "partir dessa data.")


def _local_day(instant: datetime) -> date:
    return clock.local_date(instant)


def expiry_notice(valid_until: date, today: date) -> tuple[str, str] | None:
    """TI's notice on Início: a warning from 30 days before the certificate's last day, an error after it."""
    left = (valid_until - today).days
    if left < 0:
        return EXPIRED, (f"O certificado digital venceu em {fmt.day(valid_until)}: os documentos saem sem "
                         "assinatura digital até a TI enviar o certificado renovado (Implantação).")
    if left <= WARNING_DAYS:
        days = "hoje" if left == 0 else f"em {fmt.count(left, 'dia', 'dias')}"
        return WARNING, (f"O certificado digital vence {days} ({fmt.day(valid_until)}): renove-o e envie o novo "
                         "na Implantação, senão os documentos passam a sair sem assinatura digital.")
    return None


def stored(db: Database, code: str) -> tuple[dict | None, tuple[str, ...]]:
    """(the certificate's record or None, the kinds chosen) of the municipality: one flat read."""
    doc = db["municipalities"].find_one({"code": code}, {CERTIFICATE: 1, SIGNED_KINDS: 1}) or {}
    return doc.get(CERTIFICATE) or None, tuple(doc.get(SIGNED_KINDS) or ())
