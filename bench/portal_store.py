"""The stores of ``bench/portal.py``: one addressee among many, through the real services.

At scale ``s`` (in a new embedded store in ``folder``):

- the driver of Chapada the benchmark logs in as (a demo account), with ``s - 1`` notices already in his
  electronic domicile, delivered by ``services.shared.domicile.deliver`` (the benchmark delivers one more
  before each opening it times, so the inbox holds ``s`` messages while a notice is opened);
- the platform person (a demo account of an authorized agent) whose platform has ``s - 1`` data requests
  made by ``trip_data.request_data`` (delivered to its domicile; one more is made before each upload);
- other addressees: ``OTHERS * s`` messages for ``OTHER_ADDRESSEES * s`` other drivers, and as many data
  requests of other platforms, copies of one the services wrote (new ids, codes, documents, instants) put
  in with ``insert_many``; the store then holds ``s`` times the messages of scale 1 and the person's own
  are found by the indexes that start with the addressee (``i_domicile_inbox``, ``i_domicile_code``).

The 5 MB signed file is a PDF with PAdES made by a person certificate of a CA made here, in the shapes of
``tests/pki_support.py`` (bench may not import tests/): CN "NOME:CPF" and the otherName 2.16.76.1.3.1.
"""
from __future__ import annotations

import io
import random
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

from bson import ObjectId

from seed.municipalities import seed_demo_parameters
from seed.ridehailing import driver_values
from services import store
from services.ridehailing import trip_data
from services.setup import bootstrap
from services.shared import clock, domicile, entities, regulated_accounts, trust_anchors
from services.shared.auth import Actor

STAFF = Actor("bench.chapada", "Bancada (Chapada)", "secretaria", ("chapada",))
TI = Actor("bench.ti", "Bancada (TI)", "ti", ("chapada",))
PASSWORD = "bancada-portal-2026"
PLATFORM_CNPJ = "11444777000161"  # invented, valid check digits
AGENT_CPF = "52998224725"  # invented, valid check digits
AGENT_NAME = "Rita Agente de Bancada"
OTHERS = 200  # other addressees' messages (and other platforms' data requests) at scale 1
OTHER_ADDRESSEES = 40
FILE_BYTES = 5_000_000  # the signed answer uploaded: 5 MB


@dataclass
class Bench:
    db: object
    driver_cpf: str
    platform_id: str
    signed_file: bytes


def notice_pdf(text: str = "Notificação de bancada") -> bytes:
    from fpdf import FPDF

    pdf = FPDF()
    pdf.add_page()
    pdf.set_font("helvetica", size=12)
    pdf.cell(0, 10, text)
    return bytes(pdf.output())


def deliver(db, cpf: str, number: int) -> dict:
    """One notice to the driver's domicile through the service (what the clerk's screens call)."""
    return domicile.deliver(db, STAFF, "chapada", "condutor", cpf, title=f"Notificação de bancada nº {number}",
                            category="bancada", pdf=notice_pdf(f"Notificação de bancada nº {number}"),
                            ref={"collection": "bancada", "id": str(ObjectId())})


def request(db, platform_id: str) -> str:
    return trip_data.request_data(db, STAFF, "chapada", platform_id, "Medição do portal (bancada)")


def _copies(template: dict, count: int, addressees: int, rng: random.Random, **fields_of) -> list[dict]:
    """``count`` copies of ``template`` spread over ``addressees`` other addressees (ids, codes, instants new)."""
    out = []
    start = template.get("delivered_at") or template.get("notified_at")
    for index in range(count):
        doc = dict(template)
        oid = ObjectId()
        when = start - timedelta(minutes=rng.randint(1, 60 * 24 * 600))
        doc.update(_id=oid, code=f"b{oid}", **{name: make(index % addressees, oid, when)
                                                for name, make in fields_of.items()})
        out.append(doc)
    return out


def _other_messages(db, template: dict, count: int, addressees: int, rng: random.Random) -> None:
    documents = [f"{90_000_000_000 + n:011d}" for n in range(addressees)]
    docs = _copies(store.decode(template), count, addressees, rng,
                   document=lambda n, _oid, _when: documents[n],
                   delivered_at=lambda _n, _oid, when: when,
                   delivered_on=lambda _n, _oid, when: clock.local_date(when),
                   key=lambda _n, oid, when: f"{when.isoformat()}|{oid}")
    for start in range(0, len(docs), 5000):
        db[domicile.MESSAGES].insert_many([store.encode(d) for d in docs[start:start + 5000]])


