"""DAM (Documento de Arrecadação Municipal): the pure pieces shared by every module.

- :mod:`rules.dam.barcode`: FEBRABAN arrecadação barcode (44 digits) and linha digitável (48);
- :mod:`rules.dam.pix`: static PIX BR Code payload (Banco Central, Manual de Padrões para
  Iniciação do Pix);
- :mod:`rules.dam.bank_return`: FEBRABAN arrecadação return file (150 positions, A/G/Z);
- :mod:`rules.dam.words`: amount in words in pt-BR ("valor por extenso");
- :mod:`rules.dam.dates`: due dates (a due date on a non-business day moves forward);
- :mod:`rules.dam.parameters`: the municipal parameters the DAM reads.

Every error here derives from :class:`rules.base.RuleError`, says the condition in pt-BR and
carries the offending value.
"""
