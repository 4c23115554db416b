"""``python -m portal [--port 8502] [--host 0.0.0.0]``: the public portal on the store of the environment
(``PAINEL_DATA_DIR`` or ``MONGODB_URI``, as the panel)."""
from __future__ import annotations

import argparse
import logging
import os

import uvicorn

from portal.app import build
from services.shared import regulated_accounts
from services.store import connect


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m portal", description="Portal de serviços da prefeitura")
    parser.add_argument("--port", type=int, default=int(os.environ.get("PORTAL_PORT") or 8502))
    parser.add_argument("--host", default=os.environ.get("PORTAL_HOST") or "0.0.0.0")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")
    db = connect()
    regulated_accounts.prepare(db)
    print(f"Portal de serviços da prefeitura em http://localhost:{args.port}")
    uvicorn.run(build(db), host=args.host, port=args.port, server_header=False,
                log_level="warning")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