def _other_requests(db, template: dict, count: int, addressees: int, rng: random.Random) -> None:
    platforms = [str(ObjectId()) for _ in range(addressees)]
    docs = _copies(store.decode(template), count, addressees, rng,
                   platform_id=lambda n, _oid, _when: platforms[n],
                   notified_at=lambda _n, _oid, when: when,
                   created_at=lambda _n, _oid, when: when,
                   deadline_at=lambda _n, _oid, when: when + timedelta(hours=24))
    for start in range(0, len(docs), 5000):
        db[trip_data.REQUESTS].insert_many([store.encode(d) for d in docs[start:start + 5000]])


@dataclass
class Signed:
    """The CA TI uploads and the 5 MB PDF signed by the agent's certificate it issued (made once per run)."""
    root_pem: bytes
    file: bytes


def signed_answer(size: int = FILE_BYTES) -> Signed:
    (root_pem,), person = _pki()
    return Signed(root_pem, signed_pdf(person, size))


def driver_account(db, cpf: str, email: str) -> None:
    """The demo account (password :data:`PASSWORD`) and the open domicile of a driver of Chapada's register."""
    regulated_accounts.create_demo_account(db, "chapada", "condutor", cpf, cpf, PASSWORD)
    domicile.open_domicile(db, STAFF, "chapada", "condutor", cpf, email)


def platform_account(db, cnpj: str) -> None:
    """The agent :data:`AGENT_CPF` authorized by the platform ``cnpj`` of Chapada (the signer of the signed
    answer), its demo account and the platform's open domicile."""
    regulated_accounts.authorize_agent(db, STAFF, "chapada", cnpj, AGENT_CPF, AGENT_NAME, "agente@bancada.invalid")
    regulated_accounts.create_demo_account(db, "chapada", "plataforma", cnpj, AGENT_CPF, PASSWORD)
    domicile.open_domicile(db, STAFF, "chapada", "plataforma", cnpj, "agente@bancada.invalid")


def build(folder: str, scale: int, signed: Signed, others: int = OTHERS) -> Bench:
    """The store of ``scale`` in ``folder`` (made anew)."""
    db = store.connect(uri="", data_dir=str(folder))
    bootstrap.prepare(db)
    bootstrap.mark_store(db, "demo")  # the demo accounts (a known password) exist only in a demo store
    seed_demo_parameters(db)
    rng = random.Random(scale)
    values = driver_values(rng, "chapada", clock.today(), email="condutor.bancada@exemplo.invalid")
    entities.create(db, STAFF, "drivers", "chapada", values)
    cpf = values["cpf"]
    driver_account(db, cpf, values["email"])
    platform_id = entities.create(db, STAFF, "platforms", "chapada", {
        "name": "Plataforma de Bancada Ltda", "cnpj": PLATFORM_CNPJ, "email": "contato@bancada.invalid",
        "status": "ativo"})
    platform_account(db, PLATFORM_CNPJ)
    trust_anchors.add_anchors(db, TI, "chapada", signed.root_pem, "raiz-bancada.pem")
    for number in range(scale - 1):
        deliver(db, cpf, number + 1)
        request(db, platform_id)
    template = deliver(db, cpf, 0)
    message = db[domicile.MESSAGES].find_one({"_id": ObjectId(template["id"])})
    data_request = db[trip_data.REQUESTS].find_one({"_id": ObjectId(request(db, platform_id))})
    db[domicile.MESSAGES].delete_one({"_id": message["_id"]})
    db[trip_data.REQUESTS].delete_one({"_id": data_request["_id"]})
    _other_messages(db, message, others * scale, OTHER_ADDRESSEES * scale, rng)
    _other_requests(db, data_request, others * scale, OTHER_ADDRESSEES * scale, rng)
    return Bench(db, cpf, platform_id, signed.file)


# ---- the signed file ----

