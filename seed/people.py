"""Invented people for the demo store: names, streets and districts, and CPF, CNPJ and phone numbers
with valid check digits, drawn from the caller's ``random.Random`` so a fixed seed gives the same
records every time. Every seed module draws its people here; this module imports no other of them."""
from __future__ import annotations

import random

FIRST = ["Maria", "José", "Antônio", "Francisca", "Luiz", "Adriana", "Marcos", "Patrícia", "Rafael", "Sandra",
         "Paulo", "Juliana", "Ricardo", "Aline", "Eduardo", "Cláudia", "Fernando", "Luciana", "Rodrigo", "Vanessa"]
LAST = ["Silva", "Santos", "Oliveira", "Souza", "Rodrigues", "Ferreira", "Alves", "Pereira", "Lima", "Gomes",
        "Costa", "Ribeiro", "Martins", "Carvalho", "Almeida", "Lopes", "Soares", "Fernandes", "Vieira", "Barbosa"]
STREETS = ["Rua das Palmeiras", "Avenida Brasil", "Rua Cuiabá", "Rua dos Ipês", "Avenida Mato Grosso",
           "Rua São Benedito", "Rua Sete de Setembro", "Travessa do Buriti"]
DISTRICTS = {
    "chapada": ["Centro", "Bom Jardim", "Vila Aurora", "Água Fria", "Cachoeira Rica"],
    "matupá".replace("á", "a"): ["Centro", "Jardim das Flores", "Bairro Industrial", "Vila Operária"],
    "nova_lacerda": ["Centro", "Assentamento Corixa", "Comunidade Vale do Guaporé", "Zona Rural Norte"],
}


def cpf(rng: random.Random) -> str:
    """Eleven digits, the last two the check digits (modulus 11) of the first nine."""
    base = [rng.randint(0, 9) for _ in range(9)]
    for weight_start in (10, 11):
        total = sum(d * w for d, w in zip(base, range(weight_start, 1, -1)))
        base.append((total * 10 % 11) % 10)
    return "".join(map(str, base))


def cnpj(rng: random.Random) -> str:
    """Fourteen digits of a head office (``0001``), the last two the check digits (modulus 11)."""
    base = [rng.randint(0, 9) for _ in range(8)] + [0, 0, 0, 1]
    for weights in ([5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2], [6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2]):
        remainder = sum(d * w for d, w in zip(base, weights)) % 11
        base.append(0 if remainder < 2 else 11 - remainder)
    return "".join(map(str, base))


def phone(rng: random.Random, code: str) -> str:
    """A mobile number with the area code of the municipality (66 in Matupá, 65 elsewhere)."""
    ddd = "66" if code == "matupa" else "65"
    return f"{ddd}9{rng.randint(8100, 9999)}{rng.randint(1000, 9999)}"


def person(rng: random.Random) -> str:
    """A first name and two surnames."""
    return f"{rng.choice(FIRST)} {rng.choice(LAST)} {rng.choice(LAST)}"
