"""Public machinery and vehicle services provided to third parties (preço público).

Nova Lacerda: Decreto 017/2026, regulating Lei Municipal 1.063/2026, with Anexo I
(price table) and Anexo II (discounts). The rule set is :mod:`rules.machinery.nova_lacerda`.
"""
