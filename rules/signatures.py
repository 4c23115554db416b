"""Who signed a file, as an ICP-Brasil person certificate says it, and whether that person may sign for
a platform.

- The data a platform sends electronically count only "desde que autenticadas eletronicamente por agente
  autorizado" (Chapada, Decreto 06/2026 art. 11 §3) / "desde que autenticados digitalmente" (Matupá, Lei
  1.552/2025 art. 4 §3): the file carries a digital signature whose signer is a person the platform
  authorized (docs/LEITURAS.md, seção 6, leitura 7).
- The signer's CPF: the e-CPF's subject alternative name carries the otherName 2.16.76.1.3.1 (DOC-ICP-04
  item 7.1.2.3: birth date ddmmaaaa in positions 1–8, then the CPF in 9–19); where a certificate lacks it,
  the common name's suffix "NOME:CPF" (the ICP-Brasil form of the CN). The name is the CN before ":".
"""
from __future__ import annotations

CPF_OTHER_NAME = "2.16.76.1.3.1"


def _cpf_digits(text: str) -> str:
    digits = "".join(c for c in text if c.isdigit())
    return digits if len(digits) == 11 and digits != "0" * 11 else ""


def signer_cpf(other_name_cpf_field: str, common_name: str) -> str:
    """The signer's CPF (11 digits) from the otherName 2.16.76.1.3.1 value (positions 9–19, 1-based), else
    from the common name's ":CPF" suffix; "" when neither holds one."""
    found = _cpf_digits(other_name_cpf_field[8:19]) if len(other_name_cpf_field) >= 19 else ""
    if found:
        return found
    _name, colon, tail = common_name.rpartition(":")
    return _cpf_digits(tail) if colon else ""


def signer_name(common_name: str) -> str:
    """The person's name of an ICP-Brasil common name ("NOME:CPF" → "NOME")."""
    name, colon, tail = common_name.rpartition(":")
    return (name if colon and tail.strip().isdigit() else common_name).strip()


def may_sign(signer: str, authorized_cpfs: frozenset[str]) -> bool:
    """The signer is a person the platform authorized, now (CG art. 11 §3; MP art. 4 §3)."""
    return bool(signer) and signer in authorized_cpfs
