"""Prepare the store: ``python -m seed`` (real deployment) or ``python -m seed --demo``.

``python -m seed --create-ti USER "Nome"`` creates the first ``ti`` user of a real deployment
(the password is asked at the prompt, or read from PAINEL_TI_PASSWORD).

``python -m seed --rebuild-views`` makes every read model (work queue, summaries) from the records again;
``python -m seed --backup DIR`` writes the whole store to DIR (Extended JSON + files);
``python -m seed --restore DIR`` loads such a folder into an empty store, all or nothing (also over a
lost store file, which every other command refuses to open);
``python -m seed --from-tinymongo OLD_DIR`` copies a tinymongo data folder (the format before the
embedded engine) into the store at PAINEL_DATA_DIR. Each prints its progress and the digest.
"""
from __future__ import annotations

import argparse
import getpass
import os
import sys

from services.setup import bootstrap
from services.setup.defaults import MUNICIPALITIES
from services.shared import backup, municipalities, views
from services.shared.accounts import create_first_ti
from services.shared.config import mongodb_db
from services.shared.errors import ServiceError
from services.store import connect


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m seed", description="Prepara o armazenamento do Painel Municipal.")
    parser.add_argument("--demo", action="store_true", help="carrega usuários e dados de demonstração")
    parser.add_argument("--create-ti", nargs=2, metavar=("USUARIO", "NOME"), help="cria o primeiro usuário de TI")
    parser.add_argument("--rebuild-views", action="store_true",
                        help="refaz dos registros os números derivados (fila de pendências, resumos)")
    parser.add_argument("--backup", metavar="PASTA", help="grava uma cópia de segurança completa na pasta")
    parser.add_argument("--restore", metavar="PASTA", help="restaura uma cópia de segurança num armazenamento vazio")
    parser.add_argument("--from-tinymongo", metavar="PASTA_ANTIGA",
                        help="copia uma pasta de dados do tinymongo (formato anterior) para PAINEL_DATA_DIR")
    args = parser.parse_args(argv)
    try:
        db = connect(restoring=bool(args.restore))
    except ServiceError as exc:  # PAINEL_DATA_DIR a file; a lost or damaged store
        print(f"Erro: {exc.message}", file=sys.stderr)
        return 1
    if args.backup or args.restore or args.from_tinymongo:
        return _move_data(db, args)
    if args.rebuild_views:
        bootstrap.prepare(db)
        for code in [m.code for m in municipalities.all_municipalities(db)]:
            views.rebuild(db, code, lambda line: print(f"  {line}", flush=True))
        print("Números derivados refeitos.")
        return 0
    if args.demo:
        # imported here on purpose, not to dodge a cycle: a real deployment's run (and --backup,
        # --restore, --create-ti) neither loads the demo package nor pays for it (PIL, the machinery
        # rules and every seed module: about 0.4 s)
        from seed.demo import seed_demo

        users = seed_demo(db)
        print("Painel Municipal — armazenamento de demonstração pronto.")
        print("Usuários de demonstração (somente para demonstração):")
        for username, role, password in users:
            print(f"  {username:<24} perfil {role:<11} senha {password}")
        from seed.portal_accounts import seed_portal_accounts

        print("Contas de demonstração do portal de serviços da prefeitura (python -m portal):")
        for who, identification, password in seed_portal_accounts(db):
            print(f"  {who:<11} {identification:<44} senha {password}")
        return 0
    bootstrap.prepare(db)
    if bootstrap.store_kind(db) == "demo":
        print("Aviso: este armazenamento é de demonstração.", file=sys.stderr)
    bootstrap.mark_store(db, "real")
    if args.create_ti:
        password = os.environ.get("PAINEL_TI_PASSWORD") or getpass.getpass("Senha do usuário de TI: ")
        try:
            create_first_ti(db, args.create_ti[0], args.create_ti[1], password, [m["code"] for m in MUNICIPALITIES])
        except ServiceError as exc:
            print(f"Erro: {exc.message}", file=sys.stderr)
            return 1
        print(f"Usuário de TI '{args.create_ti[0]}' criado.")
    print("Armazenamento preparado. A página Implantação (TI) lista os valores que cada município ainda deve "
          "cadastrar (código FEBRABAN, feriados, telefone da Ouvidoria, taxas, UPFM...).")
    return 0


def _move_data(db, args: argparse.Namespace) -> int:
    def progress(line: str) -> None:
        print(f"  {line}", flush=True)

    try:
        if args.backup:
            print(f"Cópia de segurança em {args.backup}:")
            print(f"Resumo (SHA-256) do armazenamento: {backup.backup(db, args.backup, progress)}")
        elif args.restore:
            print(f"Restaurando {args.restore}:")
            print(f"Resumo (SHA-256) do armazenamento restaurado: {backup.restore(db, args.restore, progress)}")
        else:
            print(f"Copiando os dados do tinymongo em {args.from_tinymongo}:")
            value = backup.from_tinymongo(db, args.from_tinymongo, mongodb_db(), progress)
            print(f"Resumo (SHA-256) da origem e da cópia, iguais: {value}")
    except ServiceError as exc:
        print(f"Erro: {exc.message}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
