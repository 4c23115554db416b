"""A test PKI of our own (the issues ask that tests make their own CA): a root, persons' e-CPF-like
certificates and a municipality's e-CNPJ-like A1 (PKCS#12), built with ``cryptography``.

The certificates follow ICP-Brasil's shapes where a reader of them relies on it: the subject's common name
is "NOME:CPF" (or "RAZÃO SOCIAL:CNPJ"), and the subject alternative name carries the otherName
2.16.76.1.3.1 (birth date ddmmaaaa + CPF + NIS + RG + issuer) for a person and 2.16.76.1.3.3 (CNPJ) for a
legal person, as DOC-ICP-04 says. Nothing here is a real person's or body's: the CPFs and CNPJs the tests
pass have valid check digits and are invented.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.hazmat.primitives.serialization import pkcs12
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

CPF_OID = x509.ObjectIdentifier("2.16.76.1.3.1")
CNPJ_OID = x509.ObjectIdentifier("2.16.76.1.3.3")
KEY_SIZE = 2048


@dataclass(frozen=True)
class Issued:
    """A certificate with its key, and the PEM/DER/PKCS#12 forms a test hands to the panel."""
    cert: x509.Certificate
    key: rsa.RSAPrivateKey
    chain: tuple[x509.Certificate, ...] = ()

    @property
    def pem(self) -> bytes:
        return self.cert.public_bytes(serialization.Encoding.PEM)

    @property
    def der(self) -> bytes:
        return self.cert.public_bytes(serialization.Encoding.DER)

    def pkcs12(self, password: bytes) -> bytes:
        """The A1 file (.pfx) with the key, the certificate and its chain."""
        return pkcs12.serialize_key_and_certificates(
            b"a1", self.key, self.cert, list(self.chain),
            serialization.BestAvailableEncryption(password) if password else serialization.NoEncryption())


def _key() -> rsa.RSAPrivateKey:
    return rsa.generate_private_key(public_exponent=65537, key_size=KEY_SIZE)


def _name(common: str, org: str = "ICP-Teste") -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COUNTRY_NAME, "BR"),
                      x509.NameAttribute(NameOID.ORGANIZATION_NAME, org),
                      x509.NameAttribute(NameOID.COMMON_NAME, common)])


def make_ca(name: str = "AC Raiz de Teste do Painel", days: int = 3650,
            not_before: datetime | None = None) -> Issued:
    """A self-signed root (what TI uploads as a trust anchor in the tests)."""
    key = _key()
    start = not_before or datetime.now(timezone.utc) - timedelta(days=1)
    subject = _name(name)
    cert = (x509.CertificateBuilder().subject_name(subject).issuer_name(subject).public_key(key.public_key())
            .serial_number(x509.random_serial_number()).not_valid_before(start)
            .not_valid_after(start + timedelta(days=days))
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .add_extension(x509.KeyUsage(digital_signature=True, content_commitment=False, key_encipherment=False,
                                         data_encipherment=False, key_agreement=False, key_cert_sign=True,
                                         crl_sign=True, encipher_only=False, decipher_only=False), critical=True)
            .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
            .sign(key, hashes.SHA256()))
    return Issued(cert, key)


def _leaf(ca: Issued, common: str, other_name: x509.OtherName, days: int,
          not_before: datetime | None) -> Issued:
    key = _key()
    start = not_before or datetime.now(timezone.utc) - timedelta(days=1)
    cert = (x509.CertificateBuilder().subject_name(_name(common)).issuer_name(ca.cert.subject)
            .public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(start).not_valid_after(start + timedelta(days=days))
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .add_extension(x509.KeyUsage(digital_signature=True, content_commitment=True, key_encipherment=True,
                                         data_encipherment=False, key_agreement=False, key_cert_sign=False,
                                         crl_sign=False, encipher_only=False, decipher_only=False), critical=True)
            .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.CLIENT_AUTH,
                                                  ExtendedKeyUsageOID.EMAIL_PROTECTION]), critical=False)
            .add_extension(x509.SubjectAlternativeName([other_name]), critical=False)
            .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(ca.key.public_key()), critical=False)
            .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
            .sign(ca.key, hashes.SHA256()))
    return Issued(cert, key, (ca.cert,))


def _octets(text: str) -> bytes:
    """An OCTET STRING holding ``text`` (DER), as ICP-Brasil encodes the otherName values."""
    raw = text.encode("ascii")
    return bytes([0x04, len(raw)]) + raw


def make_person(ca: Issued, name: str, cpf: str, days: int = 365, not_before: datetime | None = None,
                birth: str = "01011980") -> Issued:
    """An e-CPF-like certificate: CN "NOME:CPF", otherName 2.16.76.1.3.1 with the CPF at 8..19."""
    digits = "".join(c for c in cpf if c.isdigit())
    value = birth + digits + "0" * 11 + "0" * 15 + "SSPMT "
    return _leaf(ca, f"{name.upper()}:{digits}", x509.OtherName(CPF_OID, _octets(value)), days, not_before)


def make_legal_person(ca: Issued, name: str, cnpj: str, days: int = 365,
                      not_before: datetime | None = None) -> Issued:
    """An e-CNPJ-like A1 certificate (the municipality's): CN "RAZÃO SOCIAL:CNPJ", otherName 2.16.76.1.3.3."""
    digits = "".join(c for c in cnpj if c.isdigit())
    return _leaf(ca, f"{name.upper()}:{digits}", x509.OtherName(CNPJ_OID, _octets(digits)), days, not_before)
