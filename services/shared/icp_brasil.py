"""What an ICP-Brasil certificate says of its holder, read in one place (DOC-ICP-04): the common name
("NOME:CPF" or "RAZÃO SOCIAL:CNPJ") and the otherName values of the subject alternative name — 2.16.76.1.3.1
(a person: birth date, CPF, …) and 2.16.76.1.3.3 (a legal person's CNPJ). Used by the platforms' signed
files (``signatures``) and by the municipality's A1 (``signing_keys``). ``cryptography`` and ``asn1crypto``
are imported when a certificate is read (the panel's start reads none)."""
from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from cryptography import x509

CPF_OID = "2.16.76.1.3.1"
CNPJ_OID = "2.16.76.1.3.3"


def common_name(name: x509.Name) -> str:
    """The common name of a subject or issuer ("" when it has none)."""
    from cryptography.x509.oid import NameOID

    found = name.get_attributes_for_oid(NameOID.COMMON_NAME)
    return str(found[0].value) if found else ""


def other_name(cert: x509.Certificate, oid: str) -> str:
    """The text of the otherName ``oid`` in the certificate's subject alternative name ("" when absent or
    unreadable)."""
    from asn1crypto import core
    from cryptography import x509

    try:
        names = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    except x509.ExtensionNotFound:
        return ""
    for other in names.get_values_for_type(x509.OtherName):
        if other.type_id.dotted_string == oid:
            try:
                value = core.load(other.value).native
            except ValueError:
                return ""
            return value.decode("latin-1") if isinstance(value, bytes) else str(value)
    return ""
