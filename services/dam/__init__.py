"""DAM (Documento de Arrecadação Municipal): issue, 2ª via, payments, bank return files, the slip (rules.dam)."""