def _pki():
    """A root and an e-CPF-like certificate of the platform's agent: (root PEM, ...), (cert, key, root)."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import rsa
    from cryptography.x509.oid import NameOID

    def name(common: str) -> x509.Name:
        return x509.Name([x509.NameAttribute(NameOID.COUNTRY_NAME, "BR"),
                          x509.NameAttribute(NameOID.ORGANIZATION_NAME, "ICP-Bancada"),
                          x509.NameAttribute(NameOID.COMMON_NAME, common)])

    start = datetime.now(timezone.utc) - timedelta(days=1)
    root_key, key = (rsa.generate_private_key(public_exponent=65537, key_size=2048) for _ in range(2))
    root = (x509.CertificateBuilder().subject_name(name("AC Raiz de Bancada")).issuer_name(name("AC Raiz de Bancada"))
            .public_key(root_key.public_key()).serial_number(x509.random_serial_number()).not_valid_before(start)
            .not_valid_after(start + timedelta(days=3650))
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .add_extension(x509.KeyUsage(digital_signature=True, content_commitment=False, key_encipherment=False,
                                         data_encipherment=False, key_agreement=False, key_cert_sign=True,
                                         crl_sign=True, encipher_only=False, decipher_only=False), critical=True)
            .sign(root_key, hashes.SHA256()))
    value = ("01011980" + AGENT_CPF + "0" * 26 + "SSPMT ").encode()
    other = x509.OtherName(x509.ObjectIdentifier("2.16.76.1.3.1"), bytes([0x04, len(value)]) + value)
    leaf = (x509.CertificateBuilder().subject_name(name(f"{AGENT_NAME.upper()}:{AGENT_CPF}")).issuer_name(root.subject)
            .public_key(key.public_key()).serial_number(x509.random_serial_number()).not_valid_before(start)
            .not_valid_after(start + timedelta(days=365))
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .add_extension(x509.KeyUsage(digital_signature=True, content_commitment=True, key_encipherment=True,
                                         data_encipherment=False, key_agreement=False, key_cert_sign=False,
                                         crl_sign=False, encipher_only=False, decipher_only=False), critical=True)
            .add_extension(x509.SubjectAlternativeName([other]), critical=False)
            .sign(root_key, hashes.SHA256()))
    return (root.public_bytes(serialization.Encoding.PEM),), (leaf, key, root)


def signed_pdf(person, size: int) -> bytes:
    """A PDF of about ``size`` bytes (a page and an incompressible attachment) signed with PAdES by ``person``."""
    from asn1crypto import keys
    from asn1crypto import x509 as asn1_x509
    from cryptography.hazmat.primitives import serialization
    from pyhanko.pdf_utils import embed
    from pyhanko.pdf_utils.incremental_writer import IncrementalPdfFileWriter
    from pyhanko.sign import fields, signers
    from pyhanko_certvalidator.registry import SimpleCertificateStore

    leaf, key, root = person
    writer = IncrementalPdfFileWriter(io.BytesIO(notice_pdf("Resposta ao pedido de dados (bancada)")))
    rng = random.Random(5)
    rows = "".join(f"2026-11-{rng.randint(1, 30):02d} {rng.randint(0, 23):02d}:{rng.randint(0, 59):02d};"
                   f"{rng.randint(10**9, 10**10 - 1)};{rng.randint(1, 9999)},{rng.randint(0, 99):02d}\n"
                   for _ in range(size // 36))
    data = rows.encode()[:max(size - 30_000, 1000)]  # uncompressed below: the file is about ``size`` bytes
    embed.embed_file(writer, embed.FileSpec(file_spec_string="viagens.csv", embedded_data=embed.EmbeddedFileObject
                                            .from_file_data(writer, data, compress=False, mime_type="text/csv")))
    signer = signers.SimpleSigner(
        asn1_x509.Certificate.load(leaf.public_bytes(serialization.Encoding.DER)),
        keys.PrivateKeyInfo.load(key.private_bytes(serialization.Encoding.DER, serialization.PrivateFormat.PKCS8,
                                                   serialization.NoEncryption())),
        SimpleCertificateStore.from_certs([asn1_x509.Certificate.load(root.public_bytes(serialization.Encoding.DER))]))
    out = io.BytesIO()
    signers.sign_pdf(writer, signers.PdfSignatureMetadata(field_name="Assinatura",
                                                          subfilter=fields.SigSeedSubFilter.PADES),
                     signer=signer, output=out)
    return out.getvalue()
