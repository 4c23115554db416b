"""Prepare the store: ``python -m seed`` (real deployment) or ``python -m seed --demo``.

``python -m seed --create-ti USER "Nome"`` creates the first ``ti`` user of a real deployment
(the password is asked at the prompt, or read from PAINEL_TI_PASSWORD).
"""
from __future__ import annotations

import argparse
import getpass
import os
import sys

from services import bootstrap
from services.errors import ServiceError
from services.store import connect


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m seed", description="Prepara o armazenamento do Painel Municipal.")
    parser.add_argument("--demo", action="store_true", help="carrega usuários e dados de demonstração")
    parser.add_argument("--create-ti", nargs=2, metavar=("USUARIO", "NOME"), help="cria o primeiro usuário de TI")
    args = parser.parse_args(argv)
    db = connect()
    if args.demo:
        from seed.demo import seed_demo

        users = seed_demo(db)
        print("Painel Municipal — armazenamento de demonstração pronto.")
        print("Usuários de demonstração (somente para demonstração):")
        for username, role, password in users:
            print(f"  {username:<24} perfil {role:<11} senha {password}")
        return 0
    bootstrap.prepare(db)
    if bootstrap.store_kind(db) == "demo":
        print("Aviso: este armazenamento é de demonstração.", file=sys.stderr)
    bootstrap.mark_store(db, "real")
    if args.create_ti:
        from seed.municipalities import MUNICIPALITIES
        from services.auth import create_first_ti

        password = os.environ.get("PAINEL_TI_PASSWORD") or getpass.getpass("Senha do usuário de TI: ")
        try:
            create_first_ti(db, args.create_ti[0], args.create_ti[1], password, [m["code"] for m in MUNICIPALITIES])
        except ServiceError as exc:
            print(f"Erro: {exc.message}", file=sys.stderr)
            return 1
        print(f"Usuário de TI '{args.create_ti[0]}' criado.")
    print("Armazenamento preparado.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
